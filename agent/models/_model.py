"""`Model`: the one interface through which an agent talks to a language model."""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Mapping
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from agent._json_schema import JsonSchemaTransformer
from agent._tool_def import ToolDefinition
from agent.builtin_tools import WebFetchTool, native_kinds, native_tool_kind
from agent.exceptions import UserError
from agent.settings import ModelSettings, merge_model_settings

from ._request_parameters import ModelProfile, ModelRequestParameters
from ._return_schemas import prepare_return_schemas

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
        """Adapt the request parameters to this model.

        The default runs the profile's `json_schema_transformer` (if any) over every tool's parameters and the
        output object's schema; a `strict` left at `None` becomes whether the transformed schema suits strict mode.
        """
        transformer = self.profile.json_schema_transformer
        if transformer is None:
            return model_request_parameters
        params = model_request_parameters
        output_object = params.output_object
        if output_object is not None:
            schema, strict = _transformed(transformer, output_object.json_schema, output_object.strict)
            output_object = replace(output_object, json_schema=schema, strict=strict)
        return replace(
            params,
            function_tools=[_transformed_tool(transformer, tool_def) for tool_def in params.function_tools],
            output_tools=[_transformed_tool(transformer, tool_def) for tool_def in params.output_tools],
            output_object=output_object,
        )

    def prepare_request(
        self, model_settings: ModelSettings | None, model_request_parameters: ModelRequestParameters
    ) -> tuple[ModelSettings | None, ModelRequestParameters]:
        """Resolve settings and parameters for one request to this model.

        Merges the model's default settings under `model_settings`, moves the `thinking` setting into the
        parameters (see `_resolve_thinking`), applies `customize_request_parameters`,
        resolves the `'auto'` output mode from the profile, settles native tools (see `_settle_native_tools`),
        and sends return schemas only for the tools that opt in (see `prepare_return_schemas`). The caller's
        parameters and tool definitions are never mutated.

        Raises:
            UserError: if a requested native tool is not supported by this model and has no local fallback, or if
                the output asked for is native structured output, tool output or an image and the model's profile
                does not support it.
        """
        settings, params = _resolve_thinking(
            merge_model_settings(self.settings, model_settings), model_request_parameters, self.profile
        )
        params = self.customize_request_parameters(params)
        # A profile whose default structured mode is native evidently has one, whatever its flags say.
        native_ok = self.profile.supports_json_schema_output or self.profile.default_structured_output_mode == 'native'
        if params.output_mode == 'native' and not native_ok:
            raise UserError(
                f'Native structured output is not supported by this model. ({self.label}: use PromptedOutput(...) '
                'or ToolOutput(...).)'
            )
        if params.output_mode == 'tool' and not self.profile.supports_tools:
            raise UserError(f'Tool output is not supported by this model. ({self.label}: use PromptedOutput(...).)')
        if params.allow_image_output and not self.profile.supports_image_output:
            raise UserError(f'Image output is not supported by this model. ({self.label})')
        params = _with_prompted_output_template(
            params.with_default_output_mode(self.profile.default_structured_output_mode), self.profile
        )
        native_tools, function_tools = _settle_native_tools(self, params)
        output_tools = [_without_return_schema(tool_def) for tool_def in params.output_tools]
        params = replace(params, native_tools=native_tools, function_tools=function_tools, output_tools=output_tools)
        return settings, prepare_return_schemas(params, self.profile)

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


def _resolve_thinking(
    settings: ModelSettings | None, params: ModelRequestParameters, profile: ModelProfile
) -> tuple[ModelSettings | None, ModelRequestParameters]:
    """Move the unified `thinking` setting out of the settings and into `params.thinking`, as far as the model can
    honour it: a model that cannot think ignores it, one that always thinks ignores `False`.

    Settings without `thinking` leave `params.thinking` as it is, so preparing a prepared request changes nothing;
    settings holding nothing else become `None`.
    """
    if settings is None or 'thinking' not in settings:
        return settings, params
    thinking = settings['thinking']
    honoured = profile.supports_thinking or profile.thinking_always_enabled
    if honoured and not (thinking is False and profile.thinking_always_enabled):
        params = replace(params, thinking=thinking)
    rest = cast(ModelSettings, {key: value for key, value in settings.items() if key != 'thinking'})
    return (rest or None), params


def _settle_native_tools(model: Model, params: ModelRequestParameters) -> tuple[list[Any], list[ToolDefinition]]:
    """Which native and function tools go on the wire, given what the model supports.

    - A requested native tool the model supports is sent, and function tools with `unless_native` naming it
      (its local fallbacks) are dropped.
    - A requested native tool the model does not support is dropped if a function tool names it in
      `unless_native` (that fallback is sent instead) or if the tool is `optional`; otherwise the request fails
      with a `UserError`.
    - A function tool with `with_native` is kept, unless it is still hidden (`defer_loading=True`) and the
      native tool it names is not in use, since nothing could then reveal it to the model.
    - A tool of a deferred capability not loaded yet (`capability_id` set, `defer_loading=True`) is dropped,
      unless the model supports native tool search (as `FunctionModel` claims), which keeps hidden tools hidden.
    """
    supported = native_kinds(model.profile.supported_native_tools)
    fallbacks = {tool_def.unless_native for tool_def in params.function_tools if tool_def.unless_native}
    native_tools: list[Any] = []
    for tool in map(_current_native_tool, params.native_tools):
        kind = native_tool_kind(tool)
        if kind is not None and kind in supported:
            native_tools.append(tool)
        elif kind is None or (kind not in fallbacks and not _is_optional(tool)):
            label = getattr(tool, 'label', None) or repr(tool)
            raise UserError(
                f'{model.label} does not support the native tool {label} (kind {kind!r}): not supported by this '
                f'model, which supports {sorted(supported) or "no native tools"}. Use a model that supports it, '
                'mark it optional=True to go without it, or give it a local fallback: a capability such as '
                'WebSearch(), WebFetch() or MCP(url=...) rather than NativeTool(...), or '
                'NativeOrLocalTool(native=..., local=...).'
            )
    active = {native_tool_kind(tool) for tool in native_tools}
    # Only a model that searches deferred tools itself is trusted with those of capabilities not loaded yet.
    hides_deferred = 'tool_search' in supported
    function_tools = [
        tool_def
        for tool_def in params.function_tools
        if tool_def.unless_native not in active
        and not (tool_def.with_native and tool_def.defer_loading and tool_def.with_native not in active)
        and not (tool_def.capability_id is not None and tool_def.defer_loading and not hides_deferred)
    ]
    return native_tools, function_tools


def _transformed(
    transformer: type[JsonSchemaTransformer], schema: dict[str, Any], strict: bool | None
) -> tuple[dict[str, Any], bool | None]:
    walker = transformer(schema, strict=strict)
    transformed = walker.walk()
    return transformed, walker.is_strict_compatible if strict is None else strict


def _transformed_tool(transformer: type[JsonSchemaTransformer], tool_def: ToolDefinition) -> ToolDefinition:
    schema, strict = _transformed(transformer, tool_def.parameters_json_schema, tool_def.strict)
    return replace(tool_def, parameters_json_schema=schema, strict=strict)


def _is_optional(tool: Any) -> bool:
    """Whether the request may go without the tool (`optional=True`), also for a tool still in mapping form."""
    if isinstance(tool, Mapping):
        return bool(cast('Mapping[str, Any]', tool).get('optional'))
    return bool(getattr(tool, 'optional', False))


def _current_native_tool(tool: Any) -> Any:
    """The tool under its current kind: a `UrlContextTool` (kind `'url_context'`, an older name) is a `WebFetchTool`."""
    if native_tool_kind(tool) != 'url_context':
        return tool
    if isinstance(tool, Mapping):
        fields = dict(cast('Mapping[str, Any]', tool))
    else:
        fields = {f.name: getattr(tool, f.name) for f in dataclasses.fields(tool)}
    fields.pop('kind', None)
    return WebFetchTool(**fields)


def _without_return_schema(tool_def: ToolDefinition) -> ToolDefinition:
    # An output tool's result is the run's output, never shown to the model: its return schema says nothing.
    return tool_def if tool_def.return_schema is None else replace(tool_def, return_schema=None)


def _with_prompted_output_template(params: ModelRequestParameters, profile: ModelProfile) -> ModelRequestParameters:
    """Fill in the profile's prompted output template where the output mode needs it; drop it elsewhere."""
    wants_template = params.output_mode == 'prompted' or (
        params.output_mode == 'native' and profile.native_output_requires_schema_in_instructions
    )
    if not wants_template:
        return replace(params, prompted_output_template=None) if params.prompted_output_template else params
    if params.prompted_output_template is None:
        return replace(params, prompted_output_template=profile.prompted_output_template)
    return params
