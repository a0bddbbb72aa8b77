"""A worker runs workflow activations on a small thread pool of its own, and shuts it down when it stops."""

from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from temporalio.client import Client

from agent import Agent
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel
from worker import WORKFLOW_TASK_THREADS, build_worker
from workflows import AgentRunInput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')


def _reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart('done')])


AGENTS = {'threads_agent': Agent(FunctionModel(_reply), name='threads_agent')}


def _pool(worker: object) -> ThreadPoolExecutor:
    # The SDK's workflow worker keeps the pool it runs activations on (private; pinned here).
    return worker._workflow_worker._workflow_task_executor  # pyright: ignore[reportAttributeAccessIssue]


async def test_activations_run_on_a_few_threads_however_many_task_slots(client: Client, task_queue: str) -> None:
    worker = build_worker(client, AGENTS, task_queue=task_queue)
    pool = _pool(worker)
    assert pool._max_workers == WORKFLOW_TASK_THREADS
    async with worker:
        outputs = await asyncio.gather(
            *[
                client.execute_workflow(
                    AgentWorkflow.run,
                    AgentRunInput(agent='threads_agent', prompt='hi'),
                    id=f'threads-{uuid.uuid4()}',
                    task_queue=task_queue,
                )
                for _ in range(40)
            ]
        )
        assert {output.output for output in outputs} == {'done'}
        assert 0 < len(pool._threads) <= WORKFLOW_TASK_THREADS
    assert pool._shutdown


async def test_a_pool_given_to_the_worker_is_used_and_left_running(client: Client, task_queue: str) -> None:
    with ThreadPoolExecutor(max_workers=2) as given:
        worker = build_worker(client, AGENTS, task_queue=task_queue, workflow_task_executor=given)
        assert _pool(worker) is given
        async with worker:
            output = await client.execute_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='threads_agent', prompt='hi'),
                id=f'threads-{uuid.uuid4()}',
                task_queue=task_queue,
            )
        assert output.output == 'done'
        assert not given._shutdown
