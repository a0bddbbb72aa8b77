"""The commands that start and steer runs: run, watch, pending, approve, deny, status, result, inbox."""

from __future__ import annotations

import argparse
import json
from typing import Any

from agent._deferred import ToolDenied
from workflows.client import AgentClient

from ._connect import connect
from ._errors import CommandError
from ._output import dump, pending_lines, plural, shorten, table
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


def _decide(args: argparse.Namespace) -> Decide:
    """How `--watch` answers approvals: `--yes` approves all, `--no-input` never asks, else at the prompt."""
    return 'yes' if args.yes else 'no-input' if args.no_input else 'ask'


async def _watch(agents: AgentClient, args: argparse.Namespace, workflow_id: str) -> None:
    """Follow the run as it happens, then print its output."""
    await follow(agents, workflow_id, poll=args.poll, decide=_decide(args))
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
    print(handle.id, flush=True)
    if args.watch:
        await _watch(agents, args, handle.id)
    return 0


async def watch_command(args: argparse.Namespace) -> int:
    """`agents watch ID`: follow a run as it happens (answering its approvals), then print its output."""
    await _watch(await connect(args), args, args.workflow_id)
    return 0


async def pending_command(args: argparse.Namespace) -> int:
    """`agents pending ID`: the tool calls a run waits for."""
    agents = await connect(args)
    pending = await ask(agents, args.workflow_id, agents.pending(args.workflow_id))
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
    status = await ask(agents, args.workflow_id, agents.status(args.workflow_id))
    usage = status.usage
    counts = f'{plural(usage.requests, "request")}, {plural(usage.tool_calls, "tool call")}'
    print(f'{status.state} (step {status.step}, {counts})')
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
