"""The commands that start and steer runs: run, watch, pending, approve, deny, status, result, inbox."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from temporalio.api.enums.v1 import PendingWorkflowTaskState
from temporalio.client import WorkflowExecutionStatus, WorkflowFailureError, WorkflowHandle

from agent._deferred import ToolDenied
from workflows.client import AgentClient

from ._answer import answer
from ._connect import connect
from ._errors import CommandError, failure_line
from ._output import decision_line, dump, open_approval_line, pending_lines, plural, shorten, table, utc
from ._unanswered import TaskFailing
from ._watch import Decide, ask, follow

__all__ = (
    'approve_command',
    'inbox_command',
    'pending_command',
    'result_command',
    'run_command',
    'status_command',
    'watch_command',
)

SETTLE_WAIT = 3.0
"""Seconds `agents run` waits for a worker to take a new run's first workflow task (see `_settle`)."""
SETTLE_LIMIT = 10.0
"""Seconds `agents run` waits at most while a worker does that task (a busy machine, a first import)."""
SETTLE_POLL = 0.05
"""Seconds between two looks at the new run."""

ENDED_BADLY = {
    WorkflowExecutionStatus.FAILED: 'failed',
    WorkflowExecutionStatus.TERMINATED: 'terminated',
    WorkflowExecutionStatus.CANCELED: 'cancelled',
    WorkflowExecutionStatus.TIMED_OUT: 'timed out',
}
"""How a run that ended without its output ended, as `agents status` says it."""


def _decide(args: argparse.Namespace) -> Decide:
    """How `--watch` answers approvals: `--yes` approves all, `--no-input` never asks, else at the prompt."""
    return 'yes' if args.yes else 'no-input' if args.no_input else 'ask'


async def _watch(agents: AgentClient, args: argparse.Namespace, workflow_id: str) -> None:
    """Follow the run as it happens, then print its output."""
    await follow(agents, workflow_id, poll=args.poll, decide=_decide(args), caller=args.identity)
    print(dump((await agents.result(workflow_id)).output), flush=True)


async def run_command(args: argparse.Namespace) -> int:
    """`agents run AGENT [PROMPT]`: start a run and print its workflow id (and follow it with `--watch`)."""
    try:
        fields: dict[str, Any] = json.loads(args.input) if args.input else {}
    except json.JSONDecodeError as exc:
        raise CommandError(f'--input is not JSON: {exc}') from exc
    if not isinstance(fields, dict):
        raise CommandError('--input must be a JSON object of AgentRunInput fields, e.g. \'{"owner": "alice"}\'')
    agents = await connect(args)
    try:
        handle = await agents.start(args.agent, args.prompt, workflow_id=args.workflow_id, **fields)
    except TypeError as exc:  # an unknown AgentRunInput field
        raise CommandError(f'--input has a field AgentRunInput does not: {exc}') from exc
    args.workflow_id = handle.id
    if not args.watch:
        await _settle(handle)
    print(handle.id, flush=True)
    if args.watch:
        await _watch(agents, args, handle.id)
    return 0


async def _settle(handle: WorkflowHandle[Any, Any]) -> None:
    """Wait, briefly, for a worker to do the new run's first workflow task, and raise the failure if the run failed.

    A run whose input is bad, or whose agent the worker does not have, fails in that task, milliseconds after the
    start where a worker serves the task queue: waiting for it turns a run id that would only fail later into the
    error itself. The wait ends as soon as the task is done, after `SETTLE_WAIT` seconds if no worker has taken it
    (none may be running yet: the run waits for one), and after `SETTLE_LIMIT` seconds if one is still doing it.

    Raises:
        WorkflowFailureError: if the run has already failed (or was terminated, cancelled or timed out).
    """
    loop = asyncio.get_running_loop()
    started = loop.time()
    while True:
        description = await handle.describe()
        if description.status in ENDED_BADLY:
            await handle.result()  # raises the run's failure
        # Started, task scheduled, (task started,) task completed: the outcome of the first task is in the history.
        if description.status != WorkflowExecutionStatus.RUNNING or description.history_length >= 4:
            return
        raw = description.raw_description
        in_hand = (
            raw.HasField('pending_workflow_task')
            and raw.pending_workflow_task.state == PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_STARTED
        )
        waited = loop.time() - started
        if waited >= SETTLE_LIMIT or (waited >= SETTLE_WAIT and not in_hand):
            return
        await asyncio.sleep(SETTLE_POLL)


async def watch_command(args: argparse.Namespace) -> int:
    """`agents watch ID`: follow a run as it happens (answering its approvals), then print its output."""
    await _watch(await connect(args), args, args.workflow_id)
    return 0


async def pending_command(args: argparse.Namespace) -> int:
    """`agents pending ID`: the tool calls a run waits for (with `--as`, those that identity may answer now)."""
    agents = await connect(args)
    pending = await ask(agents, args.workflow_id, agents.pending(args.workflow_id, caller=args.identity))
    nothing = f'Nothing is pending for {args.identity}.' if args.identity else 'Nothing is pending.'
    print('\n'.join(pending_lines(pending)) if pending else nothing, flush=True)
    return 0


async def approve_command(args: argparse.Namespace) -> int:
    """`agents approve|deny ID CALL...`: answer pending tool calls as the command's identity; prints what still waits.

    Bounded by `--timeout` when no worker serves the run, and then recorded durably (see `_answer`). A call the run
    took the approval of and still waits for needs more approvers under its rule: the approval counted.
    """
    if not args.timeout > 0:
        raise CommandError('--timeout must be a positive number of seconds.')
    agents = await connect(args)
    decision: bool | ToolDenied = True if args.command == 'approve' else ToolDenied(args.reason)
    what = f'{"approval" if decision is True else "denial"} of {", ".join(args.tool_call_ids)}'
    remaining = await answer(
        agents, args.workflow_id, dict.fromkeys(args.tool_call_ids, decision), what=what, within=args.timeout
    )
    if remaining:
        counted = [c.tool_call_id for c in remaining.approvals if c.tool_call_id in args.tool_call_ids]
        if counted:
            needs = 'needs' if len(counted) == 1 else 'need'
            print(f'Approval counted: {", ".join(counted)} {needs} more approvers '
                  f'(`agents status {args.workflow_id}` shows who approved).', flush=True)  # fmt: skip
        print('Still pending:\n' + '\n'.join(pending_lines(remaining)), flush=True)
    else:
        print('Nothing else is pending.', flush=True)
    return 0


async def status_command(args: argparse.Namespace) -> int:
    """`agents status ID`: state, step and usage of a run, why it failed if it did, the version of its agent it started
    on, the agent a conversation was handed off to, its decision records (who decided each deferred tool call, when,
    on which arguments), the approvals under rules still open, what it rejected, and the tokens of its waits for
    external events.

    A run whose workflow task fails on the worker cannot say its state: it is running, and the failure is its error.
    """
    agents = await connect(args)
    try:
        status = await ask(agents, args.workflow_id, agents.status(args.workflow_id))
    except TaskFailing as exc:
        print('running (its workflow task is retried until the code is fixed)')
        print(f'  error: workflow task failing: {exc.failure}')
        return 0
    # The run's own state says `failed` but not why, and nothing for a run ended from outside (terminated, timed
    # out): the server's record of the run says both.
    handle = agents.client.get_workflow_handle(args.workflow_id)
    ended = (await handle.describe()).status
    failure: str | None = None
    if ended in ENDED_BADLY:
        try:
            await handle.result()
        except WorkflowFailureError as exc:
            failure = failure_line(exc)
    usage = status.usage
    counts = f'{plural(usage.requests, "request")}, {plural(usage.tool_calls, "tool call")}'
    state = ENDED_BADLY.get(ended, status.state) if ended is not None else status.state
    print(f'{state} (step {status.step}, {counts})')
    if failure is not None:
        print(f'  error: {failure}')
    if status.agent_version is not None:
        print(f'  agent version: {status.agent_version}')
    if status.answering_agent is not None:
        print(f'  answered by {status.answering_agent} (the conversation was handed off to it)')
    for record in status.decisions:
        print(decision_line(record))
    for approval in status.open_approvals:
        print(open_approval_line(approval))
    for rejection in status.rejected:
        about = f' ({rejection.tool_call_id})' if rejection.tool_call_id else ''
        print(f'  rejected{about}: {rejection.reason}')
    for event in status.external_events:
        until = f', expires {utc(event.expires)}' if event.expires is not None else ''
        print(f'  waits for {event.name} since {utc(event.since)}{until}: agents answer {event.token}')
    return 0


async def result_command(args: argparse.Namespace) -> int:
    """`agents result ID`: wait for a run's output and print it as JSON."""
    agents = await connect(args)
    print(dump((await agents.result(args.workflow_id)).output), flush=True)
    return 0


async def inbox_command(args: argparse.Namespace) -> int:
    """`agents inbox`: every run of the namespace waiting for a human, one row per pending tool call.

    With `--as` (or `$AGENTS_IDENTITY`), only the runs and calls that identity may answer now under their agents'
    approval rules. Not with the Temporal client's identity, the default: no rule names it, so it would see nothing.
    """
    agents = await connect(args)
    waiting = await agents.inbox(args.owner, caller=args.identity)
    if not waiting:
        print(f'Nothing waits for {args.identity or "a human"}.', flush=True)
        return 0
    rows: list[list[str]] = []
    for run in waiting:
        common = [run.workflow_id, run.agent or '-', run.owner or '-']
        if run.pending is None:
            rows.append([*common, '?', '-', '(the run did not answer: is its worker running?)'])
            continue
        for kind, calls in (('approve', run.pending.approvals), ('result', run.pending.calls)):
            rows += [[*common, kind, c.tool_call_id, shorten(f'{c.tool_name}({c.args_as_json_str()})')] for c in calls]
    print(table(['WORKFLOW ID', 'AGENT', 'OWNER', 'NEEDS', 'TOOL CALL ID', 'CALL'], rows), flush=True)
    return 0
