"""`LiveTurn`: a durable turn as the chat server follows it, from its `send_message` update to its last event.

A turn of a conversation workflow is a `send_message` update; its events come through the `TurnEventHub`, and
its end comes from the workflow in one of two ways:

- the update completes: the turn is over. The watcher ends the hub's turn with an `AgentRunResultEvent` built
  from the update's result, so every reader gets it last and stops.
- the run starts waiting for approvals (the `pending_deferred_tools` query answers calls nobody has answered):
  the turn goes on in the workflow, but this stream is over for the page, which shows the approval buttons. The
  hub's turn is not ended (it would drop the events of the turn's continuation, which carry the same turn
  number); instead the readers get a result whose output is the pending `DeferredToolRequests` and stop. An
  answer (`resolve_deferred_tools`) starts a new `LiveTurn` on the same update, whose readers skip the events
  the hub holds from before the approval (the page already shows them).

The workflow does not announce the approval wait, so the watcher asks: it polls the query every
`poll_interval` seconds while waiting on the update's result. Reading visibility instead would be as slow
(visibility is eventually consistent) and needs the search attributes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError, WorkflowUpdateHandle
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from agent._deferred import DeferredToolRequests
from agent._parts import ModelMessage
from agent.ui._event_stream import NativeEvent
from agent.ui.web import ChatBackendError
from workflows._agent_workflow import AgentWorkflow
from workflows._types import TURN_CANCELLED, AgentRunOutput

from ._hub import TurnEventHub, TurnSubscription
from ._turn_results import finished_event, waiting_event

__all__ = ('LiveTurn', 'TurnFailed')


class TurnFailed(ChatBackendError):
    """The durable turn failed (its `send_message` update failed): raised to the turn's readers after its events."""


class LiveTurn:
    """One stretch of a durable turn: from its start or an approval answer to its end or the next approval wait.

    Args:
        hub: Where the turn's events arrive.
        handle: The conversation workflow.
        update: The turn's `send_message` update.
        start_messages: The conversation as of this stretch's start (for the result of an approval wait).
        skip: Events of the hub's turn from before this stretch, which readers do not get again.
        prelude: Events readers get first (those of the stretch that happen in the workflow, not in activities).
        answered: Tool call ids answered when this stretch began (still pending for a moment in the query).
        poll_interval: Seconds between two looks at whether the run waits for approvals.
    """

    def __init__(
        self,
        hub: TurnEventHub,
        handle: WorkflowHandle[Any, Any],
        update: WorkflowUpdateHandle[AgentRunOutput],
        *,
        start_messages: Callable[[], Awaitable[list[ModelMessage]]],
        skip: int = 0,
        prelude: Sequence[NativeEvent] = (),
        answered: frozenset[str] = frozenset(),
        poll_interval: float = 0.25,
    ) -> None:
        self.workflow_id = handle.id
        self.update_id = update.id
        self.skip = skip
        self.prelude = list(prelude)
        self.view: list[ModelMessage] | None = None
        """The conversation shown while this stretch runs, when `history` cannot read it from the workflow."""
        self.waiting: NativeEvent | None = None
        """The result that ended the stream when the run began to wait for approvals."""
        self.error: BaseException | None = None
        self._hub = hub
        self._handle = handle
        self._update = update
        self._start_messages = start_messages
        self._answered = answered
        self._poll_interval = poll_interval
        self._stopped = asyncio.Event()
        self._task = asyncio.create_task(self._watch())

    @property
    def running(self) -> bool:
        """The stretch is still streaming: it neither ended nor stopped for approvals."""
        return not self._stopped.is_set()

    async def wait(self) -> None:
        """Wait until the stretch has ended or stopped for approvals."""
        await self._stopped.wait()

    def close(self) -> None:
        """Stop watching (the chat server is shutting down); the turn goes on in the workflow."""
        self._task.cancel()

    async def _watch(self) -> None:
        result = asyncio.ensure_future(self._update.result())
        try:
            while not result.done():
                await asyncio.wait({result}, timeout=self._poll_interval)
                if result.done():
                    break
                pending = await self._pending()
                if pending is not None and not set(pending.tool_call_ids) <= self._answered:
                    messages = await self._start_messages()
                    self.waiting = waiting_event(pending, messages)
                    return
            self._finish(result)
        finally:
            if not result.done():
                result.cancel()
                result.add_done_callback(_retrieve)  # its cancellation surfaces as an error nobody needs
            self._stopped.set()

    async def _pending(self) -> DeferredToolRequests | None:
        try:
            return await self._handle.query(AgentWorkflow.pending_deferred_tools)
        except RPCError:
            return None  # no worker answered this time; the next look may get one

    def _finish(self, result: asyncio.Future[AgentRunOutput]) -> None:
        try:
            output = result.result()
        except WorkflowUpdateFailedError as exc:
            cause = exc.cause
            if not (isinstance(cause, ApplicationError) and cause.type == TURN_CANCELLED):
                self.error = TurnFailed(str(cause.message if isinstance(cause, ApplicationError) else exc))
            self._hub.end_turn(self.workflow_id)
            return
        except RPCError as exc:
            self.error = TurnFailed(f'The turn could not be followed: {exc.message}')
            self._hub.end_turn(self.workflow_id)
            return
        self._hub.end_turn(self.workflow_id, finished_event(output))

    async def read(self) -> AsyncIterator[NativeEvent]:
        """The stretch's events (the hub's turn from its start, less `skip`), then its last event."""
        subscription = self._hub.subscribe(self.workflow_id)
        stopped = asyncio.ensure_future(self._stopped.wait())
        index = 0
        try:
            for event in self.prelude:
                yield event
            while True:
                following = asyncio.ensure_future(_next(subscription))
                if not stopped.done():
                    await asyncio.wait({following, stopped}, return_when=asyncio.FIRST_COMPLETED)
                if not following.done():
                    # Stopped for approvals, or ended without the hub's help: one pass of the loop lets the read
                    # take an event the hub already holds; anything later is not this stretch's.
                    await asyncio.sleep(0)
                if not following.done():
                    following.cancel()
                    if self.waiting is not None:
                        yield self.waiting
                    break
                try:
                    event = following.result()
                except StopAsyncIteration:
                    break
                index += 1
                if index > self.skip:
                    yield event
            if self.error is not None:
                raise self.error
        finally:
            stopped.cancel()
            await subscription.aclose()


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def _next(subscription: TurnSubscription) -> NativeEvent:
    return await subscription.__anext__()
