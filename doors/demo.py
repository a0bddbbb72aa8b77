"""The end-to-end demo: a durable agent run that pauses for a human approval, on an embedded dev server.

`agents demo` (or `python worker.py --demo`) starts a Temporal dev server and a worker, starts a run of a
file-cleaning agent (scripted, so no API key is needed), waits while the run asks to delete a file, asks you at the
terminal (or takes `agents demo approve` / `agents demo deny`), and prints the result, where to see the run in the
Temporal Web UI (served until you press Enter) and how to chat with the same agent in a browser. With
`--model openai:gpt-5.2` (or any `'<provider>:<model>'`) a real model drives the same agent, with its key from the
usual environment variable.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator

from agent import Agent, RunContext
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from doors.cli._output import plural
from doors.cli._prompt import Answers
from doors.cli._serve import children_output_discarded
from worker import build_worker, start_dev_server, web_ui_url
from workflows.client import AgentClient

__all__ = ('demo_agent', 'run_demo')

CHAT_COMMAND = 'agents chat --agents doors.demo:demo_agent --dev'
"""The command that serves the chat page over conversations with the demo's agent."""


def _scripted_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Lists the files, asks to delete the stale one, then reports what happened: once per user message.

    Each message of a conversation (the chat page) starts the script afresh, with tool call ids of its own turn.
    """
    prompts = [i for i, m in enumerate(messages) if isinstance(m, ModelRequest) and _has_prompt(m)]
    turn = len(prompts) or 1
    since = messages[prompts[-1] :] if prompts else messages
    returns = [p for m in since if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if not returns:
        return ModelResponse(parts=[ToolCallPart('list_files', {}, f'list-{turn}')])
    if len(returns) == 1:
        return ModelResponse(parts=[ToolCallPart('delete_file', {'path': 'old-report.txt'}, f'delete-{turn}')])
    outcome = returns[-1]
    verdict = 'deleted it' if outcome.outcome == 'success' else f'left it alone ({outcome.content})'
    return ModelResponse(parts=[TextPart(f'I found old-report.txt and {verdict}.')])


def _has_prompt(request: ModelRequest) -> bool:
    return any(isinstance(part, UserPromptPart) for part in request.parts)


STREAM_WORD_DELAY = 0.04
"""Seconds between two streamed words of an answer, so a chat page shows it streaming in."""


async def _scripted_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    """The same script, streamed: tool calls whole, text word by word (a chat page's worker streams)."""
    for index, part in enumerate(_scripted_model(messages, info).parts):
        if isinstance(part, ToolCallPart):
            call = DeltaToolCall(name=part.tool_name, json_args=part.args_as_json_str(), tool_call_id=part.tool_call_id)
            yield {index: call}
        elif isinstance(part, TextPart):
            for number, word in enumerate(part.content.split(' ')):
                if number:
                    await asyncio.sleep(STREAM_WORD_DELAY)
                yield word if number == 0 else f' {word}'


demo_agent = Agent(
    FunctionModel(_scripted_model, stream_function=_scripted_stream),
    name='file_cleaner',
    instructions='Keep the folder tidy.',
)


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


async def _decide(mode: str, answers: Answers) -> bool:
    """The person's decision (or the mode's): an empty or unclear answer asks again; an ended input denies."""
    if mode != 'ask':
        return mode == 'approve'
    while True:
        answer = await answers.line('Approve deleting old-report.txt? [y/n] ')
        if answer is None:
            print('No answer (the input has ended): denying.', flush=True)
            return False
        if answer.strip().lower() in ('y', 'yes'):
            return True
        if answer.strip().lower() in ('n', 'no'):
            return False
        print('Please answer y (approve) or n (deny).', flush=True)


async def run_demo(mode: str = 'ask', *, task_queue: str = 'agents', model: str | None = None) -> None:
    """Run the demo end to end (see the module docstring); `model` replaces the scripted model.

    Asking (`mode='ask'`), it keeps the dev server up after the run until the person presses Enter, so the Web UI
    link it prints works; with `approve` or `deny` (for scripts) it stops the server at once.
    """
    print('Starting an embedded Temporal dev server...', flush=True)
    # The server prints its own banner once its UI is up, which would land in the middle of the prompt below:
    # it prints to nowhere, and the demo says where the server is itself. Its log lines (on standard error) say
    # nothing a person trying the demo can act on, and one logged while it shuts down would trail the demo's last
    # line: it logs nothing.
    with children_output_discarded():
        env = await start_dev_server(ui=True, log_level='never')
    answers = Answers()
    # A failed model request (a model name the provider does not know, a rejected key) would print the worker's
    # traceback in the middle of the demo's lines; the demo says how the run ended itself, and the Web UI has the rest.
    activity_log = logging.getLogger('temporalio.activity')
    level = activity_log.level
    activity_log.setLevel(logging.ERROR)
    try:
        ui = web_ui_url(env)
        print(f'Temporal dev server at {env.client.service_client.config.target_host}, Web UI at {ui}', flush=True)
        agents = AgentClient(env.client, task_queue=task_queue)
        async with build_worker(env.client, {'file_cleaner': demo_agent}, task_queue=task_queue):
            handle = await agents.start(
                'file_cleaner', 'Tidy up the folder.', workflow_id=f'demo-{uuid.uuid4()}', model=model
            )
            print(f'Started run {handle.id}; waiting for it to ask for approval...', flush=True)
            # A real model takes seconds per request, and may finish without asking to delete anything; a busy
            # machine takes seconds too. Up to two minutes, ending as soon as the run waits or ends.
            for _ in range(2400):
                if (await agents.status(handle.id)).state in ('awaiting_deferred_tools', 'completed', 'failed'):
                    break
                await asyncio.sleep(0.05)
            pending = await agents.pending(handle.id)
            if pending is not None:
                for call in pending.approvals:
                    print(f'The agent wants to call {call.tool_name}({call.args_as_json_str()})', flush=True)
                approved = await _decide(mode, answers)
                print('Approved.' if approved else 'Denied.', flush=True)
                await agents.approve(handle.id, approvals={c.tool_call_id: approved for c in pending.approvals})
            result = await agents.result(handle.id)
        usage = result.usage
        print(f'Result: {result.output}', flush=True)
        print(f'Usage: {plural(usage.requests, "model request")}, {plural(usage.tool_calls, "tool call")}', flush=True)
        print(f'See the run in the Temporal Web UI: {ui}/namespaces/default/workflows/{handle.id}', flush=True)
        print(f'Chat with the same agent in a browser: {CHAT_COMMAND}', flush=True)
        if mode == 'ask':
            await answers.line('Press Enter to stop the dev server (the link works until then). ')
        else:
            print('The dev server stops now, and the run with it (`agents demo` alone waits for Enter).', flush=True)
    finally:
        activity_log.setLevel(level)
        await env.shutdown()
