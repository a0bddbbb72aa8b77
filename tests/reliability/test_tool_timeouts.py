"""A tool's `timeout=` means the same durably as in-process: the model gets a retry prompt, counted as a retry."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import pytest
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ApplicationError

from agent import Agent, UserError
from agent.exceptions import ToolRetriesExhausted
from agent.messages import ModelMessage, ModelRequest, ModelResponse, RetryPromptPart, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel
from tests.durable._parity_harness import normalized
from worker import build_worker
from workflows import ActivityOptions, AgentRunInput, AgentRunOutput, AgentWorkflow, DurableAgent

pytestmark = pytest.mark.asyncio(loop_scope='session')

TIMEOUT = 0.2


def call_slow_until_answered(calls: int) -> FunctionModel:
    """Calls `slow` `calls` times (each after the previous one failed), then answers with what it got back."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompts = [
            p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, RetryPromptPart)
        ]
        if len(prompts) < calls:
            return ModelResponse(parts=[ToolCallPart('slow', {}, f'slow-{len(prompts)}')])
        return ModelResponse(parts=[TextPart(f'got: {prompts[-1].content}')])

    return FunctionModel(respond)


def slow_agent(name: str, calls: int) -> Agent[None, str]:
    agent = Agent(call_slow_until_answered(calls), name=name)

    @agent.tool_plain(timeout=TIMEOUT, retries=1)
    async def slow() -> str:
        """Take far longer than the tool's timeout."""
        await asyncio.sleep(60)
        return 'finished'

    return agent


async def run_durably(client: Client, task_queue: str, agent: Agent[None, str]) -> AgentRunOutput:
    assert agent.name is not None
    async with build_worker(client, {agent.name: agent}, task_queue=task_queue):
        return await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent=agent.name, prompt='go'),
            id=f'timeouts-{uuid.uuid4()}',
            task_queue=task_queue,
            execution_timeout=timedelta(seconds=30),
        )


async def test_a_timed_out_tool_gives_the_model_the_same_retry_prompt_durably_as_in_process(
    client: Client, task_queue: str
) -> None:
    agent = slow_agent('slow_once', calls=1)
    in_process = await agent.run('go')
    durable = await run_durably(client, task_queue, agent)

    assert in_process.output == durable.output == f'got: Timed out after {TIMEOUT} seconds.'
    assert normalized(durable.new_messages) == normalized(in_process.new_messages())
    prompt = durable.new_messages[2].parts[0]
    assert isinstance(prompt, RetryPromptPart)
    assert (prompt.tool_name, prompt.tool_call_id) == ('slow', 'slow-0')


async def test_timeouts_count_against_the_tools_retries_durably_as_in_process(client: Client, task_queue: str) -> None:
    agent = slow_agent('slow_twice', calls=2)
    with pytest.raises(ToolRetriesExhausted) as raised:
        await agent.run('go')

    with pytest.raises(WorkflowFailureError) as failure:
        await run_durably(client, task_queue, agent)
    assert str(raised.value).startswith(f"Tool 'slow' exceeded max retries count of 1: Timed out after {TIMEOUT} s")
    cause = failure.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == 'ToolRetriesExhausted'
    assert str(raised.value) in cause.message


async def test_a_tool_activity_that_would_time_out_before_the_tool_is_refused_at_build_worker(
    client: Client, task_queue: str
) -> None:
    agent = Agent(call_slow_until_answered(1), name='patient')

    @agent.tool_plain(timeout=120)
    def patient() -> str:
        """Allowed two minutes."""
        return 'done'

    short = ActivityOptions(start_to_close_timeout=timedelta(seconds=60))
    with pytest.raises(UserError, match=r"tool 'patient' has timeout=120.*start_to_close_timeout of 60"):
        build_worker(client, {'patient': DurableAgent(agent, tool_activity=short)}, task_queue=task_queue)
    # The same timeout under an activity that allows for it is fine.
    build_worker(client, {'patient': DurableAgent(agent)}, task_queue=task_queue)
