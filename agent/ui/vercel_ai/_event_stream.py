"""`VercelAIEventStream`: an agent run as the Vercel AI SDK's UI message stream.

The stream is one assistant message: `start`, then one step per model response (`start-step` ... `finish-step`,
the step holding the response's text, reasoning and tool calls and the results of those calls), then `finish`
and `data: [DONE]`. A tool call's input is announced (`tool-input-available`) once the run has validated it, so
a call whose arguments were invalid becomes `tool-input-error` instead. Calls that need a human's approval end
the run with `DeferredToolRequests`; each becomes a `tool-approval-request`, and the client's answer comes back
in its next request (see `VercelAIAdapter.deferred_tool_results`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Any, Literal

from agent._events import (
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    OutputToolCallEvent,
    OutputToolResultEvent,
    PartDeltaEvent,
    PartStartEvent,
    TextPartDelta,
    ThinkingPartDelta,
    ToolCallEvent,
    ToolCallPartDelta,
)
from agent._parts import FilePart, RetryPromptPart, TextPart, ThinkingPart
from agent._parts import FinishReason as NativeFinishReason
from agent._tool_parts import NativeToolCallPart, NativeToolReturnPart, ToolCallPart, ToolReturnPart
from agent.run import AgentRunResultEvent
from agent.tools import DeferredToolRequests
from agent.ui._event_stream import AgentDepsT, OutputDataT, UIEventStream

from ._utils import dump_message_metadata, dump_provider_metadata, tool_return_output
from .request_types import RequestData
from .response_types import (
    BaseChunk,
    DoneChunk,
    ErrorChunk,
    FileChunk,
    FinishChunk,
    FinishReason,
    FinishStepChunk,
    MessageMetadataChunk,
    ReasoningDeltaChunk,
    ReasoningEndChunk,
    ReasoningStartChunk,
    StartChunk,
    StartStepChunk,
    TextDeltaChunk,
    TextEndChunk,
    TextStartChunk,
    ToolApprovalRequestChunk,
    ToolInputAvailableChunk,
    ToolInputDeltaChunk,
    ToolInputErrorChunk,
    ToolInputStartChunk,
    ToolOutputAvailableChunk,
    ToolOutputDeniedChunk,
    ToolOutputErrorChunk,
)

__all__ = ('VERCEL_AI_DSP_HEADERS', 'VercelAIEventStream')

VERCEL_AI_DSP_HEADERS: Mapping[str, str] = {'x-vercel-ai-ui-message-stream': 'v1'}
"""The header that tells the AI SDK client the body is a UI message stream (protocol version 1)."""

_FINISH_REASONS: dict[NativeFinishReason, FinishReason] = {
    'stop': 'stop',
    'length': 'length',
    'content_filter': 'content-filter',
    'tool_call': 'tool-calls',
    'error': 'error',
}


def _call_metadata(part: ToolCallPart | NativeToolCallPart) -> dict[str, Any] | None:
    return dump_provider_metadata(
        id=part.id, provider_name=part.provider_name, provider_details=part.provider_details, tool_kind=part.tool_kind
    )


@dataclass
class VercelAIEventStream(UIEventStream[RequestData, BaseChunk, AgentDepsT, OutputDataT]):
    """Turns an agent run's events into Vercel AI UI message stream chunks (see the module docstring)."""

    _: KW_ONLY
    sdk_version: Literal[5, 6, 7] = 6
    """The AI SDK major version of the client. 6 and 7 get tool approval and denial chunks; 5 does not."""
    server_message_id: str | None = None
    """The assistant message's id for the `start` chunk; without one the client names the message itself (and an
    AI SDK client continues its last assistant message when the request answered it, e.g. approvals)."""

    _step_open: bool = False
    _finish_reason: FinishReason = None
    # Tool calls whose arguments have streamed but whose input was not announced yet, by tool call id.
    _unannounced_calls: dict[str, ToolCallPart] = field(default_factory=dict[str, ToolCallPart])
    # Tool calls the run found invalid arguments for: they end with `tool-input-error`, not an output.
    _invalid_calls: dict[str, ToolCallPart] = field(default_factory=dict[str, ToolCallPart])
    # The tool call id of each streaming part index: a model's later argument deltas often carry only the index.
    _call_ids: dict[int, str] = field(default_factory=dict[int, str])

    @property
    def response_headers(self) -> Mapping[str, str] | None:
        """The `x-vercel-ai-ui-message-stream: v1` header."""
        return VERCEL_AI_DSP_HEADERS

    def encode_event(self, event: BaseChunk) -> str:
        """One chunk as a Server-Sent Event: `data: <json>` and a blank line."""
        return f'data: {event.encode(self.sdk_version)}\n\n'

    # ----- the message and its steps -----

    async def before_stream(self) -> AsyncIterator[BaseChunk]:
        """Opens the assistant message."""
        yield StartChunk(message_id=self.server_message_id)

    async def before_response(self) -> AsyncIterator[BaseChunk]:
        """Each model response starts a new step (closing the previous one with its tool results)."""
        if self._step_open:
            yield FinishStepChunk()
        self._step_open = True
        yield StartStepChunk()

    async def after_stream(self) -> AsyncIterator[BaseChunk]:
        """Closes the last step and the message, then ends the stream with `[DONE]`."""
        if self._step_open:
            self._step_open = False
            yield FinishStepChunk()
        yield FinishChunk(finish_reason=self._finish_reason)
        yield DoneChunk()

    async def handle_run_result(self, event: AgentRunResultEvent[Any]) -> AsyncIterator[BaseChunk]:
        """Records the model's finish reason, sends the message's metadata and asks for the pending approvals."""
        async for chunk in self._announce_remaining_calls():
            yield chunk
        native_reason = event.result.response.finish_reason
        if native_reason is not None:
            self._finish_reason = _FINISH_REASONS.get(native_reason, 'other')
        # One metadata chunk per message: the AI SDK merges it into `message.metadata`, as `dump_messages` writes it.
        yield MessageMetadataChunk(message_metadata=dump_message_metadata(event.result.response))
        output = event.result.output
        if isinstance(output, DeferredToolRequests) and self.sdk_version >= 6:
            for call in output.approvals:
                # One approval per call, so the call id is a fine approval id; it comes back in `approval.id`.
                yield ToolApprovalRequestChunk(approval_id=call.tool_call_id, tool_call_id=call.tool_call_id)

    async def on_error(self, error: Exception) -> AsyncIterator[BaseChunk]:
        """Reports the error; calls whose input streamed are announced first so none stays 'streaming'."""
        async for chunk in self._announce_remaining_calls():
            yield chunk
        self._finish_reason = 'error'
        yield ErrorChunk(error_text=str(error) or type(error).__name__)

    async def handle_part_start(self, event: PartStartEvent) -> AsyncIterator[BaseChunk]:
        """Remembers which tool call a part index streams, then dispatches as usual."""
        if isinstance(event.part, ToolCallPart | NativeToolCallPart):
            self._call_ids[event.index] = event.part.tool_call_id
        async for chunk in super().handle_part_start(event):
            yield chunk

    async def handle_part_delta(self, event: PartDeltaEvent) -> AsyncIterator[BaseChunk]:
        """Fills in the tool call id of an argument delta that only names its part index, then dispatches."""
        delta = event.delta
        if isinstance(delta, ToolCallPartDelta) and delta.tool_call_id is None and event.index in self._call_ids:
            event = replace(event, delta=replace(delta, tool_call_id=self._call_ids[event.index]))
        async for chunk in super().handle_part_delta(event):
            yield chunk

    # ----- text and reasoning -----

    async def handle_text_start(self, part: TextPart, follows_text: bool = False) -> AsyncIterator[BaseChunk]:
        """Opens a text part, or continues the previous one when text follows text."""
        if not follows_text:
            yield TextStartChunk(id=self.new_message_id(), provider_metadata=self._text_metadata(part))
        if part.content:
            yield TextDeltaChunk(id=self.message_id, delta=part.content)

    async def handle_text_delta(self, delta: TextPartDelta) -> AsyncIterator[BaseChunk]:
        """Appends text."""
        if delta.content_delta:
            yield TextDeltaChunk(id=self.message_id, delta=delta.content_delta)

    async def handle_text_end(self, part: TextPart, followed_by_text: bool = False) -> AsyncIterator[BaseChunk]:
        """Closes the text part, unless more text follows and continues it."""
        if not followed_by_text:
            yield TextEndChunk(id=self.message_id, provider_metadata=self._text_metadata(part))

    @staticmethod
    def _text_metadata(part: TextPart) -> dict[str, Any] | None:
        return dump_provider_metadata(
            id=part.id, provider_name=part.provider_name, provider_details=part.provider_details
        )

    async def handle_thinking_start(
        self, part: ThinkingPart, follows_thinking: bool = False
    ) -> AsyncIterator[BaseChunk]:
        """Opens a reasoning part (each thinking part is its own, as each may carry its own signature)."""
        yield ReasoningStartChunk(id=self.new_message_id())
        if part.content:
            yield ReasoningDeltaChunk(id=self.message_id, delta=part.content)

    async def handle_thinking_delta(self, delta: ThinkingPartDelta) -> AsyncIterator[BaseChunk]:
        """Appends reasoning."""
        if delta.content_delta:
            yield ReasoningDeltaChunk(id=self.message_id, delta=delta.content_delta)

    async def handle_thinking_end(
        self, part: ThinkingPart, followed_by_thinking: bool = False
    ) -> AsyncIterator[BaseChunk]:
        """Closes the reasoning part; its signature rides in the provider metadata to come back next turn."""
        metadata = dump_provider_metadata(
            id=part.id,
            signature=part.signature,
            provider_name=part.provider_name,
            provider_details=part.provider_details,
        )
        yield ReasoningEndChunk(id=self.message_id, provider_metadata=metadata)

    async def handle_file(self, part: FilePart) -> AsyncIterator[BaseChunk]:
        """A file the model produced, as a `data:` URL."""
        yield FileChunk(url=part.content.data_uri, media_type=part.content.media_type)

    # ----- tool calls -----

    async def handle_tool_call_start(self, part: ToolCallPart) -> AsyncIterator[BaseChunk]:
        """Opens a tool call; its arguments stream as input deltas."""
        async for chunk in self._tool_input_start(part, provider_executed=None):
            yield chunk

    async def handle_builtin_tool_call_start(self, part: NativeToolCallPart) -> AsyncIterator[BaseChunk]:
        """Opens a call of a tool the provider runs."""
        async for chunk in self._tool_input_start(part, provider_executed=True):
            yield chunk

    async def _tool_input_start(
        self, part: ToolCallPart | NativeToolCallPart, *, provider_executed: bool | None
    ) -> AsyncIterator[BaseChunk]:
        yield ToolInputStartChunk(
            tool_call_id=part.tool_call_id,
            tool_name=part.tool_name,
            provider_executed=provider_executed,
            provider_metadata=_call_metadata(part),
        )
        if part.args:
            # A string is sent as is: it may be the first fragment of JSON that later deltas complete.
            yield ToolInputDeltaChunk(tool_call_id=part.tool_call_id, input_text_delta=part.args_as_json_str())

    async def handle_tool_call_delta(self, delta: ToolCallPartDelta) -> AsyncIterator[BaseChunk]:
        """Appends argument text to the call being streamed."""
        if delta.tool_call_id and delta.args_delta:
            text = (
                delta.args_delta
                if isinstance(delta.args_delta, str)
                else ToolCallPart('', delta.args_delta).args_as_json_str()
            )
            yield ToolInputDeltaChunk(tool_call_id=delta.tool_call_id, input_text_delta=text)

    async def handle_tool_call_end(self, part: ToolCallPart) -> AsyncIterator[BaseChunk]:
        """Keeps the call until the run validates it (`handle_function_tool_call`), which announces its input."""
        self._unannounced_calls[part.tool_call_id] = part
        return
        yield  # an async generator that yields nothing

    async def handle_builtin_tool_call_end(self, part: NativeToolCallPart) -> AsyncIterator[BaseChunk]:
        """The provider's tool call is complete: its input is available."""
        yield ToolInputAvailableChunk(
            tool_call_id=part.tool_call_id,
            tool_name=part.tool_name,
            input=_safe_args(part),
            provider_executed=True,
            provider_metadata=_call_metadata(part),
        )

    async def handle_builtin_tool_return(self, part: NativeToolReturnPart) -> AsyncIterator[BaseChunk]:
        """The provider's tool result."""
        if part.outcome == 'failed':
            yield ToolOutputErrorChunk(
                tool_call_id=part.tool_call_id, error_text=part.model_response_str(), provider_executed=True
            )
        else:
            yield ToolOutputAvailableChunk(
                tool_call_id=part.tool_call_id, output=tool_return_output(part), provider_executed=True
            )

    async def handle_function_tool_call(self, event: FunctionToolCallEvent) -> AsyncIterator[BaseChunk]:
        """Announces the validated call's input."""
        async for chunk in self._tool_call(event):
            yield chunk

    async def handle_output_tool_call(self, event: OutputToolCallEvent) -> AsyncIterator[BaseChunk]:
        """Announces the output tool call's input."""
        async for chunk in self._tool_call(event):
            yield chunk

    async def _tool_call(self, event: ToolCallEvent) -> AsyncIterator[BaseChunk]:
        part = self._unannounced_calls.pop(event.part.tool_call_id, None)
        if part is None:
            # Not streamed here: a call resumed from an earlier request, announced by that request's stream.
            return
        if event.args_valid is False and self.sdk_version >= 6:
            self._invalid_calls[part.tool_call_id] = part
            return
        yield self._input_available(part)

    async def _announce_remaining_calls(self) -> AsyncIterator[BaseChunk]:
        for part in self._unannounced_calls.values():
            yield self._input_available(part)
        self._unannounced_calls.clear()

    @staticmethod
    def _input_available(part: ToolCallPart) -> ToolInputAvailableChunk:
        return ToolInputAvailableChunk(
            tool_call_id=part.tool_call_id,
            tool_name=part.tool_name,
            input=_safe_args(part),
            provider_metadata=_call_metadata(part),
        )

    async def handle_function_tool_result(self, event: FunctionToolResultEvent) -> AsyncIterator[BaseChunk]:
        """The tool's result, error or denial."""
        async for chunk in self._tool_result(event.part):
            yield chunk

    async def handle_output_tool_result(self, event: OutputToolResultEvent) -> AsyncIterator[BaseChunk]:
        """The output tool's result."""
        async for chunk in self._tool_result(event.part):
            yield chunk

    async def _tool_result(self, part: ToolReturnPart | RetryPromptPart) -> AsyncIterator[BaseChunk]:
        call_id = part.tool_call_id
        if (unannounced := self._unannounced_calls.pop(call_id, None)) is not None:
            # The run failed or skipped the call before validating it; the client must see its input first.
            yield self._input_available(unannounced)
        if (invalid := self._invalid_calls.pop(call_id, None)) is not None:
            error_text = part.model_response() if isinstance(part, RetryPromptPart) else part.model_response_str()
            yield ToolInputErrorChunk(
                tool_call_id=call_id,
                tool_name=invalid.tool_name,
                input=_safe_args(invalid),
                error_text=error_text,
                provider_metadata=_call_metadata(invalid),
            )
        elif isinstance(part, RetryPromptPart):
            yield ToolOutputErrorChunk(tool_call_id=call_id, error_text=part.model_response())
        elif part.outcome == 'denied' and self.sdk_version >= 6:
            yield ToolOutputDeniedChunk(tool_call_id=call_id)
        elif part.outcome in ('failed', 'denied'):
            yield ToolOutputErrorChunk(tool_call_id=call_id, error_text=part.model_response_str())
        else:
            yield ToolOutputAvailableChunk(tool_call_id=call_id, output=tool_return_output(part))


def _safe_args(part: ToolCallPart | NativeToolCallPart) -> Any:
    """The call's arguments as an object; arguments that are not a JSON object are passed on as their text."""
    try:
        return part.args_as_dict(raise_if_invalid=True)
    except ValueError:
        return part.args
