"""`Model`: the one interface through which an agent talks to a language model."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agent._tool_def import ToolDefinition
from agent.settings import ModelSettings, merge_model_settings

from ._request_parameters import ModelProfile, ModelRequestParameters

if TYPE_CHECKING:
    from agent._parts import ModelMessage, ModelResponse
    from agent._run_context import RunContext

    from ._streamed import StreamedResponse

__all__ = ('Model',)


class Model(ABC):
    """A language model: turns a conversation plus request parameters into a response.

    Everything that crosses this interface is plain data (messages, settings, parameters, response), so a
    durable runtime can run `request` somewhere else (e.g. in an activity) without the agent noticing.

    Implementations call `prepare_request` at the start of `request`/`request_stream`; it is idempotent, so a
    caller that prepared the request already gets the same result.
    """

    def __init__(self, *, settings: ModelSettings | None = None, profile: ModelProfile | None = None) -> None:
        """Create a model.

        Args:
            settings: Default settings for every request; request settings override them key by key.
            profile: What the model supports; `ModelProfile()` defaults when omitted.
        """
        self._settings = settings
        self._profile = profile

    @abstractmethod
    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Send the conversation to the model and return its complete response."""
        raise NotImplementedError

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        """Send the conversation to the model and stream its response.

        Raises:
            NotImplementedError: on entering the context, if the model cannot stream.
        """
        raise NotImplementedError(f'Streamed requests are not supported by {type(self).__name__}')
        yield  # pragma: no cover  # unreachable, but makes this an async generator

    def customize_request_parameters(self, model_request_parameters: ModelRequestParameters) -> ModelRequestParameters:
        """Adapt the request parameters to this model (e.g. rewrite schemas); the default changes nothing."""
        return model_request_parameters

    def prepare_request(
        self, model_settings: ModelSettings | None, model_request_parameters: ModelRequestParameters
    ) -> tuple[ModelSettings | None, ModelRequestParameters]:
        """Resolve settings and parameters for one request to this model.

        Merges the model's default settings under `model_settings`, applies `customize_request_parameters`,
        resolves the `'auto'` output mode from the profile, drops function tools whose `unless_native` names a
        native tool that is both requested and supported, and leaves out return schemas unless a tool opts in.
        The caller's parameters and tool definitions are never mutated.
        """
        settings = merge_model_settings(self.settings, model_settings)
        params = _resolve_auto_output_mode(self.customize_request_parameters(model_request_parameters), self.profile)
        requested = {getattr(tool, 'kind', None) for tool in params.native_tools}
        active_native = {
            kind for kind in requested if isinstance(kind, str) and kind in self.profile.supported_native_tools
        }
        function_tools = [
            _without_return_schema(tool_def)
            for tool_def in params.function_tools
            if tool_def.unless_native is None or tool_def.unless_native not in active_native
        ]
        output_tools = [_without_return_schema(tool_def) for tool_def in params.output_tools]
        return settings, replace(params, function_tools=function_tools, output_tools=output_tools)

    @property
    @abstractmethod
    def model_name(self) -> str:
        """The model's name, e.g. `gpt-5.2`."""
        raise NotImplementedError

    @property
    @abstractmethod
    def system(self) -> str:
        """The provider's name, e.g. `openai`, `anthropic`, `test`."""
        raise NotImplementedError

    @property
    def settings(self) -> ModelSettings | None:
        """Default settings for every request to this model."""
        return self._settings

    @property
    def profile(self) -> ModelProfile:
        """What the model supports."""
        return self._profile if self._profile is not None else ModelProfile()

    @property
    def base_url(self) -> str | None:
        """The provider's base URL, for models reached over HTTP."""
        return None

    @property
    def label(self) -> str:
        """`'<system>:<model_name>'`, for logs and traces."""
        return f'{self.system}:{self.model_name}'


def _without_return_schema(tool_def: ToolDefinition) -> ToolDefinition:
    if tool_def.return_schema is None or tool_def.include_return_schema is True:
        return tool_def
    return replace(tool_def, return_schema=None)


def _resolve_auto_output_mode(params: ModelRequestParameters, profile: ModelProfile) -> ModelRequestParameters:
    """Turn `'auto'` into the profile's structured output mode, keeping only the fields that mode uses.

    A native/prompted default needs an output object; without one the output tools are used instead.
    """
    if params.output_mode != 'auto':
        return params
    mode = profile.default_structured_output_mode
    if mode in ('native', 'prompted') and params.output_object is None:
        mode = 'tool'
    if mode == 'tool':
        return replace(params, output_mode='tool', output_object=None)
    return replace(params, output_mode=mode, output_tools=[], allow_text_output=True)
