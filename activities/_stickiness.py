"""Moving a workflow off a dead worker's sticky queue as soon as one of its activities is retried.

A workflow's tasks go to the worker that ran its last one (its sticky queue) until that worker fails to take
one within the sticky timeout. When a worker dies in the middle of an activity, the activity is retried on
another worker, and the workflow task that its result schedules would first wait out the dead worker's sticky
timeout. A retried attempt is the sign that the previous worker may be gone, so the retry asks the server to
send the workflow's next task to the normal queue instead: a live worker takes it at once. If the previous
worker is alive after all, the cost is one replay of the workflow there or elsewhere.
"""

from __future__ import annotations

import asyncio
import logging
import time

from temporalio import activity
from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.workflowservice.v1 import ResetStickyTaskQueueRequest

__all__ = ('release_stickiness_on_retry',)

log = logging.getLogger(__name__)

_pending: set[asyncio.Task[None]] = set()
_recent: dict[tuple[str, str], float] = {}
RESET_AGAIN_AFTER = 30.0
"""Seconds before the same run's sticky queue is reset again: a run retrying a rate-limited model request
over and over needs one reset (if any), not a replay per attempt."""


def release_stickiness_on_retry() -> None:
    """On a retried attempt, reset the workflow's sticky queue in the background (errors are only logged)."""
    info = activity.info()
    if info.attempt <= 1 or not info.workflow_id:
        return
    key = (info.workflow_id, info.workflow_run_id or '')
    now = time.monotonic()
    if now - _recent.get(key, -RESET_AGAIN_AFTER) < RESET_AGAIN_AFTER:
        return
    try:
        client = activity.client()
    except RuntimeError:
        return  # no client (an activity run outside a worker)
    _recent[key] = now
    if len(_recent) > 10_000:
        for stale in [k for k, at in _recent.items() if now - at >= RESET_AGAIN_AFTER]:
            del _recent[stale]
    request = ResetStickyTaskQueueRequest(
        namespace=info.workflow_namespace or client.namespace,
        execution=WorkflowExecution(workflow_id=info.workflow_id, run_id=info.workflow_run_id or ''),
    )

    async def reset() -> None:
        try:
            await client.workflow_service.reset_sticky_task_queue(request)
        except Exception:
            log.debug('Could not reset the sticky queue of %s', info.workflow_id, exc_info=True)

    task = asyncio.ensure_future(reset())
    _pending.add(task)
    task.add_done_callback(_pending.discard)
