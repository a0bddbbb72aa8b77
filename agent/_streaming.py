"""Streaming a model request into the run's event stream, with the model-request hooks around it."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._agent_graph_state import GraphAgentDeps
from ._events import FinalResultEvent, PartEndEvent, PartStartEvent
from ._model_request_context import ModelRequestContext
from ._parts import ModelResponse, TextPart, ToolCallPart
from ._processed_history import HistorySink, for_the_model
from ._run_context import RunContext
from .capabilities import run_with_model_request_hooks

if TYPE_CHECKING:
    from .models import StreamedResponse

__all__ = ('LiveResponse', 'live_response', 'response_events', 'stream_model_request')


@dataclass
class LiveResponse:
    """The model response a run is streaming now, for the stream objects that show it while it grows.

    Whoever wants it sets `live_response` before starting the run's task (the task copies the context, and so
    shares this object); the run records each streamed request here. Nested runs (an agent called by a tool)
    share the context too, so only the first run to record claims the watcher.
    """

    run_id: str | None = None
    """The run being watched, once it has streamed its first response."""
    stream: StreamedResponse | None = None
    """The response being streamed (or the last one streamed)."""


live_response: ContextVar[LiveResponse | None] = ContextVar('live_response', default=None)
"""The watcher of the current run's streamed responses, if someone asked for one."""


class _FinalResultDetector:
    """Spots the first part of a response that is the run's final result, to emit `FinalResultEvent` early."""

    def __init__(self, deps: GraphAgentDeps[Any, Any]) -> None:
        self.schema = deps.output_schema
        self.done = False
        self.saw_function_call = False

    def check(self, part: Any) -> FinalResultEvent | None:
        if self.done:
            return None
        if isinstance(part, ToolCallPart):
            if part.tool_name in self.schema.tools:
                self.done = True
                return FinalResultEvent(part.tool_name, part.tool_call_id)
            self.saw_function_call = True
        elif isinstance(part, TextPart) and self.schema.allows_text and not self.saw_function_call:
            self.done = True
            return FinalResultEvent(None, None)
        return None


def response_events(response: ModelResponse) -> list[Any]:
    """Start and end events for a response that was not streamed (e.g. a hook supplied it)."""
    events: list[Any] = []
    kinds = [part.part_kind for part in response.parts]
    for index, part in enumerate(response.parts):
        events.append(PartStartEvent(index, part, previous_part_kind=kinds[index - 1] if index else None))  # pyright: ignore[reportArgumentType]
        events.append(
            PartEndEvent(index, part, next_part_kind=kinds[index + 1] if index + 1 < len(kinds) else None)  # pyright: ignore[reportArgumentType]
        )
    return events


async def stream_model_request(
    ctx: RunContext[Any],
    deps: GraphAgentDeps[Any, Any],
    request_context: ModelRequestContext,
    adopt: HistorySink | None = None,
) -> ModelResponse:
    """Make the step's model request streamed, forwarding every event to the run's event stream.

    `adopt` is given the history the `before_model_request` hooks left (see `RunPorts.request_model`).
    """
    detector = _FinalResultDetector(deps)
    streamed = False

    async def forward(event: Any) -> None:
        await deps.emit(event)
        if isinstance(event, PartStartEvent) and (final := detector.check(event.part)) is not None:
            await deps.emit(final)

    async def call(rc: ModelRequestContext) -> ModelResponse:
        nonlocal streamed
        try:
            async with deps.ports.request_model_stream(ctx, rc) as stream:
                streamed = True
                watcher = live_response.get()
                if watcher is not None and watcher.run_id in (None, ctx.run_id):
                    watcher.run_id, watcher.stream = ctx.run_id, stream
                limits = deps.usage_limits if deps.usage_limits.has_token_limits() else None
                async for event in stream:
                    if limits is not None:
                        # Token limits hold while the response streams, not only once it is complete.
                        limits.check_tokens(ctx.usage + stream.usage())
                    await forward(event)
                return stream.get()
        except NotImplementedError:
            if streamed:
                raise
            return await rc.model.request(rc.messages, rc.model_settings, rc.model_request_parameters)

    response = await run_with_model_request_hooks(
        deps.capability, ctx, request_context, call, prepared=for_the_model(adopt)
    )
    if not streamed:
        for event in response_events(response):
            await forward(event)
    return response
