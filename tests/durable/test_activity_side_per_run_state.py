"""Activity-side hooks use the run's own `for_run` instance, so per-run state behaves as it does in-process."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
from temporalio.client import Client

from agent import Agent, RunContext
from agent._model_request_context import ModelRequestContext
from agent.capabilities import AbstractCapability
from agent.messages import ToolCallPart
from worker import build_worker
from workflows import AgentRunInput, AgentWorkflow

from ._parity_harness import call_then_answer

pytestmark = pytest.mark.asyncio(loop_scope='session')


@dataclass
class RequestNumbers(AbstractCapability[Any]):
    """Numbers each model request within its run, in a log shared by every instance."""

    log: list[int] = field(default_factory=list[int])
    count: int = 0

    async def for_run(self, ctx: RunContext[Any]) -> RequestNumbers:
        return RequestNumbers(log=self.log)

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self.count += 1
        self.log.append(self.count)
        return request_context


def numbered_agent(numbers: RequestNumbers) -> Agent[None, str]:
    agent = Agent(
        call_then_answer([ToolCallPart('noop', {}, 'noop-1')], 'done'), capabilities=[numbers], name='per_run_state'
    )

    @agent.tool_plain
    def noop() -> str:
        return 'ok'

    return agent


async def test_each_durable_run_counts_its_requests_from_one_like_in_process(client: Client, task_queue: str) -> None:
    in_process = RequestNumbers()
    agent = numbered_agent(in_process)
    await agent.run('one')
    await agent.run('two')

    durable = RequestNumbers()
    async with build_worker(client, {'per_run_state': numbered_agent(durable)}, task_queue=task_queue):
        for prompt in ('one', 'two'):
            await client.execute_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='per_run_state', prompt=prompt),
                id=f'per-run-{uuid.uuid4()}',
                task_queue=task_queue,
            )
    assert in_process.log == [1, 2, 1, 2]
    assert durable.log == in_process.log
    assert durable.count == 0  # the registered instance itself never counts
