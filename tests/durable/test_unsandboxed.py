"""Workers without Temporal's sandbox (`build_worker(..., sandboxed=False)`, `agents worker --unsandboxed`).

The same runs complete and replay either way; what the sandbox adds is a guard on workflow-side code: I/O through
Python's builtins fails the run with `WorkflowSideIO` in the sandbox and goes unchecked without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ApplicationError

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_replayer, build_worker
from workflows.client import AgentClient

from ._approvals import wait_for_approval
from ._cli_helpers import agents, dev_worker, user_env, write_project

pytestmark = pytest.mark.asyncio(loop_scope='session')


def _script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart('wire', {'amount': 5}, 'wire-1'), ToolCallPart('rate', {}, 'rate-1')])
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    returns = sorted(str(part.content) for part in last.parts if isinstance(part, ToolReturnPart))
    return ModelResponse(parts=[TextPart('; '.join(returns))])


payments = Agent(FunctionModel(_script), name='unsandboxed_payments')


@payments.tool_plain(requires_approval=True)
def wire(amount: int) -> str:
    return f'wired {amount}'


@payments.tool_plain
async def rate() -> str:
    return 'rate 1.1'


def _reads_a_file() -> str:
    # Workflow-side I/O: instructions run in the workflow, so this is what the sandbox exists to stop.
    with open(__file__, encoding='utf-8') as source:
        return f'The first line is {source.readline().strip()!r}.'


OPEN_LINE = _reads_a_file.__code__.co_firstlineno + 2
FIRST_LINE = Path(__file__).read_text().splitlines()[0]


def _echo(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart(f'told: {info.instructions}')])


file_reader = Agent(FunctionModel(_echo), name='unsandboxed_file_reader', instructions=_reads_a_file)

AGENTS: dict[str, Agent[Any, Any]] = {'unsandboxed_payments': payments, 'unsandboxed_file_reader': file_reader}


async def test_an_unsandboxed_worker_runs_an_approval_and_its_history_replays_both_ways(
    client: Client, task_queue: str
) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue, sandboxed=False):
        agents = AgentClient(client, task_queue=task_queue)
        handle = await agents.start('unsandboxed_payments', 'go')
        # The waiting run leaves the cache: the approval's task replays it, unsandboxed.
        await wait_for_approval(agents, handle.id)
        await agents.approve(handle.id, approvals={'wire-1': True})
        result = await handle.result()
    assert result.output == 'rate 1.1; wired 5'
    history = await handle.fetch_history()
    for sandboxed in (False, True):
        replayed = await build_replayer(AGENTS, sandboxed=sandboxed).replay_workflow(
            history, raise_on_replay_failure=False
        )
        assert replayed.replay_failure is None, (sandboxed, replayed.replay_failure)


async def test_workflow_side_io_fails_the_run_in_the_sandbox(client: Client, task_queue: str) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await AgentClient(client, task_queue=task_queue).start('unsandboxed_file_reader', 'go')
        with pytest.raises(WorkflowFailureError) as failed:
            await handle.result()
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == 'WorkflowSideIO'
    assert cause.non_retryable
    assert cause.message.startswith(
        f'Workflow-side code tried to do I/O in _reads_a_file (test_unsandboxed.py:{OPEN_LINE}): '
        'Cannot access __builtins__.open from inside a workflow. Hooks, instructions and prepare functions run in '
        'the workflow and must be deterministic.'
    )


async def test_workflow_side_io_goes_unchecked_without_the_sandbox(client: Client, task_queue: str) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue, sandboxed=False):
        handle = await AgentClient(client, task_queue=task_queue).start('unsandboxed_file_reader', 'go')
        result = await handle.result()
    assert result.output == f'told: The first line is {FIRST_LINE!r}.'


READER_MODULE = """\
from agent import Agent
from agent.messages import ModelResponse, TextPart
from agent.models.function import FunctionModel


def _reads_a_file() -> str:
    with open(__file__, encoding='utf-8') as source:
        return 'read ' + source.readline().strip()


reader = Agent(
    FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart(info.instructions or '')])),
    name='reader',
    instructions=_reads_a_file,
)
"""


@pytest.mark.slow(16)
async def test_the_worker_command_runs_unsandboxed_on_request(tmp_path: Path) -> None:
    folder = write_project(tmp_path)
    (folder / 'myapp' / 'reader.py').write_text(READER_MODULE)
    served = ('--agents', 'myapp.agents:support', 'myapp.reader:reader')
    async with dev_worker(folder, *served, '--unsandboxed') as address:
        done = await agents(
            'run', 'reader', 'go', '--watch', '--no-input', cwd=folder, env=user_env(TEMPORAL_ADDRESS=address)
        )
    assert done.code == 0, done.err
    assert done.out.endswith('\n"read from agent import Agent"\n'), done.out
    async with dev_worker(folder, *served) as address:
        done = await agents(
            'run', 'reader', 'go', '--watch', '--no-input', cwd=folder, env=user_env(TEMPORAL_ADDRESS=address)
        )
    assert done.code == 1
    assert done.err.startswith("agents: The run 'agent-reader-"), done.err
    assert 'failed: Workflow-side code tried to do I/O in _reads_a_file (reader.py:7): Cannot access' in done.err
    assert 'Traceback' not in done.err
