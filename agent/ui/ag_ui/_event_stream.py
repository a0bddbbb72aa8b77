"""`AGUIEventStream`: an agent run's events as AG-UI 1.0 events.

One run is one AG-UI run:

    RUN_STARTED
      TEXT_MESSAGE_START / _CONTENT / _END                    the model's text
      REASONING_START, REASONING_MESSAGE_START / _CONTENT / _END, REASONING_END
                                                              each thinking part (one id for the block and
                                                              its message; REASONING_ENCRYPTED_VALUE before
                                                              REASONING_END carries a signature back)
      TOOL_CALL_START / _ARGS / _END                          each tool call, as the model streams it
      TOOL_CALL_RESULT                                        each result of a tool the agent ran
      STATE_SNAPSHOT                                          the deps' state, when a tool changed it
      ACTIVITY_SNAPSHOT                                       a file the model made, a provider's compaction
    STATE_SNAPSHOT                                            the final state, when the deps carry state
    RUN_FINISHED  outcome: none for a plain success, success with pendingToolCallIds (the frontend tool
                  calls to answer), or interrupt (the tool calls waiting for approval)
    or RUN_ERROR                                              when the run failed (nothing follows it)

Every event carries the time it was sent (`timestamp`, milliseconds since the epoch).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    ActivitySnapshotEvent,
    BaseEvent,
    ReasoningEncryptedValueEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from agent._env import now_utc, uuid7
from agent.messages import (
    CompactionPart,
    FilePart,
    FunctionToolResultEvent,
    NativeToolCallPart,
    NativeToolReturnPart,
    OutputToolResultEvent,
    PartDeltaEvent,
    PartStartEvent,
    RetryPromptPart,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
    ToolReturnPart,
)
from agent.tools import DeferredToolRequests
from agent.ui._event_stream import AgentDepsT, NativeEvent, OnCompleteFunc, OutputDataT, UIEventStream
from agent.ui._state import StateHandler

from ._content import COMPACTION_ACTIVITY_TYPE, FILE_ACTIVITY_TYPE, native_tool_call_id
from ._dump import compaction_activity_content, file_activity_content, thinking_encrypted_value, tool_result_content
from ._interrupts import approval_interrupts
from ._utils import DEFAULT_AG_UI_VERSION

__all__ = ('AGUIEventStream',)


@dataclass
class AGUIEventStream(UIEventStream[RunAgentInput, BaseEvent, AgentDepsT, OutputDataT]):
    """Turns an agent run's events into AG-UI events for the run input's thread and run (see the module docstring)."""

    state_handler: StateHandler | None = None
    """The run's deps when they carry the frontend's state: their state is sent as `STATE_SNAPSHOT` events."""
    ag_ui_version: str = DEFAULT_AG_UI_VERSION
    """The AG-UI version the frontend speaks (that of the installed `ag-ui-protocol` by default)."""
    _failed: bool = field(default=False, init=False, repr=False)
    _reasoning_message_id: str = field(default='', init=False, repr=False)
    _reasoning_opened: bool = field(default=False, init=False, repr=False)
    _reasoning_text_open: bool = field(default=False, init=False, repr=False)
    _native_ids: dict[str, str] = field(default_factory=dict[str, str], init=False, repr=False)
    # Tool call deltas need not carry the call's id: the AG-UI id of each response part's call, by part index.
    _call_ids_by_index: dict[int, str] = field(default_factory=dict[int, str], init=False, repr=False)
    _delta_index: int | None = field(default=None, init=False, repr=False)
    _sent_state: Any = field(default=None, init=False, repr=False)

    # ----- encoding -----

    @property
    def content_type(self) -> str:
        """The content type the AG-UI encoder chose for the request's `Accept` header."""
        return self._encoder.get_content_type()

    def encode_event(self, event: BaseEvent) -> str:
        """Encode an event with the AG-UI encoder, in the encoding chosen for the `Accept` header."""
        return self._encoder.encode(event)

    @property
    def _encoder(self) -> EventEncoder:
        return EventEncoder(accept=self.accept)  # pyright: ignore[reportArgumentType]

    # ----- run lifecycle -----

    async def transform_stream(
        self, stream: AsyncIterator[NativeEvent], on_complete: OnCompleteFunc[BaseEvent] | None = None
    ) -> AsyncIterator[BaseEvent]:
        """The AG-UI events of the run, each stamped with the time it was sent (milliseconds since the epoch)."""
        async for event in super().transform_stream(stream, on_complete=on_complete):
            if event.timestamp is None:
                event.timestamp = int(now_utc().timestamp() * 1000)
            yield event

    async def before_stream(self) -> AsyncIterator[BaseEvent]:
        """Open the run."""
        if self.state_handler is not None:
            self._sent_state = self._state_json()
        yield RunStartedEvent(thread_id=self.run_input.thread_id, run_id=self.run_input.run_id)

    async def before_response(self) -> AsyncIterator[BaseEvent]:
        """Give each model response its own message id, so its parts never join the previous response's."""
        self.new_message_id()
        self._call_ids_by_index.clear()
        return
        yield

    async def handle_part_start(self, event: PartStartEvent) -> AsyncIterator[BaseEvent]:
        """Note the part index of a tool call, then dispatch as the base class does."""
        part = event.part
        if isinstance(part, NativeToolCallPart):
            self._call_ids_by_index[event.index] = native_tool_call_id(part.tool_call_id, part.provider_name)
        elif isinstance(part, ToolCallPart):
            self._call_ids_by_index[event.index] = part.tool_call_id
        async for e in super().handle_part_start(event):
            yield e

    async def handle_part_delta(self, event: PartDeltaEvent) -> AsyncIterator[BaseEvent]:
        """Note which part a delta belongs to, then dispatch as the base class does."""
        self._delta_index = event.index
        async for e in super().handle_part_delta(event):
            yield e

    async def on_error(self, error: Exception) -> AsyncIterator[BaseEvent]:
        """End the run with `RUN_ERROR`; `RUN_FINISHED` is not sent after it."""
        self._failed = True
        yield RunErrorEvent(message=str(error) or type(error).__name__, code=type(error).__name__)

    async def after_stream(self) -> AsyncIterator[BaseEvent]:
        """Close the run: the final state, then `RUN_FINISHED` with the run's outcome."""
        if self._failed:
            return
        if self.state_handler is not None:
            yield StateSnapshotEvent(snapshot=self._state_json())
        output = self._result.output if self._result is not None else None
        # A plain success needs no outcome (a client reads its absence as success, as older agents send it).
        outcome: RunFinishedSuccessOutcome | RunFinishedInterruptOutcome | None = None
        if isinstance(output, DeferredToolRequests):
            if output.approvals:
                outcome = RunFinishedInterruptOutcome(interrupts=approval_interrupts(output))
            elif output.calls:
                outcome = RunFinishedSuccessOutcome(pending_tool_call_ids=[call.tool_call_id for call in output.calls])
        yield RunFinishedEvent(thread_id=self.run_input.thread_id, run_id=self.run_input.run_id, outcome=outcome)

    # ----- text -----

    async def handle_text_start(self, part: TextPart, follows_text: bool = False) -> AsyncIterator[BaseEvent]:
        """Start a text message, or continue the previous one when this text directly follows it."""
        if not follows_text:
            yield TextMessageStartEvent(message_id=self.new_message_id(), role='assistant')
        if part.content:
            yield TextMessageContentEvent(message_id=self.message_id, delta=part.content)

    async def handle_text_delta(self, delta: TextPartDelta) -> AsyncIterator[BaseEvent]:
        """More text."""
        if delta.content_delta:
            yield TextMessageContentEvent(message_id=self.message_id, delta=delta.content_delta)

    async def handle_text_end(self, part: TextPart, followed_by_text: bool = False) -> AsyncIterator[BaseEvent]:
        """End the text message, unless more text continues it."""
        if not followed_by_text:
            yield TextMessageEndEvent(message_id=self.message_id)

    # ----- reasoning -----

    async def handle_thinking_start(
        self, part: ThinkingPart, follows_thinking: bool = False
    ) -> AsyncIterator[BaseEvent]:
        """Open a reasoning block for the thinking part (one id names the block and its message).

        Nothing is sent until there is text: a part with neither text nor signature leaves no trace.
        """
        self._reasoning_message_id = uuid7()
        self._reasoning_opened = self._reasoning_text_open = False
        if part.content:
            async for e in self._reasoning_text(part.content):
                yield e

    async def handle_thinking_delta(self, delta: ThinkingPartDelta) -> AsyncIterator[BaseEvent]:
        """More reasoning text."""
        if delta.content_delta:
            async for e in self._reasoning_text(delta.content_delta):
                yield e

    async def _reasoning_text(self, text: str) -> AsyncIterator[BaseEvent]:
        message_id = self._reasoning_message_id
        if not self._reasoning_opened:
            self._reasoning_opened = True
            yield ReasoningStartEvent(message_id=message_id)
        if not self._reasoning_text_open:
            self._reasoning_text_open = True
            yield ReasoningMessageStartEvent(message_id=message_id, role='reasoning')
        yield ReasoningMessageContentEvent(message_id=message_id, delta=text)

    async def handle_thinking_end(
        self, part: ThinkingPart, followed_by_thinking: bool = False
    ) -> AsyncIterator[BaseEvent]:
        """Close the reasoning block; its signature travels in `REASONING_ENCRYPTED_VALUE` for the client to send
        back."""
        message_id = self._reasoning_message_id
        encrypted = thinking_encrypted_value(part)
        if not self._reasoning_opened and encrypted is None:
            return
        if not self._reasoning_opened:
            yield ReasoningStartEvent(message_id=message_id)
        if self._reasoning_text_open:
            yield ReasoningMessageEndEvent(message_id=message_id)
        if encrypted is not None:
            yield ReasoningEncryptedValueEvent(subtype='message', entity_id=message_id, encrypted_value=encrypted)
        yield ReasoningEndEvent(message_id=message_id)
        self._reasoning_opened = self._reasoning_text_open = False

    # ----- tool calls -----

    async def handle_tool_call_start(self, part: ToolCallPart) -> AsyncIterator[BaseEvent]:
        """Start a tool call (arguments already known are sent with it)."""
        async for e in self._tool_call_start(part.tool_call_id, part):
            yield e

    async def handle_builtin_tool_call_start(self, part: NativeToolCallPart) -> AsyncIterator[BaseEvent]:
        """Start a provider-run tool's call, under an id that marks it as native."""
        ag_ui_id = native_tool_call_id(part.tool_call_id, part.provider_name)
        self._native_ids[part.tool_call_id] = ag_ui_id
        async for e in self._tool_call_start(ag_ui_id, part):
            yield e

    async def _tool_call_start(
        self, tool_call_id: str, part: ToolCallPart | NativeToolCallPart
    ) -> AsyncIterator[BaseEvent]:
        yield ToolCallStartEvent(
            tool_call_id=tool_call_id, tool_call_name=part.tool_name, parent_message_id=self.message_id
        )
        if part.args:
            # A string may be the first fragment of JSON still streaming: send it as it is.
            args = part.args if isinstance(part.args, str) else part.args_as_json_str()
            yield ToolCallArgsEvent(tool_call_id=tool_call_id, delta=args)

    async def handle_tool_call_delta(self, delta: ToolCallPartDelta) -> AsyncIterator[BaseEvent]:
        """More of a tool call's arguments."""
        tool_call_id = self._call_ids_by_index.get(self._delta_index) if self._delta_index is not None else None
        if tool_call_id is None or not delta.args_delta:
            # A delta of a call that has not started yet: its arguments come with the call's start.
            return
        args = delta.args_delta if isinstance(delta.args_delta, str) else json.dumps(delta.args_delta)
        yield ToolCallArgsEvent(tool_call_id=tool_call_id, delta=args)

    async def handle_tool_call_end(self, part: ToolCallPart) -> AsyncIterator[BaseEvent]:
        """End a tool call."""
        yield ToolCallEndEvent(tool_call_id=part.tool_call_id)

    async def handle_builtin_tool_call_end(self, part: NativeToolCallPart) -> AsyncIterator[BaseEvent]:
        """End a provider-run tool's call."""
        yield ToolCallEndEvent(tool_call_id=self._native_ids.get(part.tool_call_id, part.tool_call_id))

    async def handle_builtin_tool_return(self, part: NativeToolReturnPart) -> AsyncIterator[BaseEvent]:
        """A provider-run tool's result."""
        tool_call_id = self._native_ids.get(part.tool_call_id) or native_tool_call_id(
            part.tool_call_id, part.provider_name
        )
        # A one-off id: the response's message id stays the parent of the calls that follow in this response.
        content = tool_result_content(part.content)
        yield ToolCallResultEvent(message_id=uuid7(), tool_call_id=tool_call_id, content=content, role='tool')

    async def handle_function_tool_result(self, event: FunctionToolResultEvent) -> AsyncIterator[BaseEvent]:
        """A tool's result, then any AG-UI events the tool returned as metadata, then the state if it changed."""
        async for e in self._tool_result(event.part):
            yield e
        if self.state_handler is not None:
            state = self._state_json()
            if state != self._sent_state:
                self._sent_state = state
                yield StateSnapshotEvent(snapshot=state)

    async def handle_output_tool_result(self, event: OutputToolResultEvent) -> AsyncIterator[BaseEvent]:
        """An output tool's result: the client saw the call, so it gets its result too."""
        async for e in self._tool_result(event.part):
            yield e

    async def _tool_result(self, part: ToolReturnPart | RetryPromptPart) -> AsyncIterator[BaseEvent]:
        content = part.model_response() if isinstance(part, RetryPromptPart) else tool_result_content(part.content)
        yield ToolCallResultEvent(
            message_id=self.new_message_id(), tool_call_id=part.tool_call_id, content=content, role='tool'
        )
        if isinstance(part, ToolReturnPart):
            for e in _returned_events(part.metadata):
                yield e

    # ----- files and compactions -----

    async def handle_file(self, part: FilePart) -> AsyncIterator[BaseEvent]:
        """A file the model produced, as an activity (the same one `dump_messages` writes)."""
        content = file_activity_content(part)
        yield ActivitySnapshotEvent(message_id=uuid7(), activity_type=FILE_ACTIVITY_TYPE, content=content)

    async def handle_compaction(self, part: CompactionPart) -> AsyncIterator[BaseEvent]:
        """A provider's compaction, as an activity (the same one `dump_messages` writes)."""
        content = compaction_activity_content(part)
        yield ActivitySnapshotEvent(message_id=uuid7(), activity_type=COMPACTION_ACTIVITY_TYPE, content=content)

    # ----- helpers -----

    def _state_json(self) -> Any:
        assert self.state_handler is not None
        state = self.state_handler.state
        if isinstance(state, BaseModel):
            return state.model_dump(mode='json')
        return to_jsonable_python(state, fallback=str)


def _returned_events(metadata: Any) -> Iterable[BaseEvent]:
    """The AG-UI events a tool returned in `ToolReturn(metadata=...)`: one event, or a list holding some."""
    if isinstance(metadata, BaseEvent):
        return [metadata]
    if isinstance(metadata, list | tuple):
        return [item for item in metadata if isinstance(item, BaseEvent)]  # pyright: ignore[reportUnknownVariableType]
    return []
