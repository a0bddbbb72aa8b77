"""`LiveTurn`: a durable turn as the chat server follows it, from its `send_message` update to its last event.

A turn of a conversation workflow is a `send_message` update; its events come through the `TurnEventHub`, and
its end comes from the workflow in one of two ways:

- the update completes: the turn is over. The watcher ends the hub's turn with an `AgentRunResultEvent` built
  from the update's result, so every reader gets it last and stops.
- the run starts waiting for approvals: the turn goes on in the workflow, but this stream is over for the page,
  which shows the approval buttons. The hub's turn is not ended (it would drop the events of the turn's
  continuation, which carry the same turn number); instead the readers get a result whose output is the pending
  `DeferredToolRequests` and stop. An answer (`resolve_deferred_tools`) starts a new `LiveTurn` on the same
  update, whose readers skip the events the hub holds from before the approval (the page already shows them).

The watcher learns which from one `wait_for_turn` update, which the workflow completes the moment the turn ends
or starts to wait, so the stream ends within a round trip of the wait. It is sent once per stretch, never in a
loop: each update adds events to the run's history.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError, WorkflowUpdateHandle
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from agent._deferred import DeferredToolRequests
from agent._parts import ModelMessage, ModelResponse
from agent.run import AgentRunResultEvent
from agent.ui._event_stream import NativeEvent
from agent.ui.web import ChatBackendError
from agent.ui.web._replay import ShownParts, message_events
from workflows._types import TURN_CANCELLED, AgentRunOutput, WaitForTurn, WaitForTurnResult

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
        owner: Who follows the turn (the workflow checks it is the conversation's owner).
        skip: Events of the hub's turn from before this stretch, which readers do not get again.
        prelude: Events readers get first (those of the stretch that happen in the workflow, not in activities).
        earlier: The turn's messages before this stretch (its user request first); a reader replaying from the
            turn's start is shown them before the stretch.
        turn_messages: Reads the turn's messages so far (its user request first) from the workflow.
    """

    def __init__(
        self,
        hub: TurnEventHub,
        handle: WorkflowHandle[Any, Any],
        update: WorkflowUpdateHandle[AgentRunOutput],
        *,
        owner: str,
        skip: int = 0,
        prelude: Sequence[NativeEvent] = (),
        earlier: Sequence[ModelMessage] = (),
        turn_messages: Callable[[], Awaitable[list[ModelMessage]]] | None = None,
    ) -> None:
        self.workflow_id = handle.id
        self.update_id = update.id
        self.skip = skip
        self.prelude = list(prelude)
        self.earlier = list(earlier)
        self.finished = False
        """The turn ended with a result (not cancelled, not failed)."""
        self._turn_messages = turn_messages
        self.waiting: AgentRunResultEvent[Any] | None = None
        """The result that ended the stream when the run began to wait for approvals."""
        self.error: BaseException | None = None
        self._hub = hub
        self._handle = handle
        self._update = update
        self._owner = owner
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
        try:
            stop = await self._stop()
            if stop is not None and stop.state == 'awaiting_deferred_tools' and stop.pending is not None:
                self.waiting = waiting_event(stop.pending)
                return
            await self._finish()
        finally:
            self._stopped.set()

    async def _stop(self) -> WaitForTurnResult | None:
        """Why this stretch stops, once it does; `None` if the workflow would not say (the update's result will)."""
        try:
            return await self._handle.execute_update(
                'wait_for_turn', WaitForTurn(update_id=self.update_id, owner=self._owner), result_type=WaitForTurnResult
            )
        except (WorkflowUpdateFailedError, RPCError):
            # Rejected when the run no longer keeps the turn (it ended long ago, or the conversation continued as
            # new since): it has ended, and its update has the result.
            return None

    async def _finish(self) -> None:
        try:
            output = await self._update.result()
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
        self.finished = True
        self._hub.end_turn(self.workflow_id, finished_event(output))

    async def read(self, *, from_start: bool = False) -> AsyncIterator[NativeEvent]:
        """The stretch's events (the hub's turn from its start, less `skip`), then its last event.

        Args:
            from_start: Replay the turn from its start: the stretches before this one first (from `earlier`).
        """
        subscription = self._hub.subscribe(self.workflow_id)
        stopped = asyncio.ensure_future(self._stopped.wait())
        shown = ShownParts()
        index = 0
        try:
            for event in [*(message_events(self.earlier[1:]) if from_start else ()), *self.prelude]:
                shown.see(event)
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
                    waiting = self.waiting
                    if isinstance(waiting, AgentRunResultEvent):
                        for missing in await self._unshown(shown, waiting, from_start):
                            yield missing
                        yield waiting
                    break
                try:
                    event = following.result()
                except StopAsyncIteration:
                    break
                index += 1
                if index > self.skip:
                    if isinstance(event, AgentRunResultEvent):
                        for missing in await self._unshown(shown, event, from_start):
                            yield missing
                    shown.see(event)
                    yield event
            if self.error is not None:
                raise self.error
        finally:
            stopped.cancel()
            await subscription.aclose()

    async def _unshown(self, shown: ShownParts, last: AgentRunResultEvent[Any], from_start: bool) -> list[NativeEvent]:
        """The events of the turn's responses `shown` lacks, to give before the stretch's `last` event."""
        output = last.result.output
        if isinstance(output, DeferredToolRequests):
            # The result holds only the pending calls: when the stream showed them, it showed the response.
            if shown.showed_calls([call.tool_call_id for call in [*output.approvals, *output.calls]]):
                return []
            if self._turn_messages is None:
                return []
            try:
                messages = await self._turn_messages()
            except RPCError:
                return []  # best effort: the page reads the history
            missing = shown.unshown_events(messages if from_start else messages[len(self.earlier) :])
            # A sub-agent's calls (a child run's, by path) are in none of the turn's responses: they are shown as
            # the response that asks for them, so the page has each call before its approval request.
            for event in missing:
                shown.see(event)
            theirs = [
                call for call in [*output.approvals, *output.calls] if not shown.showed_calls([call.tool_call_id])
            ]
            return missing + (shown.unshown_events([ModelResponse(parts=theirs)]) if theirs else [])
        messages = last.result.all_messages()
        return shown.unshown_events(messages if from_start else messages[len(self.earlier) :])


async def _next(subscription: TurnSubscription) -> NativeEvent:
    return await subscription.__anext__()
