"""The commands that start and steer runs: run, watch, pending, approve, deny, status, result, inbox."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable
from typing import Any, TypeVar

from agent._deferred import ToolDenied
from workflows.client import AgentClient

from ._connect import connect
from ._errors import CommandError
from ._output import dump, pending_lines, shorten, table

__all__ = (
    'QUERY_TIMEOUT',
    'approve_command',
    'inbox_command',
    'pending_command',
    'result_command',
    'run_command',
    'status_command',
    'watch_command',
)

T = TypeVar('T')

QUERY_TIMEOUT = 10.0
"""Seconds a command waits for a run to answer a query: only a worker of the run's task queue can answer it."""


async def _ask(agents: AgentClient, workflow_id: str, query: Awaitable[T]) -> T:
    """A query's answer; after `QUERY_TIMEOUT` without one, an error naming the task queue no worker serves."""
    try:
        return await asyncio.wait_for(query, QUERY_TIMEOUT)
    except TimeoutError:
        task_queue = (await agents.client.get_workflow_handle(workflow_id).describe()).task_queue
        raise CommandError(
            f'Run {workflow_id!r} did not answer within {QUERY_TIMEOUT:g} s: no worker serves its task queue '
            f'{task_queue!r}.\nStart one with `agents worker --agents module:agent --task-queue {task_queue}`.'
        ) from None


async def watch(agents: AgentClient, workflow_id: str, poll: float) -> None:
    """Print each change of state until the run ends, including what it waits for."""
    last: tuple[str, int] | None = None
    while True:
        status = await _ask(agents, workflow_id, agents.status(workflow_id))
        if (status.state, status.step) != last:
            last = (status.state, status.step)
            print(f'[{workflow_id}] {status.state} (step {status.step}, {status.usage.requests} requests)', flush=True)
            if status.state == 'awaiting_deferred_tools' and (
                pending := await _ask(agents, workflow_id, agents.pending(workflow_id))
            ):
                print('\n'.join(pending_lines(pending)), flush=True)
                print(f'  answer with: agents approve {workflow_id} <tool-call-id>  (or agents deny ...)', flush=True)
        if status.state in ('completed', 'failed'):
            return
        await asyncio.sleep(poll)


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
    print(handle.id, flush=True)
    if args.watch:
        await watch(agents, handle.id, args.poll)
        print(dump((await agents.result(handle.id)).output), flush=True)
    return 0


async def watch_command(args: argparse.Namespace) -> int:
    """`agents watch ID`: follow a run until it ends, then print its output."""
    agents = await connect(args)
    await watch(agents, args.workflow_id, args.poll)
    print(dump((await agents.result(args.workflow_id)).output), flush=True)
    return 0


async def pending_command(args: argparse.Namespace) -> int:
    """`agents pending ID`: the tool calls a run waits for."""
    agents = await connect(args)
    pending = await _ask(agents, args.workflow_id, agents.pending(args.workflow_id))
    print('\n'.join(pending_lines(pending)) if pending else 'Nothing is pending.', flush=True)
    return 0


async def approve_command(args: argparse.Namespace) -> int:
    """`agents approve|deny ID CALL...`: answer pending tool calls; prints what still waits."""
    agents = await connect(args)
    decision: bool | ToolDenied = True if args.command == 'approve' else ToolDenied(args.reason)
    remaining = await agents.approve(args.workflow_id, approvals=dict.fromkeys(args.tool_call_ids, decision))
    if remaining:
        print('Still pending:\n' + '\n'.join(pending_lines(remaining)), flush=True)
    else:
        print('Nothing else is pending.', flush=True)
    return 0


async def status_command(args: argparse.Namespace) -> int:
    """`agents status ID`: state, step and usage of a run, and what it rejected."""
    agents = await connect(args)
    status = await _ask(agents, args.workflow_id, agents.status(args.workflow_id))
    usage = status.usage
    print(f'{status.state} (step {status.step}, {usage.requests} requests, {usage.tool_calls} tool calls)')
    for rejection in status.rejected:
        about = f' ({rejection.tool_call_id})' if rejection.tool_call_id else ''
        print(f'  rejected{about}: {rejection.reason}')
    return 0


async def result_command(args: argparse.Namespace) -> int:
    """`agents result ID`: wait for a run's output and print it as JSON."""
    agents = await connect(args)
    print(dump((await agents.result(args.workflow_id)).output), flush=True)
    return 0


async def inbox_command(args: argparse.Namespace) -> int:
    """`agents inbox`: every run of the namespace waiting for a human, one row per pending tool call."""
    agents = await connect(args)
    waiting = await agents.inbox(args.owner)
    if not waiting:
        print('Nothing waits for a human.', flush=True)
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
