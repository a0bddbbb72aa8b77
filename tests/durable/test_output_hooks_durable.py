"""Output hooks in a durable run: they run in the workflow, and a `ModelRetry` from one asks the model again."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from temporalio import workflow
from temporalio.client import Client

from agent import Agent, ModelRetry, RunContext
from agent.capabilities import AbstractCapability
from agent.messages import ModelMessage, ModelResponse, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel
from agent.output import OutputContext
from worker import build_worker
from workflows import AgentRunInput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')

seen: list[tuple[str, Any, bool]] = []


@dataclass
class AtLeastTen(AbstractCapability[Any]):
    """Rejects small numbers after validation and doubles the final output, noting where each hook ran."""

    async def after_output_validate(self, ctx: RunContext[Any], *, output_context: OutputContext, output: Any) -> Any:
        seen.append(('after_output_validate', output, workflow.in_workflow()))
        if output < 10:
            raise ModelRetry('at least ten, please')
        return output

    async def after_output_process(self, ctx: RunContext[Any], *, output_context: OutputContext, output: Any) -> Any:
        seen.append(('after_output_process', output, workflow.in_workflow()))
        return output * 2


def guess(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    value = 3 if len(messages) == 1 else 21
    return ModelResponse(parts=[ToolCallPart('final_result', {'response': value}, f'call-{len(messages)}')])


async def test_output_hooks_run_in_the_workflow_and_their_model_retry_asks_again(client: Client, task_queue: str):
    seen.clear()
    agent = Agent(FunctionModel(guess), output_type=int, name='output_hook_agent', capabilities=[AtLeastTen()])
    async with build_worker(client, {'output_hook_agent': agent}, task_queue=task_queue):
        result = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='output_hook_agent', prompt='pick a number'),
            id=f'output-hooks-{uuid.uuid4()}',
            task_queue=task_queue,
        )

    assert result.output == 42
    # Replays of the workflow task may repeat entries; each distinct call ran in the workflow.
    assert sorted(set(seen)) == [
        ('after_output_process', 21, True),
        ('after_output_validate', 3, True),
        ('after_output_validate', 21, True),
    ]
