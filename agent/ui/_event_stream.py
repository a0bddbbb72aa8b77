"""`UIEventStream`: the base class that turns an agent run's events into a UI protocol's events.

A protocol subclass overrides the leaf `handle_*` methods and the turn hooks, each an async generator of the
protocol's events; the base class drives them from `transform_stream` in this order:

    before_stream
    for each agent event: bookkeeping (turn changes fire before_*/after_* request/response hooks, the
        completion callback runs on the run's result) and then handle_event, which dispatches to the leaves
    on an Exception: the pending tool calls are closed with failed results, then on_error (not re-raised)
    finally: the open turn is closed, then after_stream

A *response* turn is the model streaming parts; a *request* turn is the run handling tool calls and results.
Closing pending calls on failure matters to frontends: a tool call shown as "running" would otherwise spin
forever once the stream ends.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, NamedTuple, TypeAlias, cast

from typing_extensions import TypeVar

from agent._env import uuid7
from agent._events import (
    AgentStreamEvent,
    FinalResultEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    OutputToolCallEvent,
    OutputToolResultEvent,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPartDelta,
    ThinkingPartDelta,
    ToolCallEvent,
    ToolCallPartDelta,
    ToolResultEvent,
)
from agent._parts import CompactionPart, FilePart, TextPart, ThinkingPart
from agent._threads import is_async_callable, run_sync_in_thread
from agent._tool_parts import NativeToolCallPart, NativeToolReturnPart, ToolCallPart, ToolReturnPart
from agent.run import AgentRunResult, AgentRunResultEvent

from ._event_hooks import EventT, UIEventHooks

if TYPE_CHECKING:
    from starlette.responses import StreamingResponse

__all__ = (
    'SSE_CONTENT_TYPE',
    'AgentDepsT',
    'EventT',
    'NativeEvent',
    'OnCompleteFunc',
    'OutputDataT',
    'RunInputT',
    'UIEventStream',
)

SSE_CONTENT_TYPE = 'text/event-stream'
"""The `Content-Type` of a Server-Sent Events stream, the default encoding of UI event streams."""

NativeEvent: TypeAlias = AgentStreamEvent | AgentRunResultEvent[Any]
"""An event of the agent's own stream: a stream event, or the final `AgentRunResultEvent`."""

RunInputT = TypeVar('RunInputT')
"""The protocol's run input (the decoded request body)."""
AgentDepsT = TypeVar('AgentDepsT', default=None)
"""The agent's deps type."""
OutputDataT = TypeVar('OutputDataT', default=str)
"""The agent's output type."""

OnCompleteFunc: TypeAlias = (
    Callable[[AgentRunResult[Any]], None]
    | Callable[[AgentRunResult[Any]], Awaitable[None]]
    | Callable[[AgentRunResult[Any]], AsyncIterator[EventT]]
)
"""Called with the run's result when a run completes: a plain function (run in a worker thread), a coroutine
function (awaited), or an async generator function whose protocol events are added to the stream."""

_INTERRUPTED = 'Tool execution was interrupted by an error.'

_Turn: TypeAlias = Literal['request', 'response'] | None


class _PendingToolCall(NamedTuple):
    """A tool call the stream announced but whose result has not been seen yet."""

    kind: Literal['function', 'output']
    tool_name: str


def _missing_starlette(method: str) -> ImportError:
    return ImportError(
        f'Please install the `starlette` package to use the `{method}()` method, '
        "you can use the `ui` optional group — `pip install 'durable-agents[ui]'`"
    )


@dataclass
class UIEventStream(ABC, UIEventHooks[EventT], Generic[RunInputT, EventT, AgentDepsT, OutputDataT]):
    """Base class of the transformers from agent events to a UI protocol's events (see the module docstring).

    The hooks (`before_stream`, `after_stream`, `on_error`, `before_request`, `after_request`, `before_response`,
    `after_response`) and the leaf `handle_*` handlers come from `UIEventHooks`.
    """

    run_input: RunInputT
    """The protocol's run input the stream answers."""
    accept: str | None = None
    """The request's `Accept` header, for protocols that can encode their events more than one way."""
    message_id: str = field(default_factory=lambda: uuid7())
    """The id of the message the next events belong to."""
    _turn: _Turn = None
    _result: AgentRunResult[OutputDataT] | None = None
    # The output tool call named by a `FinalResultEvent`, kept until its `OutputToolCallEvent` arrives so a
    # failure in between can still close it.
    _final_result_event: FinalResultEvent | None = None
    _pending_tool_calls: dict[str, _PendingToolCall] = field(default_factory=dict[str, _PendingToolCall])
    """The tool calls announced and not yet answered, by tool call id."""

    def new_message_id(self) -> str:
        """Start a new message: generate a fresh id, store it in `message_id` and return it."""
        self.message_id = uuid7()
        return self.message_id

    @property
    def response_headers(self) -> Mapping[str, str] | None:
        """Extra HTTP headers for the streaming response; `None` for none."""
        return None

    @property
    def content_type(self) -> str:
        """The response's content type, `SSE_CONTENT_TYPE` by default.

        A protocol with several encodings chooses one from `accept` in `encode_event` and returns its type here.
        """
        return SSE_CONTENT_TYPE

    @abstractmethod
    def encode_event(self, event: EventT) -> str:
        """Encode one protocol event for the response body."""
        raise NotImplementedError

    async def encode_stream(self, stream: AsyncIterator[EventT]) -> AsyncIterator[str]:
        """Encode each protocol event of `stream` with `encode_event`."""
        async for event in stream:
            yield self.encode_event(event)

    def streaming_response(self, stream: AsyncIterator[EventT]) -> StreamingResponse:
        """A Starlette streaming response of the encoded `stream`, with `response_headers` and `content_type`.

        Raises:
            ImportError: Starlette is not installed.
        """
        try:
            from starlette.responses import StreamingResponse
        except ImportError as e:  # pragma: no cover
            raise _missing_starlette('streaming_response') from e
        return StreamingResponse(
            self.encode_stream(stream), headers=self.response_headers, media_type=self.content_type
        )

    async def transform_stream(
        self, stream: AsyncIterator[NativeEvent], on_complete: OnCompleteFunc[EventT] | None = None
    ) -> AsyncIterator[EventT]:
        """Turn the agent's events into protocol events, driving the hooks and handlers of this class.

        An `Exception` raised by `stream` ends the stream cleanly: pending tool calls get failed results and
        `on_error` reports it; it is not re-raised. Cancellation and other `BaseException`s propagate (after
        `after_stream`).

        Args:
            stream: The agent's events, e.g. from `UIAdapter.run_stream_native`.
            on_complete: Called with the run's result when the run completes, before `handle_run_result`.
        """
        async for e in self.before_stream():
            yield e
        try:
            async for event in stream:
                async for e in self._track(event, on_complete):
                    yield e
                async for e in self.handle_event(event):
                    yield e
        except Exception as exc:
            async for e in self._close_pending_tool_calls():
                yield e
            async for e in self.on_error(exc):
                yield e
        finally:
            async for e in self._turn_to(None):
                yield e
            async for e in self.after_stream():
                yield e

    async def _track(self, event: NativeEvent, on_complete: OnCompleteFunc[EventT] | None) -> AsyncIterator[EventT]:
        """The bookkeeping done for each event before it is handled: turns, pending calls, the result."""
        if isinstance(event, PartStartEvent):
            async for e in self._turn_to('response'):
                yield e
        elif isinstance(event, ToolCallEvent):
            kind: Literal['function', 'output'] = 'output' if isinstance(event, OutputToolCallEvent) else 'function'
            self._pending_tool_calls[event.part.tool_call_id] = _PendingToolCall(kind, event.part.tool_name)
            if kind == 'output':
                self._final_result_event = None  # the call itself is pending now
            async for e in self._turn_to('request'):
                yield e
        elif isinstance(event, AgentRunResultEvent):
            result = cast(AgentRunResult[OutputDataT], event.result)
            self._result = result
            async for e in self._turn_to(None):
                yield e
            if on_complete is not None:
                async for e in self._call_on_complete(on_complete, result):
                    yield e
        elif isinstance(event, FinalResultEvent):
            self._final_result_event = event
        elif isinstance(event, ToolResultEvent):
            self._pending_tool_calls.pop(event.part.tool_call_id, None)

    async def _call_on_complete(
        self, on_complete: OnCompleteFunc[EventT], result: AgentRunResult[OutputDataT]
    ) -> AsyncIterator[EventT]:
        if inspect.isasyncgenfunction(on_complete):
            async for e in cast(Callable[[AgentRunResult[Any]], AsyncIterator[EventT]], on_complete)(result):
                yield e
        elif is_async_callable(on_complete):
            await cast(Callable[[AgentRunResult[Any]], Awaitable[None]], on_complete)(result)
        else:
            # A sync callback may block (a database write, say): keep it off the event loop.
            await run_sync_in_thread(on_complete, result)

    async def _close_pending_tool_calls(self) -> AsyncIterator[EventT]:
        """Answer every pending tool call with a failed result, so the frontend stops showing it as running."""
        final = self._final_result_event
        if final is not None and final.tool_call_id and final.tool_name:
            self._final_result_event = None
            self._pending_tool_calls[final.tool_call_id] = _PendingToolCall('output', final.tool_name)
        for tool_call_id, (kind, tool_name) in self._pending_tool_calls.items():
            async for e in self._turn_to('request'):
                yield e
            part = ToolReturnPart(
                tool_name=tool_name, content=_INTERRUPTED, tool_call_id=tool_call_id, outcome='failed'
            )
            if kind == 'output':
                async for e in self.handle_output_tool_result(OutputToolResultEvent(part)):
                    yield e
            else:
                async for e in self.handle_function_tool_result(FunctionToolResultEvent(part)):
                    yield e
        self._pending_tool_calls.clear()

    async def _turn_to(self, to_turn: _Turn) -> AsyncIterator[EventT]:
        """Close the current turn and open `to_turn` (nothing happens if it is the current turn)."""
        if to_turn == self._turn:
            return
        if self._turn == 'request':
            async for e in self.after_request():
                yield e
        elif self._turn == 'response':
            async for e in self.after_response():
                yield e
        self._turn = to_turn
        if to_turn == 'request':
            async for e in self.before_request():
                yield e
        elif to_turn == 'response':
            async for e in self.before_response():
                yield e

    # ----- dispatchers -----

    async def handle_event(self, event: NativeEvent) -> AsyncIterator[EventT]:
        """Dispatch one agent event to its handler; events without a handler are ignored.

        Override the leaf handlers rather than this; an override of this method should delegate to it.
        """
        match event:
            case PartStartEvent():
                async for e in self.handle_part_start(event):
                    yield e
            case PartDeltaEvent():
                async for e in self.handle_part_delta(event):
                    yield e
            case PartEndEvent():
                async for e in self.handle_part_end(event):
                    yield e
            case FinalResultEvent():
                async for e in self.handle_final_result(event):
                    yield e
            case FunctionToolCallEvent():
                async for e in self.handle_function_tool_call(event):
                    yield e
            case FunctionToolResultEvent():
                async for e in self.handle_function_tool_result(event):
                    yield e
            case OutputToolCallEvent():
                async for e in self.handle_output_tool_call(event):
                    yield e
            case OutputToolResultEvent():
                async for e in self.handle_output_tool_result(event):
                    yield e
            case AgentRunResultEvent():
                async for e in self.handle_run_result(event):
                    yield e
            case _:  # pragma: no cover - every event kind is listed above
                pass

    async def handle_part_start(self, event: PartStartEvent) -> AsyncIterator[EventT]:
        """Dispatch a part's start to the handler for its part type (an override should delegate to it)."""
        part = event.part
        match part:
            case TextPart():
                async for e in self.handle_text_start(part, follows_text=event.previous_part_kind == 'text'):
                    yield e
            case ThinkingPart():
                follows_thinking = event.previous_part_kind == 'thinking'
                async for e in self.handle_thinking_start(part, follows_thinking=follows_thinking):
                    yield e
            case ToolCallPart():
                async for e in self.handle_tool_call_start(part):
                    yield e
            case NativeToolCallPart():
                async for e in self.handle_builtin_tool_call_start(part):
                    yield e
            case NativeToolReturnPart():
                async for e in self.handle_builtin_tool_return(part):
                    yield e
            case FilePart():
                async for e in self.handle_file(part):
                    yield e
            case CompactionPart():
                async for e in self.handle_compaction(part):
                    yield e

    async def handle_part_delta(self, event: PartDeltaEvent) -> AsyncIterator[EventT]:
        """Dispatch a part's delta to the handler for its delta type (an override should delegate to it)."""
        delta = event.delta
        match delta:
            case TextPartDelta():
                async for e in self.handle_text_delta(delta):
                    yield e
            case ThinkingPartDelta():
                async for e in self.handle_thinking_delta(delta):
                    yield e
            case ToolCallPartDelta():
                async for e in self.handle_tool_call_delta(delta):
                    yield e

    async def handle_part_end(self, event: PartEndEvent) -> AsyncIterator[EventT]:
        """Dispatch a part's end to the handler for its part type (an override should delegate to it).

        Native tool returns, files and compactions arrive whole with their start, so their end is ignored.
        """
        part = event.part
        match part:
            case TextPart():
                async for e in self.handle_text_end(part, followed_by_text=event.next_part_kind == 'text'):
                    yield e
            case ThinkingPart():
                followed_by_thinking = event.next_part_kind == 'thinking'
                async for e in self.handle_thinking_end(part, followed_by_thinking=followed_by_thinking):
                    yield e
            case ToolCallPart():
                async for e in self.handle_tool_call_end(part):
                    yield e
            case NativeToolCallPart():
                async for e in self.handle_builtin_tool_call_end(part):
                    yield e
            case _:
                pass
