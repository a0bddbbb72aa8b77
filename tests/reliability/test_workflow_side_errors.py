"""An exception from user code that runs in the workflow fails the run (or the conversation's turn) with that error.

Instructions and system prompt functions, workflow-side hooks, output validators and history processors moved to the
workflow side run in the workflow. When one raises, the run fails at once with the exception's type and message, as
the in-process run raises it, instead of retrying its workflow task for ever;
`build_worker(..., workflow_side_errors='retry')` keeps Temporal's retry-until-fixed behaviour.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any, ClassVar

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowFailureError,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.exceptions import ApplicationError
from temporalio.workflow import NondeterminismError, ReadOnlyContextError

from agent import Agent, RunContext, UserError
from agent.capabilities import AbstractCapability, HookSide, ProcessHistory
from agent.messages import ModelMessage
from agent.models.test import TestModel
from doors.cli._parser import build_parser
from worker import build_worker
from workflows import AgentRunOutput, AgentWorkflow
from workflows._failures import as_workflow_failure

pytestmark = pytest.mark.asyncio(loop_scope='session')


def _done() -> TestModel:
    return TestModel(custom_output_text='done')


def _reads_deps(ctx: RunContext[Any]) -> str:
    return f'Greet {ctx.deps.name}.'  # the deps were left out: AttributeError on None, as in-process


class _FailsBeforeRun(AbstractCapability[Any]):
    async def before_run(self, ctx: RunContext[Any]) -> None:
        raise LookupError('no account for this run')


def _drops_everything(messages: list[ModelMessage]) -> list[ModelMessage]:
    raise ValueError('history processor gave up')


class _ProcessHistoryInWorkflow(ProcessHistory[Any]):
    # A history processor runs in the model-request activity unless moved (there its errors are the activity's).
    hook_sides: ClassVar[dict[str, HookSide]] = {'before_model_request': 'workflow'}


def _instructions_agent() -> Agent[Any, str]:
    return Agent(_done(), name='instructions', instructions=_reads_deps)


def _system_prompt_agent() -> Agent[Any, str]:
    agent = Agent(_done(), name='system_prompt')
    agent.system_prompt(_reads_deps)
    return agent


def _validator_agent() -> Agent[Any, str]:
    agent = Agent(_done(), name='validator')

    @agent.output_validator
    def _check(output: str) -> str:
        raise KeyError(output)

    return agent


def _hook_agent() -> Agent[Any, str]:
    return Agent(_done(), name='hook', capabilities=[_FailsBeforeRun()])


def _history_processor_agent() -> Agent[Any, str]:
    return Agent(_done(), name='history_processor', capabilities=[_ProcessHistoryInWorkflow(_drops_everything)])


# Where the user code runs, and what it raises in-process.
PLACES: dict[str, tuple[Callable[[], Agent[Any, str]], type[Exception]]] = {
    'instructions': (_instructions_agent, AttributeError),
    'system prompt': (_system_prompt_agent, AttributeError),
    'output validator': (_validator_agent, KeyError),
    'workflow-side hook': (_hook_agent, LookupError),
    'history processor': (_history_processor_agent, ValueError),
}


async def _task_failures(handle: WorkflowHandle[Any, Any]) -> int:
    history = await handle.fetch_history()
    return sum(1 for event in history.events if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)


@pytest.mark.parametrize('place', list(PLACES))
async def test_an_exception_from_workflow_side_code_fails_the_run_as_in_process(
    client: Client, task_queue: str, place: str
) -> None:
    make_agent, raises = PLACES[place]
    agent = make_agent()
    with pytest.raises(raises) as in_process:
        await agent.run('hi')
    expected = f'{type(in_process.value).__name__}: {in_process.value}'
    async with build_worker(client, {'failing': agent}, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run, {'agent': 'failing', 'prompt': 'hi'}, id=f'fails-{uuid.uuid4()}', task_queue=task_queue
        )
        with pytest.raises(WorkflowFailureError) as failed:
            async with asyncio.timeout(10):  # before, the run stayed RUNNING, retrying its workflow task for ever
                await handle.result()
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == type(in_process.value).__name__
    assert cause.message.splitlines()[0] == expected
    assert cause.non_retryable
    assert await _task_failures(handle) == 0


def _boom_on_request(ctx: RunContext[Any]) -> str:
    if ctx.prompt == 'boom':
        raise ValueError('this turn cannot be answered')
    return 'Be brief.'


async def test_a_turn_whose_instructions_raise_fails_its_update_and_the_next_turn_works(
    client: Client, task_queue: str
) -> None:
    agent = Agent(_done(), name='talker', instructions=_boom_on_request)
    async with build_worker(client, {'talker': agent}, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            {'agent': 'talker', 'conversation': True},
            id=f'conv-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        with pytest.raises(WorkflowUpdateFailedError) as failed:
            async with asyncio.timeout(10):
                await handle.execute_update('send_message', {'prompt': 'boom'})
        turn = await handle.execute_update('send_message', {'prompt': 'hi'}, result_type=AgentRunOutput)
        await handle.signal(AgentWorkflow.close_conversation)
        await handle.result()
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == 'ValueError'
    assert cause.message.splitlines()[0] == 'ValueError: this turn cannot be answered'
    assert turn.output == 'done'
    assert await _task_failures(handle) == 0


broken = True
raised = threading.Event()


def _broken_until_fixed(ctx: RunContext[Any]) -> str:
    if broken:
        raised.set()
        raise RuntimeError('not fixed yet')
    return 'Be brief.'


async def test_a_worker_that_retries_workflow_side_errors_resumes_the_run_once_the_code_is_fixed(
    client: Client, task_queue: str
) -> None:
    global broken
    broken = True
    raised.clear()
    agent = Agent(_done(), name='mended', instructions=_broken_until_fixed)
    async with build_worker(client, {'mended': agent}, task_queue=task_queue, workflow_side_errors='retry'):
        handle = await client.start_workflow(
            'AgentWorkflow',
            {'agent': 'mended', 'prompt': 'hi'},
            id=f'mended-{uuid.uuid4()}',
            task_queue=task_queue,
            result_type=AgentRunOutput,
            # After the first failure, the SDK reports no more: each later attempt ends when it times out.
            task_timeout=timedelta(seconds=1),
        )
        assert await asyncio.to_thread(raised.wait, 10)
        assert (await handle.describe()).status == WorkflowExecutionStatus.RUNNING
        broken = False
        async with asyncio.timeout(20):
            result = await handle.result()
    assert result.output == 'done'
    assert await _task_failures(handle) >= 1  # the run went on in a retried workflow task, not a new run


@pytest.mark.parametrize(
    'error',
    [
        NondeterminismError('the history says otherwise'),
        ReadOnlyContextError('no commands in a query'),
        asyncio.CancelledError(),
        GeneratorExit(),
    ],
    ids=lambda error: type(error).__name__,
)
async def test_temporal_errors_and_control_flow_are_not_taken_for_user_errors(error: BaseException) -> None:
    # `None`: the exception propagates as is, so a nondeterminism error fails only the workflow task (a worker with the
    # right code replays it) and a cancellation stays one.
    assert as_workflow_failure(error) is None


async def test_with_retry_a_user_error_is_left_to_fail_the_workflow_task() -> None:
    assert as_workflow_failure(ValueError('not yet'), retry_user_errors=True) is None
    failure = as_workflow_failure(ValueError('not yet'))
    assert failure is not None
    assert (failure.type, failure.message, failure.non_retryable) == ('ValueError', 'ValueError: not yet', True)


async def test_the_worker_command_takes_the_workflow_side_errors_option() -> None:
    parser = build_parser()
    assert parser.parse_args(['worker', '--agents', 'm:a']).workflow_side_errors == 'fail'
    retrying = parser.parse_args(['worker', '--agents', 'm:a', '--workflow-side-errors', 'retry'])
    assert retrying.workflow_side_errors == 'retry'


async def test_build_worker_refuses_an_unknown_workflow_side_errors_mode(client: Client, task_queue: str) -> None:
    with pytest.raises(UserError, match="workflow_side_errors must be 'fail' or 'retry', got 'ignore'"):
        build_worker(client, {'echo': Agent(_done())}, task_queue=task_queue, workflow_side_errors='ignore')  # pyright: ignore[reportArgumentType]
