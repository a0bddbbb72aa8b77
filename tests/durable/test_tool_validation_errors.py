"""A `ValidationError` from a tool or a tool-execute hook is a retry prompt in durable runs too.

Tools and tool-execute hooks run in the call-tool activity; the error crosses the activity boundary and the
workflow turns it back into the same `ValidationError`, so the model gets the same retry prompt as in-process.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any

import pytest
from pydantic import Field, TypeAdapter
from temporalio.client import Client

from agent import Agent, RunContext
from agent.capabilities import Hooks
from agent.messages import ModelMessage, ModelRequest, ModelResponse, RetryPromptPart, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel
from agent.tools import ToolDefinition
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow

from ._parity_harness import normalized

pytestmark = pytest.mark.asyncio(loop_scope='session')

_POSITIVE: TypeAdapter[int] = TypeAdapter(Annotated[int, Field(gt=0)])


def _negative_then_positive(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    # Stateless, so both runs get the same answers: a bad number first, a good one after a retry prompt.
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart('double', {'n': -1}, 'call-1')])
    if any(isinstance(part, RetryPromptPart) for part in last.parts):
        return ModelResponse(parts=[ToolCallPart('double', {'n': 2}, 'call-2')])
    return ModelResponse(parts=[TextPart(f'done: {last.parts[0].content}')])


def _agent_validating_in_the_tool(name: str) -> Agent[None, str]:
    agent = Agent(FunctionModel(_negative_then_positive), name=name)

    @agent.tool_plain
    def double(n: int) -> int:
        return _POSITIVE.validate_python(n) * 2

    return agent


def _agent_validating_in_a_hook(name: str) -> Agent[None, str]:
    hooks = Hooks[None]()

    @hooks.on.after_tool_execute
    def positive_results_only(
        ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: dict[str, Any], result: Any
    ) -> Any:
        return _POSITIVE.validate_python(result)

    agent = Agent(FunctionModel(_negative_then_positive), name=name, capabilities=[hooks])

    @agent.tool_plain
    def double(n: int) -> int:
        return n * 2

    return agent


@pytest.mark.parametrize('make_agent', [_agent_validating_in_the_tool, _agent_validating_in_a_hook])
async def test_a_validation_error_in_the_call_tool_activity_becomes_the_in_process_retry_prompt(
    client: Client, task_queue: str, make_agent: Any
) -> None:
    local = await make_agent('validating_local').run('double it')
    async with build_worker(client, {'validating': make_agent('validating')}, task_queue=task_queue):
        durable: AgentRunOutput = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='validating', prompt='double it'),
            id=f'validating-{uuid.uuid4()}',
            task_queue=task_queue,
        )

    assert durable.output == local.output == 'done: 4'
    retry = durable.new_messages[2].parts[0]
    assert isinstance(retry, RetryPromptPart)
    assert isinstance(retry.content, list)
    assert [(e['type'], e['msg']) for e in retry.content] == [('greater_than', 'Input should be greater than 0')]
    assert normalized(durable.new_messages) == normalized(local.new_messages())
