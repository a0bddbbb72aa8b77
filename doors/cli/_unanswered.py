"""Why a run gives no answer to a query: its workflow task fails on the worker, or no worker serves its task queue.

A query is answered by a worker of the run's task queue that replays the run, so a run answers nothing while no
worker polls that queue, and nothing while its workflow task fails on the worker that takes it: user code that runs
in the workflow raising on a worker started with `--workflow-side-errors retry`, or a nondeterminism error after the
code changed. Temporal retries such a task until a worker with fixed code completes it, so the run is not lost; until
then the server holds a query while an attempt is in flight (the query times out) and, after a few attempts, refuses
it at once (`FAILED_PRECONDITION`). Saying "no worker serves the task queue" then sends a person looking for a worker
that is running; what helps is the exception the task fails with.

Only the first failure of a retried task is written to the history (later attempts are transient, and the SDK
reports only the first), and an attempt past the first is a retry: so a run whose pending workflow task is on its
second attempt or later, and whose latest `WORKFLOW_TASK_FAILED` event is newer than its latest
`WORKFLOW_TASK_COMPLETED`, is stuck on that failure. The history is read backwards, newest first, so the look is one
short read however long the run's history is.
"""

from __future__ import annotations

import asyncio

from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.enums.v1 import EventType, TaskQueueType, WorkflowTaskFailedCause
from temporalio.api.failure.v1 import Failure
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest, GetWorkflowExecutionHistoryReverseRequest
from temporalio.client import Client, WorkflowExecutionDescription
from temporalio.exceptions import ApplicationError, FailureError

from ._errors import CommandError
from ._output import plural

__all__ = ('TASK_FAILING', 'TaskFailing', 'failure_while', 'pollers', 'retried', 'task_failure', 'unanswered')

TASK_FAILING = "The run's workflow task fails on the worker (it is retried until the code is fixed)"
"""What a command says of a run whose workflow task fails, before the failure's first line."""

FAILURE_CHECK_EVERY = 0.5
"""Seconds between two looks at a run whose query has not been answered yet (see `failure_while`)."""

_HISTORY_PAGE = 100
"""Events per page of the backward read: the latest workflow task is almost always on the first page."""

_PASSING_CAUSES = frozenset(
    {
        WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND,
        WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_UPDATE,
        WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_STICKY_TASK_QUEUE,
    }
)
"""Causes that are no fault of the code (a signal or update arrived meanwhile, the worker dropped the run from its
cache): the task is retried at once and completes, so they say nothing about why a run does not answer."""


class TaskFailing(CommandError):
    """A run whose workflow task fails on the worker: it answers nothing until a worker with fixed code takes it."""

    def __init__(self, failure: str) -> None:
        super().__init__(f'{TASK_FAILING}: {failure}')
        self.failure = failure
        """The first line of the failure (`AttributeError: 'NoneType' object has no attribute 'name'`)."""


def retried(description: WorkflowExecutionDescription) -> bool:
    """Whether the run's pending workflow task is a retry: an earlier attempt failed or timed out."""
    raw = description.raw_description
    return raw.HasField('pending_workflow_task') and raw.pending_workflow_task.attempt > 1


async def task_failure(client: Client, workflow_id: str) -> str | None:
    """The first line of the run's latest workflow task failure, or `None` if a workflow task completed since."""
    request = GetWorkflowExecutionHistoryReverseRequest(
        namespace=client.namespace,
        execution=WorkflowExecution(workflow_id=workflow_id),
        maximum_page_size=_HISTORY_PAGE,
    )
    while True:
        page = await client.workflow_service.get_workflow_execution_history_reverse(request)
        for event in page.history.events:
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
                return None
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
                attributes = event.workflow_task_failed_event_attributes
                if attributes.cause in _PASSING_CAUSES:
                    return None
                return await _first_line(client, attributes.failure, attributes.cause)
        if not page.next_page_token:
            return None
        request.next_page_token = page.next_page_token


async def _first_line(client: Client, failure: Failure, cause: WorkflowTaskFailedCause.ValueType) -> str:
    """The failure's type and the first line of its message (decrypted, where the worker encrypted it)."""
    try:
        error = await client.data_converter.decode_failure(failure)
    except Exception:  # a codec without the key: the failure's own text is better than nothing
        error = None
    if isinstance(error, FailureError):
        message, kind = error.message, error.type if isinstance(error, ApplicationError) else None
    else:
        message, kind = failure.message, failure.application_failure_info.type
    lines = message.strip().splitlines()
    first = lines[0] if lines else ''
    if kind and not first.startswith(f'{kind}:'):
        first = f'{kind}: {first}' if first else kind
    return first or WorkflowTaskFailedCause.Name(cause).removeprefix('WORKFLOW_TASK_FAILED_CAUSE_')


async def failure_while(client: Client, workflow_id: str) -> str:
    """The failure's first line, once the run's workflow task is seen failing; looks every `FAILURE_CHECK_EVERY` s.

    Runs beside a query that the server holds while the run's workflow task is in flight, so a command says what
    fails within a moment instead of waiting for the query to time out. Never returns while the run is healthy.
    """
    handle = client.get_workflow_handle(workflow_id)
    while True:
        await asyncio.sleep(FAILURE_CHECK_EVERY)
        if retried(await handle.describe()) and (failure := await task_failure(client, workflow_id)) is not None:
            return failure


async def pollers(client: Client, task_queue: str) -> int:
    """How many workers poll `task_queue` for workflow tasks (the server remembers those of the last minutes)."""
    request = DescribeTaskQueueRequest(
        namespace=client.namespace,
        task_queue=TaskQueue(name=task_queue),
        task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    )
    return len((await client.workflow_service.describe_task_queue(request)).pollers)


async def unanswered(client: Client, workflow_id: str, waited: float) -> CommandError:
    """The error for a run that gave no answer within `waited` seconds: why, as far as the server can tell."""
    failure = await task_failure(client, workflow_id)
    if failure is not None:
        return TaskFailing(failure)
    task_queue = (await client.get_workflow_handle(workflow_id).describe()).task_queue
    polling = await pollers(client, task_queue)
    if not polling:
        return CommandError(
            f'Run {workflow_id!r} did not answer within {waited:g} s: no worker serves its task queue '
            f'{task_queue!r}.\nStart one with `agents worker --agents module:agent --task-queue {task_queue}`.'
        )
    return CommandError(
        f'Run {workflow_id!r} did not answer within {waited:g} s, though its task queue {task_queue!r} has '
        f'{plural(polling, "worker")} polling it: they may be busy; try again.'
    )
