"""The approvals inbox: every run of a namespace that waits for a human, with what it waits for.

Runs record `AgentState` and `PendingApprovals` as search attributes (see `workflows._search_attributes`), so one
visibility query finds the waiting runs without knowing their ids; each listed run is then asked for its
`pending_deferred_tools`, which is exact where visibility is a moment behind (a run listed as waiting may have been
answered since: it is left out). Runs of namespaces without the attributes registered are not found.

For a given identity the inbox lists only what it may answer: each run filters its pending approvals by the agent's
approval rules (the query's `caller` argument), which only the run can apply (a rule may be a function of the call).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from temporalio.client import Client, WorkflowExecution, WorkflowQueryFailedError, WorkflowQueryRejectedError
from temporalio.service import RPCError, RPCStatusCode

from agent._deferred import DeferredToolRequests

from ._search_attributes import AGENT_NAME, AGENT_OWNER

__all__ = ('QUERIES_AT_ONCE', 'QUERY_TIMEOUT', 'WaitingRun', 'waiting_runs', 'waiting_runs_query')

QUERY_TIMEOUT = timedelta(seconds=5)
"""How long the inbox waits for its runs to say what they wait for (a query needs a worker of the run's queue): a
run that has not answered by then is listed without the details, so the inbox answers within about this long however
many runs have no worker."""

QUERIES_AT_ONCE = 16
"""How many listed runs the inbox asks at the same time."""


@dataclass(frozen=True)
class WaitingRun:
    """A run that waits for a human's answer to some of its tool calls."""

    workflow_id: str
    """The run's workflow id: what `approve`, `pending` and `status` take."""
    run_id: str
    """The Temporal run id of the execution that waits."""
    agent: str
    """The registered name of the run's agent (`AgentName`)."""
    owner: str | None
    """Who started the run (`AgentOwner`), if its input named an owner."""
    started: datetime | None
    """When the execution started."""
    pending: DeferredToolRequests | None
    """The tool calls it waits for (approvals, and calls whose results are to be supplied); `None` when the run did
    not answer the query in time (no worker of its task queue is running)."""


def waiting_runs_query(owner: str | None = None) -> str:
    """The visibility query for running `AgentWorkflow` runs that wait for a human, of `owner` if given."""
    query = (
        "WorkflowType = 'AgentWorkflow' AND ExecutionStatus = 'Running' "
        "AND (AgentState = 'awaiting_deferred_tools' OR PendingApprovals > 0)"
    )
    if owner is not None:
        # A JSON string literal is a valid visibility string literal (quotes and backslashes escaped).
        query += f' AND AgentOwner = {json.dumps(owner)}'
    return query


async def waiting_runs(client: Client, owner: str | None = None, caller: str | None = None) -> list[WaitingRun]:
    """The runs of `client`'s namespace that wait for a human, newest first.

    With `caller`, only the runs with calls that identity may answer now, and only those calls (a run no worker
    answers for is left out: what it would let the caller answer is unknown).

    Raises:
        RPCError: if the namespace cannot be listed (e.g. it lacks the search attributes).
    """
    listed = [execution async for execution in client.list_workflows(waiting_runs_query(owner))]
    # A tool's delegated run is left out: its parent lists what it waits for, under the tool call's path.
    listed = [execution for execution in listed if execution.parent_id is None]
    # Asked together, against one deadline: runs no worker answers for cost the timeout once, not once per run
    # (nor once per batch of QUERIES_AT_ONCE).
    limit = asyncio.Semaphore(QUERIES_AT_ONCE)
    deadline = asyncio.get_running_loop().time() + QUERY_TIMEOUT.total_seconds()

    async def entry(execution: WorkflowExecution) -> WaitingRun | None:
        try:
            # The deadline is kept here as well as sent with the query: a query can outlast its RPC timeout.
            async with limit, asyncio.timeout_at(deadline):
                pending = await _pending(client, execution, caller, deadline)
        except TimeoutError:
            # A run no worker answered for in time still waits for a human: it is listed without the details, or
            # left out for a `caller` (what it would let them answer is unknown).
            return None if caller is not None else _entry(execution, None)
        return None if pending is None else _entry(execution, pending)

    waiting = [run for run in await asyncio.gather(*map(entry, listed)) if run is not None]
    waiting.sort(key=lambda run: run.started.timestamp() if run.started else 0.0, reverse=True)
    return waiting


async def _pending(
    client: Client, execution: WorkflowExecution, caller: str | None, deadline: float
) -> DeferredToolRequests | None:
    """What a listed run waits for (that `caller` may answer), or `None` if it waits for nothing any more (it ended
    or was answered since visibility listed it).

    Raises:
        TimeoutError: if no worker of the run answered by `deadline` (the event loop's clock).
    """
    handle = client.get_workflow_handle(execution.id, run_id=execution.run_id)
    time_left = max(deadline - asyncio.get_running_loop().time(), 0.001)
    try:
        # By name, as the client calls the workflow (see `workflows.client`).
        pending = await handle.query(
            'pending_deferred_tools',
            args=[caller] if caller is not None else [],
            result_type=DeferredToolRequests,
            rpc_timeout=timedelta(seconds=time_left),
        )
    except RPCError as exc:
        if exc.status in (RPCStatusCode.DEADLINE_EXCEEDED, RPCStatusCode.CANCELLED):
            raise TimeoutError from exc
        return None  # ended since visibility listed it
    except (WorkflowQueryFailedError, WorkflowQueryRejectedError):
        return None
    if pending is None or not (pending.approvals or pending.calls):
        return None  # answered since visibility listed it
    return pending


def _entry(execution: WorkflowExecution, pending: DeferredToolRequests | None) -> WaitingRun:
    attributes = execution.typed_search_attributes
    return WaitingRun(
        workflow_id=execution.id,
        run_id=execution.run_id,
        agent=attributes.get(AGENT_NAME) or '',
        owner=attributes.get(AGENT_OWNER),
        started=execution.start_time,
        pending=pending,
    )
