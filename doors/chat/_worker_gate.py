"""`WorkerGate`: the chat doors answer within a bound when no worker serves the conversations' task queue.

A query, and an update until a worker accepts it, wait for a worker of the workflow's task queue; with none, the
SDK waits on (an update for ever, a query for the server's long-poll timeout), so a request would hang. The gate
answers `BackendUnavailable` instead, naming the task queue, in one of two ways:

- Before anything is sent, when no worker has polled the task queue lately (`describe_task_queue` lists the pollers
  of the last few minutes) and none does within `timeout` (a worker that is starting polls within moments):
  nothing of the request was taken, and the person may send it again.
- When the call itself gets no answer within `timeout` (workers polled a while ago and went away, or all are
  stuck). A query given up leaves nothing behind. An update given up may still be held by the server: once the
  server admits an update it keeps it for the workflow's next workflow task, whoever stops waiting for it, and a
  worker that comes later runs it (a message is answered; a stop stops the turn that runs then). So the gate asks
  the server whether it holds the update, and says so: such an update is only in the server's memory until a
  worker takes it (Temporal persists an update once a worker accepts it), which the message says too.

A request that needs a worker waits at most `timeout` for a poller and then `timeout` for each call. What can go
durably without a worker (answers to approvals, as a signal) is sent that way when the gate gives up, and `recorded`
says so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from datetime import timedelta
from typing import TypeVar

from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.enums.v1 import TaskQueueType, UpdateWorkflowExecutionLifecycleStage
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.update.v1 import UpdateRef, WaitPolicy
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest, PollWorkflowExecutionUpdateRequest
from temporalio.client import Client, WorkflowQueryFailedError, WorkflowUpdateRPCTimeoutOrCancelledError
from temporalio.service import RPCError, RPCStatusCode

from agent.ui.web import BackendUnavailable

__all__ = ('WorkerGate',)

_DEADLOCK = 'TMPRL1101'
"""The SDK's code for a workflow task that did not yield within its deadlock bound."""

T = TypeVar('T')

_ADMITTED = UpdateWorkflowExecutionLifecycleStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED
_LOOKUP_TIMEOUT = timedelta(seconds=5)  # asking the server whether it holds an update needs no worker
_FIRST_LOOK = 0.05  # seconds between two looks for a poller, doubling up to `_LAST_LOOK`
_LAST_LOOK = 0.5


class WorkerGate:
    """Bounds the calls of the chat backend that need a worker of `task_queue`.

    Args:
        client: The Temporal client.
        task_queue: The task queue of the workers that run the conversations.
        timeout: Seconds to wait for a worker to show up, to answer a query or to take an update.
    """

    def __init__(self, client: Client, task_queue: str, timeout: float) -> None:
        self._client = client
        self._task_queue = task_queue
        self._timeout = timeout
        self._command = f'agents worker --agents module:agent --task-queue {task_queue}'

    async def check(self, refused: str) -> None:
        """Return once a worker has polled the task queue lately; refuse when none does within the timeout.

        Args:
            refused: What was not done, for the message (`'the message was not sent'`).

        Raises:
            BackendUnavailable: No worker polled the task queue (`admitted` is `False`).
        """
        request = DescribeTaskQueueRequest(
            namespace=self._client.namespace,
            task_queue=TaskQueue(name=self._task_queue),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        )
        pause = _FIRST_LOOK
        try:
            async with asyncio.timeout(self._timeout):
                # Polled rather than waited for: the server announces no poller. A worker starting alongside the
                # chat server (or just before a request) is seen within a look or two.
                while not (await self._client.workflow_service.describe_task_queue(request)).pollers:
                    await asyncio.sleep(pause)
                    pause = min(pause * 2, _LAST_LOOK)
        except TimeoutError:
            raise self._not_served(refused) from None

    async def query(self, call: Awaitable[T], refused: str) -> T:
        """`call` (queries only: giving one up leaves nothing behind), given up after the timeout.

        Raises:
            BackendUnavailable: No worker answered in time (`admitted` is `False`).
        """
        try:
            async with asyncio.timeout(self._timeout):
                return await call
        except TimeoutError:
            raise self._no_answer(refused) from None
        except WorkflowQueryFailedError as exc:
            # A worker too busy to answer within the SDK's deadlock bound (a run's task replaying on a loaded
            # machine): the next try may well be answered, as with no answer in time.
            if _DEADLOCK in str(exc):
                raise self._no_answer(refused) from exc
            raise
        except RPCError as exc:
            # The server's own answer to a query when no worker polled the task queue lately.
            if exc.status == RPCStatusCode.FAILED_PRECONDITION and 'no poller' in exc.message:
                raise self._not_served(refused) from exc
            raise

    async def update(self, call: Awaitable[T], workflow_id: str, update_id: str, sent: str, refused: str) -> T:
        """`call`, an update `update_id` of `workflow_id` waiting until a worker accepts it, given up after the timeout.

        Args:
            call: Sends the update.
            workflow_id: The workflow the update is for.
            update_id: The update's id, to ask the server whether it holds the update once `call` is given up.
            sent: What the update carries, for the message (`'the message'`).
            refused: What was not done if the server does not hold it (`'the message was not sent'`).

        Raises:
            BackendUnavailable: No worker took the update in time; `admitted` says whether the server holds it.
        """
        deadline = asyncio.timeout(self._timeout)
        try:
            async with deadline:
                return await call
        except (TimeoutError, WorkflowUpdateRPCTimeoutOrCancelledError) as exc:
            # The SDK turns the timeout's cancellation into its own error: only an expired deadline is ours.
            if not deadline.expired():
                raise
            if not await self._holds(workflow_id, update_id):
                raise self._no_answer(refused) from exc
            raise BackendUnavailable(
                f'No worker of task queue {self._task_queue!r} took {sent} within {self._timeout:g} s. The Temporal '
                'server holds it and delivers it when a worker serves that task queue (start one with '
                f"`{self._command}`); until then it is kept only in the server's memory, so a restart of the server "
                'would drop it.',
                admitted=True,
            ) from exc

    async def _holds(self, workflow_id: str, update_id: str) -> bool:
        """Whether the server holds the update (admitted, or further along)."""
        request = PollWorkflowExecutionUpdateRequest(
            namespace=self._client.namespace,
            update_ref=UpdateRef(workflow_execution=WorkflowExecution(workflow_id=workflow_id), update_id=update_id),
            identity=self._client.identity,
            wait_policy=WaitPolicy(lifecycle_stage=_ADMITTED),
        )
        try:
            await self._client.workflow_service.poll_workflow_execution_update(request, timeout=_LOOKUP_TIMEOUT)
        except RPCError as exc:
            if exc.status == RPCStatusCode.NOT_FOUND:
                return False
            raise
        return True

    def recorded(self, sent: str) -> BackendUnavailable:
        """What to answer when no worker took `sent` (`'the answers'`) in time and it went by signal instead.

        A signal is written to the run's history as the server takes it, so what it carries is kept (`admitted`)
        and applies when a worker takes the run.
        """
        return BackendUnavailable(
            f'No worker of task queue {self._task_queue!r} took {sent} within {self._timeout:g} s. '
            f"{sent[0].upper()}{sent[1:]} are recorded in the conversation's history and apply when a worker takes "
            f'the run: start one with `{self._command}`.',
            admitted=True,
        )

    def _not_served(self, refused: str) -> BackendUnavailable:
        return BackendUnavailable(
            f'No worker is serving task queue {self._task_queue!r}, so {refused}. '
            f'Start one with `{self._command}`, then try again.'
        )

    def _no_answer(self, refused: str) -> BackendUnavailable:
        return BackendUnavailable(
            f'No worker of task queue {self._task_queue!r} answered within {self._timeout:g} s, so {refused}. '
            f'Start one with `{self._command}` (or check that the running ones are up and serve this agent), '
            'then try again.'
        )
