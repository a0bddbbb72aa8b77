"""`StreamedRunResult`: the result of `Agent.run_stream`, following the run's events as the output streams.

`agent.result` is its public home; `AgentStream` and `StreamedRunResultSync` build on it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from copy import deepcopy
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic

from typing_extensions import TypeVar

from ._callable_value import callable_value
from ._parts import ModelMessage, ModelResponse, TextPart, ToolCallPart
from ._run_context import RunContext
from ._stream_grouping import group_by_time
from ._streamed_parts import has_content as _has_content
from ._streamed_parts import is_final_part as _is_final_part
from ._streamed_parts import is_response_event as _is_response_event
from ._streamed_parts import text_output as _text_output
from .exceptions import ModelRetry, UnexpectedModelBehavior, UserError
from .messages import ModelMessagesTypeAdapter
from .usage import RunUsage

if TYPE_CHECKING:
    from ._streaming import LiveResponse
    from .models import StreamedResponse
    from .output import OutputSchema
    from .run import AgentRunResult

__all__ = ('OutputDataT', 'StreamedRunResult')

OutputDataT = TypeVar('OutputDataT', default=str, covariant=True)


class StreamedRunResult(Generic[OutputDataT]):
    """A run whose final output streams as the model generates it (from `Agent.run_stream`).

    The run itself goes on as usual (tools run, outputs are validated); this object follows its event
    stream and surfaces the text or output of the response that carries the final result. `Agent.run_stream`
    hands it over once that response has started (or the run has ended), so `all_messages()`, `run_id` and
    `metadata` already describe the run then; `response` and `usage` grow as the response streams.
    """

    def __init__(
        self,
        events: AsyncIterator[Any],
        output_schema: OutputSchema,
        *,
        validate_partial: Callable[[Any, bool], Awaitable[Any]] | None = None,
        run_context: Callable[[], RunContext[Any] | None] = lambda: None,
        watcher: LiveResponse | None = None,
    ) -> None:
        self._events = events
        self._validate_partial = validate_partial
        self._schema = output_schema
        self._run_context = run_context
        self._watcher = watcher
        self._result: AgentRunResult[OutputDataT] | None = None
        self._final_tool: str | None = None
        self._final_seen = False
        self._parts: dict[int, Any] = {}
        self._cancelled = False
        self._interrupted: ModelResponse | None = None
        self._events_done = False
        self._ahead: list[Any] = []

    @classmethod
    def _finished(cls, result: AgentRunResult[Any], output_schema: OutputSchema) -> StreamedRunResult[Any]:
        """A result whose run has already ended (elsewhere, see `agent._finished_run`): its streams yield the final
        value at once."""
        streamed = cls(_no_events(), output_schema)
        streamed._result = result
        return streamed

    async def _start(self) -> None:
        """Follow the run until its final response starts (or the run ends).

        What streamed up to there is the state the streams start from (see `_current`), not updates they repeat.
        """
        from ._events import FinalResultEvent
        from .run import AgentRunResultEvent

        async for event in self._events:
            if isinstance(event, AgentRunResultEvent):
                # The run ended without a final response to stream: it is complete once a stream reads this.
                self._ahead.append(event)
                return
            self._apply(event)
            if isinstance(event, FinalResultEvent):
                return

    async def _next_events(self) -> AsyncIterator[Any]:
        while self._ahead:
            yield self._ahead.pop(0)
        if self._cancelled or self._result is not None:
            # Nothing comes after the run's result (and the run's task may be gone by now).
            return
        async for event in self._events:
            yield event
        self._events_done = True

    @property
    def is_complete(self) -> bool:
        """Whether the run has finished (or its stream was cancelled)."""
        return self._result is not None or self._interrupted is not None

    async def _updates(
        self, *, until_final_part_ends: bool = False, every_event: bool = False
    ) -> AsyncIterator[tuple[str | None, Any]]:
        """Yield `(text_delta, current_final_part)` for every change to the final response.

        With `every_event`, every other event of the response yields `(None, None)` too (it may change the response
        without changing its final part).

        With `until_final_part_ends`, stop once the final part is complete, before the run goes on to validate it:
        what the caller does with the last partial output then comes before the run's own validation.
        """
        from ._events import PartEndEvent
        from .run import AgentRunResultEvent

        async for event in self._next_events():
            if isinstance(event, AgentRunResultEvent):
                self._result = event.result  # pyright: ignore[reportUnknownMemberType]
                return
            if (
                until_final_part_ends
                and isinstance(event, PartEndEvent)
                and self._final_seen
                and _is_final_part(event.part, self._final_tool)
            ):
                self._apply(event)
                return
            updates = self._apply(event)
            for update in updates:
                yield update
            if every_event and not updates and _is_response_event(event):
                yield None, None

    def _apply(self, event: Any) -> list[tuple[str | None, Any]]:
        """Take `event` into the state of the final response; return the `(text_delta, final_part)` changes."""
        from ._events import FinalResultEvent, PartDeltaEvent, PartEndEvent, PartStartEvent, TextPartDelta
        from .run import AgentRunResultEvent

        if isinstance(event, AgentRunResultEvent):
            self._result = event.result  # pyright: ignore[reportUnknownMemberType]
            return []
        if isinstance(event, PartStartEvent):
            updates: list[tuple[str | None, Any]] = []
            if event.index == 0:
                # A new model response: whatever looked final in the previous one was not.
                self._parts = {}
                if self._final_seen:
                    self._final_seen = False
                    updates.append((_RESET, None))
            self._parts[event.index] = event.part
            if self._final_seen and _is_final_part(event.part, self._final_tool):
                updates.append((event.part.content if isinstance(event.part, TextPart) else None, event.part))
            return updates
        if isinstance(event, FinalResultEvent):
            self._final_seen = True
            self._final_tool = event.tool_name
            current = next((p for p in self._parts.values() if _is_final_part(p, event.tool_name)), None)
            if current is not None:
                return [((current.content if isinstance(current, TextPart) else None), current)]
        elif isinstance(event, PartDeltaEvent) and event.index in self._parts:
            part = event.delta.apply(self._parts[event.index])
            self._parts[event.index] = part
            if self._final_seen and _is_final_part(part, self._final_tool):
                delta = event.delta.content_delta if isinstance(event.delta, TextPartDelta) else None
                return [(delta, part)]
        elif isinstance(event, PartEndEvent) and event.index in self._parts:
            self._parts[event.index] = event.part
            if self._final_seen and _is_final_part(event.part, self._final_tool):
                return [(None, event.part)]
        return []

    def _current(self) -> tuple[str | None, Any] | None:
        """The final part as streamed so far, as an update (`None` if it has no content yet)."""
        if not self._final_seen or self._result is not None:
            return None
        part = next((p for p in self._parts.values() if _is_final_part(p, self._final_tool)), None)
        if part is None or not _has_content(part):
            return None
        return (part.content if isinstance(part, TextPart) else None), part

    async def _updates_from_now(self, *, until_final_part_ends: bool = False) -> AsyncIterator[tuple[str | None, Any]]:
        """`_updates`, starting with the final part as it is now (for a stream that starts mid-response)."""
        if (current := self._current()) is not None:
            yield current
        async for update in self._updates(until_final_part_ends=until_final_part_ends):
            yield update

    async def stream_text(self, *, delta: bool = False, debounce_by: float | None = 0.1) -> AsyncIterator[str]:
        """Stream the final text output: the growing text, or only the new pieces with `delta=True`.

        Args:
            delta: Yield only the new text of each update instead of the whole text so far. The output validators
                see the whole text so far (as partial output), so they only run without `delta`.
            debounce_by: Gather the pieces that arrive within this many seconds of the first of them into one
                update; `None` yields every piece as it arrives. Nothing is held back at the end.

        Raises:
            UserError: if the output is not text.
        """
        if not self._schema.allows_text:
            raise UserError('stream_text() can only be used with text responses')
        if self._result is not None:
            # Streamed before: the run's (validated) text, once.
            if isinstance(self._result.output, str):
                yield self._result.output
            return
        text = ''
        async for group in group_by_time(self._text_pieces(), debounce_by):
            pieces = ''.join(group)
            if _RESET_TEXT in pieces:
                text = ''
                pieces = pieces.rpartition(_RESET_TEXT)[2]
                if not pieces:
                    continue
            text += pieces
            if delta:
                yield pieces
            elif self._validate_partial is not None:
                try:
                    yield await self._validate_partial(text, True)
                except ModelRetry:
                    continue
            else:
                yield text

    async def _text_pieces(self) -> AsyncIterator[str]:
        async for piece, _part in self._updates_from_now():
            if piece is _RESET:
                yield _RESET_TEXT
            elif piece:
                yield piece

    async def stream_output(self, *, debounce_by: float | None = 0.1) -> AsyncIterator[Any]:
        """Stream the output as it grows: text so far, or the partially validated structured output.

        The output validators see each partial output with `ctx.partial_output=True`; one that raises `ModelRetry`
        skips it. The final output (validated by the run) is always yielded last.

        Args:
            debounce_by: Gather the updates that arrive within this many seconds of the first of them, validating
                only the latest; `None` validates and yields every update.
        """
        last: Any = _RESET
        updates = self._updates_from_now(until_final_part_ends=True)
        while not (self.is_complete or self._cancelled or self._events_done):
            async for group in group_by_time(updates, debounce_by):
                piece, part = group[-1]
                if piece is _RESET or part is None or part == last:
                    continue
                last = part
                try:
                    partial = await self._output_of(part, partial=True)
                except (ModelRetry, ValueError):  # ValueError: also pydantic's ValidationError
                    continue
                yield partial
            # The final part is complete: what follows (the run validating it, or a later response) is read next.
            updates = self._updates(until_final_part_ends=True)
        if self._result is not None:
            # A copy: the caller may change what it gets without changing the run's output.
            yield deepcopy(self._result.output)

    def _is_final(self, part: Any) -> bool:
        return _is_final_part(part, self._final_tool)

    async def _output_of(self, part: Any, *, partial: bool) -> Any:
        """The output `part` carries, as the run would make it: validated (leniently while it streams), passed to
        the output function if there is one, then to the output validators (`ctx.partial_output` is `partial`).

        Raises:
            ModelRetry: an output function or validator asked for a retry.
            ValueError: the part does not validate (yet); pydantic's `ValidationError` is one.
            UnexpectedModelBehavior: the part carries no output.
        """
        ctx = self._run_context()
        ctx = replace(ctx, partial_output=partial) if ctx is not None else None
        schema = self._schema
        if isinstance(part, TextPart):
            output = await _text_output(schema, part.content, ctx, partial=partial)
        elif isinstance(part, ToolCallPart) and part.tool_name in schema.tools:
            processor = schema.tools[part.tool_name].processor
            context = ctx.validation_context if ctx is not None else None
            validated = processor.validate(part.args, allow_partial=partial, context=context)
            output = await processor.call(validated, ctx) if ctx is not None else processor.unwrap(validated)
        else:
            raise UnexpectedModelBehavior('Invalid response, unable to find output')
        if self._validate_partial is not None:
            output = await self._validate_partial(output, partial)
        return output

    async def validate_response_output(self, message: ModelResponse, *, allow_partial: bool = False) -> Any:
        """The output `message` carries, validated as the run validates it (leniently with `allow_partial=True`).

        Once the run has finished this is the run's output.

        Raises:
            UnexpectedModelBehavior: the response carries no final output.
            ModelRetry: an output function or validator asked for a retry.
            pydantic.ValidationError: the output does not validate.
        """
        if self._result is not None:
            return self._result.output
        part = next((p for p in message.parts if self._final_seen and self._is_final(p)), None)
        if part is None:
            raise UnexpectedModelBehavior('Invalid response, unable to find output')
        return await self._output_of(part, partial=allow_partial)

    async def stream_response(self, *, debounce_by: float | None = 0.1) -> AsyncIterator[ModelResponse]:
        """Stream the final model response as it grows (`state='incomplete'`), then once complete.

        Args:
            debounce_by: Gather the updates that arrive within this many seconds of the first of them into one
                snapshot; `None` yields a snapshot for every update.
        """
        current = self.response
        if current.state == 'incomplete' and any(_has_content(part) for part in current.parts):
            yield current
        async for _ in group_by_time(self._updates(every_event=True), debounce_by):
            if self._result is None:
                # Complete only once the run has it (the model's stream may have ended before the run took it).
                response = self.response
                yield replace(response, state='incomplete') if response.state == 'complete' else response
        # The last one is the response as the run recorded it (with its run and conversation ids).
        yield self._result.response if self._result is not None else self.response

    async def get_output(self) -> OutputDataT:
        """Wait for the run to finish and return its (validated) output."""
        async for _ in self._updates():
            pass
        assert self._result is not None, 'the run ended without a result'
        return deepcopy(self._result.output)

    async def cancel(self) -> None:
        """Stop the run while its final response streams; that response is kept as `state='interrupted'`.

        Cancelling after the run has finished only sets `cancelled`.
        """
        self._cancelled = True
        if self.is_complete:
            return
        stream = self._live_stream()
        if stream is not None:
            await stream.cancel()
        ctx = self._run_context()
        # Kept in the run's messages, so it carries the run's ids like every message the run records.
        self._interrupted = replace(
            self.response,
            state='interrupted',
            run_id=ctx.run_id if ctx is not None else None,
            conversation_id=ctx.conversation_id if ctx is not None else None,
        )
        aclose = getattr(self._events, 'aclose', None)
        if aclose is not None:
            # Closing the event stream ends the run (the caller's block cancels its task).
            await aclose()

    @property
    def cancelled(self) -> bool:
        """Whether `cancel()` was called."""
        return self._cancelled

    def _live_stream(self) -> StreamedResponse | None:
        watcher = self._watcher
        return watcher.stream if watcher is not None else None

    def _context(self) -> RunContext[Any]:
        ctx = self._run_context()
        if ctx is None:
            raise UserError('The run has not started yet.')
        return ctx

    def all_messages(self, *, output_tool_return_content: str | None = None) -> list[ModelMessage]:
        """The run's messages: while the final response streams, those before it; then all of them.

        Args:
            output_tool_return_content: Once the run has finished, the content to put in the return of its output
                tool call (to continue the conversation with it); `None` leaves the messages as they are.
        """
        if self._result is not None:
            return self._result.all_messages(output_tool_return_content=output_tool_return_content)
        messages = list(self._context().messages)
        if self._interrupted is not None:
            messages.append(self._interrupted)
        return messages

    def new_messages(self, *, output_tool_return_content: str | None = None) -> list[ModelMessage]:
        """The messages of this run (those of `all_messages()` that the run produced)."""
        if self._result is not None:
            return self._result.new_messages(output_tool_return_content=output_tool_return_content)
        run_id = self._context().run_id
        messages = self.all_messages()
        start = next((i for i, m in enumerate(messages) if m.run_id == run_id), len(messages))
        return messages[start:]

    def all_messages_json(self, *, output_tool_return_content: str | None = None) -> bytes:
        """`all_messages()` as JSON bytes."""
        return ModelMessagesTypeAdapter.dump_json(
            self.all_messages(output_tool_return_content=output_tool_return_content)
        )

    def new_messages_json(self, *, output_tool_return_content: str | None = None) -> bytes:
        """`new_messages()` as JSON bytes."""
        return ModelMessagesTypeAdapter.dump_json(
            self.new_messages(output_tool_return_content=output_tool_return_content)
        )

    @property
    def usage(self) -> RunUsage:
        """The run's usage so far (including the streaming response's); `usage()` also works."""
        if self._result is not None:
            return callable_value(self._result.usage())
        usage = replace(self._context().usage)
        stream = self._live_stream()
        if stream is not None and stream.get().state != 'complete':
            usage = usage + stream.usage()
            usage.requests += 1
        return callable_value(usage)

    @property
    def result(self) -> AgentRunResult[OutputDataT] | None:
        """The run's result, once it has finished."""
        return self._result

    @property
    def response(self) -> ModelResponse:
        """The final model response: as streamed so far, or complete once the run has finished.

        This is the response as the model streamed it; the copy in `all_messages()` also carries the run's ids.
        """
        stream = self._live_stream()
        if self._result is not None:
            if stream is not None and stream.get().parts == self._result.response.parts:
                return stream.get()
            return self._result.response
        if self._interrupted is not None:
            return self._interrupted
        if stream is not None:
            return stream.get()
        return ModelResponse(parts=[self._parts[i] for i in sorted(self._parts)], state='incomplete')

    @property
    def timestamp(self) -> datetime:
        """When the final response started."""
        return self.response.timestamp

    @property
    def run_id(self) -> str:
        """The run's id."""
        run_id = self._result.run_id if self._result is not None else self._context().run_id
        assert run_id is not None
        return run_id

    @property
    def conversation_id(self) -> str:
        """The id of the conversation the run belongs to."""
        if self._result is not None:
            return self._result.conversation_id
        ctx = self._run_context()
        conversation_id = ctx.conversation_id if ctx is not None else None
        assert conversation_id is not None
        return conversation_id

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The run's metadata, if any."""
        if self._result is not None:
            return self._result.metadata
        ctx = self._run_context()
        return ctx.metadata if ctx is not None else None


async def _no_events() -> AsyncIterator[Any]:
    return
    yield  # an async generator that yields nothing


_RESET: Any = object()
"""Marks the start of a new response in `_updates`: text from the previous one was not the final output."""

_RESET_TEXT = '\x00reset\x00'
"""`_RESET` among the text pieces of `stream_text`, which are grouped as strings."""
