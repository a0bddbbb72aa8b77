"""Answering a run's pending tool calls from the command line: within a bounded time, and never lost.

`agents approve`, `agents deny` and the watcher's prompt answer by the `resolve_deferred_tools` update, which checks
the tool call ids and returns what still waits. An update passes through Temporal's stages: *admitted* (the server
holds it, in memory only), *accepted* (a worker's run took it: it is in the run's history) and *completed*. Only a
worker of the run's task queue can accept it, so while none serves the queue the SDK's `execute_update` waits for
ever; and an update left admitted when the client gives up is still delivered to the next worker that takes the run,
but lost if the server restarts first.

So an answer is sent in two steps, each bounded by `within` seconds:

1. The run is asked what waits (a query, which also needs a worker). A run that waits for nothing is told at once
   (the update would be held until the run asks for the calls). No reply means no worker serves the run: the
   answer goes as the `submit_deferred_tool_results` signal instead, which the server writes to the run's history at
   once, so it is kept whatever happens and applies when a worker picks the run up. No update was sent.
2. The update is sent and waited on until a worker accepts it. If none does in time (its worker went away between
   the two steps), the signal is sent too: the answer is then durable, and whichever of the two reaches the run
   second is refused as already resolved (an update silently, by its validator; a signal listed under the run's
   `rejected`), so it applies once.

Either way the command says that the answer is recorded but not confirmed (a signal's ids are checked only when the
run reads them; `agents status` lists any it refused) and exits with status 1.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agent._deferred import DeferredToolRequests
from workflows.client import AgentClient

from ._defaults import ANSWER_TIMEOUT
from ._errors import CommandError

__all__ = ('ANSWER_TIMEOUT', 'answer')


async def answer(
    agents: AgentClient,
    workflow_id: str,
    approvals: dict[str, Any],
    *,
    what: str,
    within: float = ANSWER_TIMEOUT,
) -> DeferredToolRequests | None:
    """Answer pending approvals of a run and return what still waits (see the module docs).

    `what` names the answer in messages (`approval of delete-a`).

    Raises:
        CommandError: if the run waits for no tool calls, or if no worker took the answer `within` seconds, saying
            that it is recorded and will apply.
        WorkflowUpdateFailedError: if the run refuses the answer (an unknown or resolved id).
    """
    try:
        pending = await asyncio.wait_for(agents.pending(workflow_id), within)
    except TimeoutError:
        await agents.submit(workflow_id, approvals=approvals)
        task_queue = await _task_queue(agents, workflow_id)
        raise CommandError(
            f'No worker serves task queue {task_queue!r}: run {workflow_id!r} did not answer within {within:g} s.'
            f'\n{_recorded(what, workflow_id)}'
        ) from None
    if pending is None:
        # The run would hold answers until it asks for their calls, which may be long: a person is told at once.
        raise CommandError(
            f'Run {workflow_id!r} waits for no tool calls now: nothing was sent (`agents status {workflow_id}` says '
            'where it is).'
        )
    try:
        return await agents.approve(workflow_id, approvals=approvals, accept_within=within)
    except TimeoutError:
        await agents.submit(workflow_id, approvals=approvals)
        task_queue = await _task_queue(agents, workflow_id)
        raise CommandError(
            f'No worker of task queue {task_queue!r} accepted the {what} within {within:g} s.'
            f'\n{_recorded(what, workflow_id)}'
        ) from None


def _recorded(what: str, workflow_id: str) -> str:
    return (
        f"The {what} is recorded in the run's history and applies when a worker picks the run up; "
        f'`agents status {workflow_id}` then lists any id it refused.'
    )


async def _task_queue(agents: AgentClient, workflow_id: str) -> str:
    return (await agents.client.get_workflow_handle(workflow_id).describe()).task_queue
