"""A command line for people: run agents, watch them, see and answer pending approvals.

```bash
python -m workflows.cli run support "Clean up my files" --watch
python -m workflows.cli pending <workflow-id>
python -m workflows.cli approve <workflow-id> <tool-call-id> [...]
python -m workflows.cli deny <workflow-id> <tool-call-id> [...] --message "Not now."
python -m workflows.cli status <workflow-id>
python -m workflows.cli result <workflow-id>
```

Not imported by workflow code.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pydantic
from temporalio.client import Client

from agent._deferred import DeferredToolRequests, ToolDenied

from ._data_converter import data_converter
from .client import AgentClient

__all__ = ('main',)


def _dump(value: Any) -> str:
    return pydantic.TypeAdapter(Any).dump_json(value, indent=2).decode()


def _describe_pending(pending: DeferredToolRequests) -> str:
    lines = [f'  approve? {c.tool_call_id}: {c.tool_name}({c.args_as_json_str()})' for c in pending.approvals]
    lines += [f'  result?  {c.tool_call_id}: {c.tool_name}({c.args_as_json_str()})' for c in pending.calls]
    return '\n'.join(lines)


async def _watch(agents: AgentClient, workflow_id: str, poll: float) -> None:
    """Print each change of state until the run ends, including what it waits for."""
    last: tuple[str, int] | None = None
    while True:
        status = await agents.status(workflow_id)
        if (status.state, status.step) != last:
            last = (status.state, status.step)
            print(f'[{workflow_id}] {status.state} (step {status.step}, {status.usage.requests} requests)', flush=True)
            if status.state == 'awaiting_deferred_tools' and (pending := await agents.pending(workflow_id)):
                print(_describe_pending(pending), flush=True)
                print(f'  answer with: python -m workflows.cli approve {workflow_id} <tool-call-id>', flush=True)
        if status.state in ('completed', 'failed'):
            return
        await asyncio.sleep(poll)


async def _main(args: argparse.Namespace) -> int:
    client = await Client.connect(args.address, namespace=args.namespace, data_converter=data_converter)
    agents = AgentClient(client, task_queue=args.task_queue)
    if args.command == 'run':
        fields: dict[str, Any] = json.loads(args.input) if args.input else {}
        handle = await agents.start(args.agent, args.prompt, **fields)
        print(handle.id, flush=True)
        if args.watch:
            await _watch(agents, handle.id, args.poll)
            print(_dump((await agents.result(handle.id)).output))
        return 0
    if args.command == 'pending':
        pending = await agents.pending(args.workflow_id)
        print(_describe_pending(pending) if pending else 'Nothing is pending.')
        return 0
    if args.command in ('approve', 'deny'):
        decision: bool | ToolDenied = True if args.command == 'approve' else ToolDenied(args.message)
        remaining = await agents.approve(args.workflow_id, approvals=dict.fromkeys(args.tool_call_ids, decision))
        print(f'Still pending:\n{_describe_pending(remaining)}' if remaining else 'Nothing else is pending.')
        return 0
    if args.command == 'status':
        status = await agents.status(args.workflow_id)
        usage = status.usage
        print(f'{status.state} (step {status.step}, {usage.requests} requests, {usage.tool_calls} tool calls)')
        for rejection in status.rejected:
            about = f' ({rejection.tool_call_id})' if rejection.tool_call_id else ''
            print(f'  rejected{about}: {rejection.reason}')
        return 0
    result = await agents.result(args.workflow_id)
    print(_dump(result.output))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run the command."""
    parser = argparse.ArgumentParser(prog='python -m workflows.cli', description=(__doc__ or '').split('\n\n')[0])
    parser.add_argument('--address', default='localhost:7233')
    parser.add_argument('--namespace', default='default')
    parser.add_argument('--task-queue', default='agents')
    commands = parser.add_subparsers(dest='command', required=True)
    run = commands.add_parser('run', help='start a run of a registered agent')
    run.add_argument('agent')
    run.add_argument('prompt', nargs='?')
    run.add_argument('--input', help='more AgentRunInput fields, as a JSON object')
    run.add_argument('--watch', action='store_true', help='follow the run until it ends')
    run.add_argument('--poll', type=float, default=0.5, help=argparse.SUPPRESS)
    for name in ('pending', 'status', 'result'):
        commands.add_parser(name).add_argument('workflow_id')
    for name in ('approve', 'deny'):
        sub = commands.add_parser(name, help=f'{name} pending tool calls')
        sub.add_argument('workflow_id')
        sub.add_argument('tool_call_ids', nargs='+')
        if name == 'deny':
            sub.add_argument('--message', default='The tool call was denied.')
    return asyncio.run(_main(parser.parse_args(argv)))


if __name__ == '__main__':
    from worker import exit_process

    exit_process(main())
