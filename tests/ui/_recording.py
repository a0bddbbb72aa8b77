"""A minimal protocol on the UI base classes for tests: every hook and handler call becomes a string event.

`RecordingStream` yields one string per hook or handler call (with the flags that matter), so a test reads
the exact order the base class drives them in. `RecordingAdapter` decodes a small JSON run input whose
`messages` are agent messages in their own JSON form, with optional state, frontend tools and thread id.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from pydantic import BaseModel

from agent.messages import (
    CompactionPart,
    FilePart,
    FinalResultEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    ModelMessage,
    ModelMessagesTypeAdapter,
    NativeToolCallPart,
    NativeToolReturnPart,
    OutputToolCallEvent,
    OutputToolResultEvent,
    RetryPromptPart,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
    ToolReturnPart,
)
from agent.run import AgentRunResultEvent
from agent.tools import DeferredToolResults, ToolDefinition
from agent.toolsets import AbstractToolset, ExternalToolset
from agent.ui import UIAdapter, UIEventStream


class RecordingInput(BaseModel):
    """The run input: agent messages as JSON plus the optional protocol extras."""

    messages: list[dict[str, Any]] = []
    state: dict[str, Any] | None = None
    frontend_tools: list[str] = []
    thread_id: str | None = None
    approvals: dict[str, bool] = {}


@dataclass
class RecordingStream(UIEventStream[RecordingInput, str, Any, Any]):
    """Names every hook and handler call, in order."""

    def encode_event(self, event: str) -> str:
        return f'data: {event}\n\n'

    async def before_stream(self) -> AsyncIterator[str]:
        yield 'before_stream'

    async def after_stream(self) -> AsyncIterator[str]:
        yield 'after_stream'

    async def on_error(self, error: Exception) -> AsyncIterator[str]:
        yield f'on_error({type(error).__name__}: {error})'

    async def before_request(self) -> AsyncIterator[str]:
        yield 'before_request'

    async def after_request(self) -> AsyncIterator[str]:
        yield 'after_request'

    async def before_response(self) -> AsyncIterator[str]:
        yield 'before_response'

    async def after_response(self) -> AsyncIterator[str]:
        yield 'after_response'

    async def handle_text_start(self, part: TextPart, follows_text: bool = False) -> AsyncIterator[str]:
        yield f'text_start({part.content!r}, follows_text={follows_text})'

    async def handle_text_delta(self, delta: TextPartDelta) -> AsyncIterator[str]:
        yield f'text_delta({delta.content_delta!r})'

    async def handle_text_end(self, part: TextPart, followed_by_text: bool = False) -> AsyncIterator[str]:
        yield f'text_end({part.content!r}, followed_by_text={followed_by_text})'

    async def handle_thinking_start(self, part: ThinkingPart, follows_thinking: bool = False) -> AsyncIterator[str]:
        yield f'thinking_start({part.content!r}, follows_thinking={follows_thinking})'

    async def handle_thinking_delta(self, delta: ThinkingPartDelta) -> AsyncIterator[str]:
        yield f'thinking_delta({delta.content_delta!r})'

    async def handle_thinking_end(self, part: ThinkingPart, followed_by_thinking: bool = False) -> AsyncIterator[str]:
        yield f'thinking_end({part.content!r}, followed_by_thinking={followed_by_thinking})'

    async def handle_tool_call_start(self, part: ToolCallPart) -> AsyncIterator[str]:
        yield f'tool_call_start({part.tool_name})'

    async def handle_tool_call_delta(self, delta: ToolCallPartDelta) -> AsyncIterator[str]:
        yield 'tool_call_delta'

    async def handle_tool_call_end(self, part: ToolCallPart) -> AsyncIterator[str]:
        yield f'tool_call_end({part.tool_name}, {part.args_as_json_str()})'

    async def handle_builtin_tool_call_start(self, part: NativeToolCallPart) -> AsyncIterator[str]:
        yield f'builtin_tool_call_start({part.tool_name})'

    async def handle_builtin_tool_call_end(self, part: NativeToolCallPart) -> AsyncIterator[str]:
        yield f'builtin_tool_call_end({part.tool_name})'

    async def handle_builtin_tool_return(self, part: NativeToolReturnPart) -> AsyncIterator[str]:
        yield f'builtin_tool_return({part.tool_name})'

    async def handle_file(self, part: FilePart) -> AsyncIterator[str]:
        yield 'file'

    async def handle_compaction(self, part: CompactionPart) -> AsyncIterator[str]:
        yield 'compaction'

    async def handle_final_result(self, event: FinalResultEvent) -> AsyncIterator[str]:
        yield f'final_result({event.tool_name})'

    async def handle_function_tool_call(self, event: FunctionToolCallEvent) -> AsyncIterator[str]:
        yield f'function_tool_call({event.part.tool_name})'

    async def handle_function_tool_result(self, event: FunctionToolResultEvent) -> AsyncIterator[str]:
        yield f'function_tool_result({_describe(event.part)})'

    async def handle_output_tool_call(self, event: OutputToolCallEvent) -> AsyncIterator[str]:
        yield f'output_tool_call({event.part.tool_name})'

    async def handle_output_tool_result(self, event: OutputToolResultEvent) -> AsyncIterator[str]:
        yield f'output_tool_result({_describe(event.part)})'

    async def handle_run_result(self, event: AgentRunResultEvent[Any]) -> AsyncIterator[str]:
        yield f'run_result({event.result.output!r})'


def _describe(part: ToolReturnPart | RetryPromptPart) -> str:
    if isinstance(part, RetryPromptPart):
        return f'{part.tool_name}, {part.model_response()!r}, retry'
    return f'{part.tool_name}, {part.model_response_str()!r}, {part.outcome}'


@dataclass
class RecordingAdapter(UIAdapter[RecordingInput, ModelMessage, str, Any, Any]):
    """Decodes `RecordingInput` and streams through `RecordingStream`."""

    @classmethod
    def build_run_input(cls, body: bytes) -> RecordingInput:
        return RecordingInput.model_validate_json(body)

    @classmethod
    def load_messages(cls, messages: Sequence[ModelMessage]) -> list[ModelMessage]:
        return list(messages)

    def build_event_stream(self) -> RecordingStream:
        return RecordingStream(self.run_input, accept=self.accept)

    @cached_property
    def messages(self) -> list[ModelMessage]:
        return self.load_messages(ModelMessagesTypeAdapter.validate_python(self.run_input.messages))

    @cached_property
    def toolset(self) -> AbstractToolset[Any] | None:
        if not self.run_input.frontend_tools:
            return None
        return ExternalToolset([ToolDefinition(name=name) for name in self.run_input.frontend_tools])

    @cached_property
    def state(self) -> dict[str, Any] | None:
        return self.run_input.state

    @cached_property
    def deferred_tool_results(self) -> DeferredToolResults | None:
        if not self.run_input.approvals:
            return None
        return DeferredToolResults(approvals=dict(self.run_input.approvals))

    @cached_property
    def conversation_id(self) -> str | None:
        return self.run_input.thread_id
