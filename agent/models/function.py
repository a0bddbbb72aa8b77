"""`FunctionModel`: a model whose responses are written by a Python function, for tests and scripted demos.

The function receives the conversation and an `AgentInfo` describing the request, and returns the response:

```python
from agent.messages import ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel


def echo(messages, info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart(f'{len(info.function_tools)} tools available')])


model = FunctionModel(echo)
```

For streaming, a `stream_function` yields text (`str`), tool call fragments (`DeltaToolCalls`), thinking
fragments (`DeltaThinkingCalls`) or whole native tool calls and results (`BuiltinToolCallsReturns`, as a provider
that runs tools itself would stream them), keyed by an id of the function's choosing for the part they belong to.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any, TypeAlias

from agent._events import ModelResponseStreamEvent
from agent._parts import ModelMessage, ModelResponse
from agent._run_context import RunContext
from agent._tool_def import ToolDefinition
from agent._tool_parts import NativeToolCallPart, NativeToolReturnPart
from agent.builtin_tools import SUPPORTED_NATIVE_TOOLS
from agent.exceptions import UserError
from agent.settings import ModelSettings
from agent.usage import RequestUsage

from . import Model, ModelProfile, ModelRequestParameters, StreamedResponse
from ._usage_estimate import REQUEST_OVERHEAD_TOKENS, estimate_string_tokens, estimate_usage
from ._wire import last_instructions

__all__ = (
    'AgentInfo',
    'BuiltinToolCallsReturns',
    'DeltaThinkingCalls',
    'DeltaThinkingPart',
    'DeltaToolCall',
    'DeltaToolCalls',
    'FunctionDef',
    'FunctionModel',
    'FunctionStreamedResponse',
    'StreamFunctionDef',
)


@dataclass(frozen=True, kw_only=True)
class AgentInfo:
    """What the agent sends along with the messages, as seen by a `FunctionModel` function."""

    function_tools: list[ToolDefinition]
    """The function tools available for this request."""
    allow_text_output: bool
    """Whether plain text is an acceptable final output."""
    output_tools: list[ToolDefinition]
    """The tools whose call is the final output."""
    model_settings: ModelSettings | None
    """The settings for this request."""
    model_request_parameters: ModelRequestParameters
    """The full request parameters."""
    instructions: str | None
    """The instructions of the last request in the conversation."""


@dataclass
class DeltaToolCall:
    """A fragment of a streamed tool call."""

    name: str | None = None
    """The tool name (or a piece of it)."""
    json_args: str | None = None
    """A piece of the JSON arguments."""
    tool_call_id: str | None = None
    """The call's id."""


@dataclass
class DeltaThinkingPart:
    """A fragment of streamed reasoning."""

    content: str | None = None
    """Reasoning text to append."""
    signature: str | None = None
    """Signature text to append."""


DeltaToolCalls: TypeAlias = dict[int, DeltaToolCall]
"""Tool call fragments, keyed by an id for the call they belong to."""

DeltaThinkingCalls: TypeAlias = dict[int, DeltaThinkingPart]
"""Thinking fragments, keyed by an id for the thinking part they belong to."""

BuiltinToolCallsReturns: TypeAlias = dict[int, NativeToolCallPart | NativeToolReturnPart]
"""Whole native (provider-run) tool calls and results, each streamed as one part under its id."""

StreamFragment: TypeAlias = str | DeltaToolCalls | DeltaThinkingCalls | BuiltinToolCallsReturns
"""One item a stream function yields."""

FunctionDef: TypeAlias = Callable[[list[ModelMessage], AgentInfo], ModelResponse | Awaitable[ModelResponse]]
"""Produces a complete response (sync or async)."""

StreamFunctionDef: TypeAlias = Callable[[list[ModelMessage], AgentInfo], AsyncIterator[StreamFragment]]
"""Produces a streamed response, fragment by fragment."""


class FunctionModel(Model):
    """A model that answers by calling a function written for the test or demo at hand."""

    def __init__(
        self,
        function: FunctionDef | None = None,
        *,
        stream_function: StreamFunctionDef | None = None,
        model_name: str | None = None,
        profile: ModelProfile | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Create a function model.

        Args:
            function: Answers `request`; called directly when sync (it is a test script, not real work).
            stream_function: Answers `request_stream`.
            model_name: The model name; `function:<function name>:<stream function name>` by default (a missing
                function gives an empty name).
            profile: What the model claims to support; JSON schema output and every native tool are supported
                by default.
            settings: Default model settings.

        Raises:
            TypeError: if neither `function` nor `stream_function` is given.
        """
        if function is None and stream_function is None:
            raise TypeError('FunctionModel needs a `function`, a `stream_function`, or both')
        super().__init__(
            settings=settings,
            profile=profile
            or ModelProfile(
                supports_json_schema_output=True,
                supports_json_object_output=True,
                # Like Pydantic AI's: a function can stand in for any provider, native tools included.
                supported_native_tools=frozenset(SUPPORTED_NATIVE_TOOLS),
            ),
        )
        self.function = function
        self.stream_function = stream_function
        names = [_name(f) if f is not None else '' for f in (function, stream_function)]
        self._model_name = model_name or f'function:{names[0]}:{names[1]}'

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Answer with the response `function` returns.

        Raises:
            UserError: if the model was created with only a `stream_function`.
        """
        if self.function is None:
            raise UserError('This FunctionModel has only a `stream_function`: use `run_stream` (a streamed request)')
        settings, params = self.prepare_request(model_settings, model_request_parameters)
        result = self.function(messages, _agent_info(messages, settings, params))
        response = await result if inspect.isawaitable(result) else result
        # As in Pydantic AI, the response always carries this model's name, and a usage only if the function
        # left it empty.
        response = replace(response, model_name=self.model_name)
        if not response.usage.total_tokens and not response.usage.details:
            response = replace(response, usage=estimate_usage([*messages, response]))
        return response

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        """Stream the fragments `stream_function` yields.

        Raises:
            NotImplementedError: if the model was created with only a `function`; streamed runs then fall
                back to a plain request and emit the whole response as events.
        """
        if self.stream_function is None:
            raise NotImplementedError('This FunctionModel has only a `function`, so it cannot stream')
        settings, params = self.prepare_request(model_settings, model_request_parameters)
        fragments = self.stream_function(messages, _agent_info(messages, settings, params))
        try:
            yield FunctionStreamedResponse(params, fragments, model_name=self.model_name)
        finally:
            # A stream left before its end (the run was cancelled or stopped reading) still runs the
            # stream function's cleanup, as closing a connection would for a real model.
            aclose = getattr(fragments, 'aclose', None)
            if aclose is not None:
                await aclose()

    @property
    def model_name(self) -> str:
        """The model name reported in responses."""
        return self._model_name

    @property
    def system(self) -> str:
        """Always `'function'`."""
        return 'function'


class FunctionStreamedResponse(StreamedResponse):
    """Turns the fragments of a stream function into part events."""

    def __init__(
        self,
        model_request_parameters: ModelRequestParameters,
        fragments: AsyncIterator[StreamFragment],
        *,
        model_name: str,
    ) -> None:
        """Create a stream over `fragments`."""
        super().__init__(model_request_parameters, model_name=model_name, provider_name=None)
        self._fragments = fragments
        # Only the fixed request overhead: a streamed estimate does not count the conversation sent.
        self._usage = RequestUsage(input_tokens=REQUEST_OVERHEAD_TOKENS)

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        async for fragment in self._fragments:
            if isinstance(fragment, str):
                self._count_output(fragment)
                # Text continues the latest part when it is text, so a string after a tool call starts a new part.
                if fragment:
                    for event in self._parts_manager.handle_text_delta(vendor_part_id=None, content=fragment):
                        yield event
                continue
            for key, delta in fragment.items():
                if isinstance(delta, DeltaToolCall):
                    self._count_output(delta.json_args)
                    event = self._parts_manager.handle_tool_call_delta(
                        vendor_part_id=('tool-call', key),
                        tool_name=delta.name,
                        args=delta.json_args,
                        tool_call_id=delta.tool_call_id,
                    )
                elif isinstance(delta, DeltaThinkingPart):
                    self._count_output(delta.content)
                    event = None
                    if delta.content or delta.signature:
                        thinking = self._parts_manager.handle_thinking_delta(
                            vendor_part_id=('thinking', key), content=delta.content or None, signature=delta.signature
                        )
                        event = next(thinking, None)
                else:
                    if isinstance(delta, NativeToolCallPart):
                        self._count_output(delta.args_as_json_str())
                    else:
                        self._count_output(delta.model_response_str())
                    event = self._parts_manager.handle_part(vendor_part_id=('native', key), part=delta)
                if event is not None:
                    yield event

    def _count_output(self, text: str | None) -> None:
        if text:
            self._usage += RequestUsage(output_tokens=estimate_string_tokens(text))


def _name(function: Callable[..., Any]) -> str:
    return getattr(function, '__name__', type(function).__name__)


def _agent_info(
    messages: list[ModelMessage], settings: ModelSettings | None, params: ModelRequestParameters
) -> AgentInfo:
    return AgentInfo(
        function_tools=params.function_tools,
        allow_text_output=params.allow_text_output,
        output_tools=params.output_tools,
        model_settings=settings,
        model_request_parameters=params,
        instructions=last_instructions(messages),
    )
