"""The end-to-end demo: a durable agent run that pauses for a human approval, on an embedded dev server.

`python worker.py --demo` starts a Temporal dev server and a worker, starts a run of a file-cleaning
agent (scripted, so no API key is needed), waits while the run asks to delete a file, asks you at the
terminal (or takes `--demo approve` / `--demo deny`), and prints the result and where to see the run in
the Temporal Web UI. With `--model openai:gpt-5.2` (or any `'<provider>:<model>'`) a real model drives the
same agent, with its key from the usual environment variable.
"""

from __future__ import annotations

import asyncio
import uuid

from agent import Agent, RunContext
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from workflows.client import AgentClient

__all__ = ('demo_agent', 'run_demo')


def _scripted_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Lists the files, asks to delete the stale one, then reports what happened."""
    returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if not returns:
        return ModelResponse(parts=[ToolCallPart('list_files', {}, 'list-1')])
    if len(returns) == 1:
        return ModelResponse(parts=[ToolCallPart('delete_file', {'path': 'old-report.txt'}, 'delete-1')])
    outcome = returns[-1]
    verdict = 'deleted it' if outcome.outcome == 'success' else f'left it alone ({outcome.content})'
    return ModelResponse(parts=[TextPart(f'I found old-report.txt and {verdict}.')])


demo_agent = Agent(FunctionModel(_scripted_model), name='file_cleaner', instructions='Keep the folder tidy.')


@demo_agent.tool
def list_files(ctx: RunContext[None]) -> list[str]:
    """List the files in the folder."""
    return ['notes.md', 'old-report.txt']


@demo_agent.tool(requires_approval=True)
def delete_file(ctx: RunContext[None], path: str) -> str:
    """Delete a file (needs a human's approval).

    Args:
        path: The file to delete.
    """
    return f'deleted {path}'


async def _decide(mode: str, pending: object) -> bool:
    if mode != 'ask':
        return mode == 'approve'
    answer = await asyncio.to_thread(input, 'Approve deleting old-report.txt? [y/N] ')
    return answer.strip().lower() in ('y', 'yes')


async def run_demo(mode: str = 'ask', *, task_queue: str = 'agents', model: str | None = None) -> None:
    """Run the demo end to end (see the module docstring); `model` replaces the scripted model."""
    from worker import build_worker, start_dev_server, web_ui_url

    print('Starting an embedded Temporal dev server...', flush=True)
    env = await start_dev_server(ui=True)
    try:
        ui = web_ui_url(env)
        agents = AgentClient(env.client, task_queue=task_queue)
        async with build_worker(env.client, {'file_cleaner': demo_agent}, task_queue=task_queue):
            handle = await agents.start(
                'file_cleaner', 'Tidy up the folder.', workflow_id=f'demo-{uuid.uuid4()}', model=model
            )
            print(f'Started run {handle.id}; waiting for it to ask for approval...', flush=True)
            # A real model takes seconds per request, and may finish without asking to delete anything.
            for _ in range(200 if model is None else 2400):
                if (await agents.status(handle.id)).state in ('awaiting_deferred_tools', 'completed', 'failed'):
                    break
                await asyncio.sleep(0.05)
            pending = await agents.pending(handle.id)
            if pending is not None:
                for call in pending.approvals:
                    print(f'The agent wants to call {call.tool_name}({call.args_as_json_str()})', flush=True)
                approved = await _decide(mode, pending)
                print('Approved.' if approved else 'Denied.', flush=True)
                await agents.approve(handle.id, approvals={c.tool_call_id: approved for c in pending.approvals})
            result = await agents.result(handle.id)
        print(f'Result: {result.output}', flush=True)
        print(f'Usage: {result.usage.requests} model requests, {result.usage.tool_calls} tool calls', flush=True)
        print(f'See the run at {ui}/namespaces/default/workflows/{handle.id}', flush=True)
    finally:
        await env.shutdown()
