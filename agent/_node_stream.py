"""Streaming one node of a run driven with `agent.iter()`: `async with node.stream(agent_run.ctx) as events:`.

```
async for node in agent_run ──→ node ──→ node.stream(ctx) ──→ the node runs now, in a task; its events
                                                              (model response parts, tool calls and results)
                                                              arrive as it produces them
                 ...the loop's next step ──→ returns the node the streamed run already chose, without running
                                             the node a second time
```

A node knows the run it belongs to because `AgentRun` binds each node it hands out (`bind_node`); the context
argument is accepted for Pydantic AI's calling convention (its `GraphRunContext` carries the state) and
otherwise unused. Events still go to the run's own event sink, if it has one, before the node's stream sees
them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

from ._agent_graph import ModelRequestNode
from ._streaming import LiveResponse, live_response
from .exceptions import UserError
from .result import AgentStream

if TYPE_CHECKING:
    from ._agent_graph import GraphAgentDeps, GraphAgentState
    from ._events import AgentStreamEvent

__all__ = ('bind_node', 'stream_node')


def bind_node(node: Any, state: GraphAgentState, deps: GraphAgentDeps[Any, Any]) -> None:
    """Record the run a node belongs to, so that `node.stream(ctx)` can run it (no-op for `End`)."""
    if hasattr(node, '_graph'):
        node._graph = (state, deps)


_DONE = object()


@asynccontextmanager
async def stream_node(node: Any, ctx: object) -> AsyncGenerator[AsyncIterable[AgentStreamEvent]]:
    """Run `node` now, yielding its events as they happen; the node keeps the next node for the run's loop.

    Raises:
        UserError: the node was not handed out by a run (`agent.iter()`), or it has already run.
    """
    graph = node._graph
    if graph is None:
        raise UserError('Only a node handed out by a run can be streamed: use the nodes of `agent.iter(...)`.')
    if node._streamed_next is not None:
        raise UserError('This node has already been streamed; a node runs once.')
    state, deps = graph
    queue: asyncio.Queue[Any] = asyncio.Queue()
    previous = deps.event_sink

    async def sink(event: AgentStreamEvent) -> None:
        if previous is not None:
            await previous(event)
        queue.put_nowait(event)
        # The node goes past an event only once the reader asks for the next one (see `events`), so what the
        # stream shows between two events (its response, the run's usage) is where the reader is.
        await queue.join()

    async def run() -> Any:
        try:
            return await node.run(state, deps)
        finally:
            queue.put_nowait(_DONE)

    async def events() -> AsyncIterator[AgentStreamEvent]:
        while (event := await queue.get()) is not _DONE:
            try:
                yield event
            finally:
                queue.task_done()

    deps.event_sink = sink
    watcher = LiveResponse()
    token = live_response.set(watcher)
    try:
        task = asyncio.ensure_future(run())
    finally:
        live_response.reset(token)
    events_left = events()
    stream: AsyncIterable[Any] = events_left
    if isinstance(node, ModelRequestNode):
        validators = deps.output_validators

        async def validate(output: Any, partial: bool) -> Any:
            ctx = deps.run_context(state, partial_output=partial)
            for validator in validators:
                output = await validator.validate(output, ctx)
            return output

        stream = AgentStream[Any](
            stream,
            deps.output_schema,
            validate_partial=validate,
            run_context=lambda: deps.run_context(state),
            watcher=watcher,
        )
    try:
        yield stream
        # Whatever the caller did not read still has to happen: the node runs to its end.
        async for _ in events_left:
            pass
        cast(Any, node)._streamed_next = await task  # the run's loop takes it from the node
    finally:
        deps.event_sink = previous
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
