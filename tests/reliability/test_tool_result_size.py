"""A tool result too large for one payload is refused at that call: the model is told, and the run stays readable."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from pydantic_core import to_json
from temporalio.client import Client

from agent import Agent, UserError
from agent.messages import (
    BinaryContent,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturn,
    ToolReturnPart,
)
from agent.models.function import AgentInfo, FunctionModel
from tests.durable._parity_harness import normalized
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow, DurableAgent, MessagePage

pytestmark = pytest.mark.asyncio(loop_scope='session')

DEFAULT_LIMIT = 512 * 1024


def call_once_then_tell(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Calls `produce` once, then answers with the retry prompt it got, or the size of the result."""
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart('produce', {}, 'produce-1')])
    parts = messages[-1].parts
    retry = next((p for p in parts if isinstance(p, RetryPromptPart)), None)
    if retry is not None:
        return ModelResponse(parts=[TextPart(f'refused: {retry.content}')])
    returned = next(p for p in parts if isinstance(p, ToolReturnPart))
    return ModelResponse(parts=[TextPart(f'accepted: {len(to_json(returned.content))} bytes')])


def producing(name: str, result: Callable[[], Any]) -> Agent[None, str]:
    agent = Agent(FunctionModel(call_once_then_tell), name=name)

    @agent.tool_plain
    def produce() -> Any:
        """Produce a result of a set size."""
        return result()

    return agent


async def run(client: Client, task_queue: str, entry: Agent[None, str] | DurableAgent) -> AgentRunOutput:
    """Runs the agent durably; returns its result with every new message read back through the query."""
    agent = entry.agent if isinstance(entry, DurableAgent) else entry
    assert agent.name is not None
    async with build_worker(client, {agent.name: entry}, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent=agent.name, prompt='go'),
            id=f'size-{uuid.uuid4()}',
            task_queue=task_queue,
            execution_timeout=timedelta(seconds=60),
        )
        result: AgentRunOutput = await handle.result()
        # Every page of the `new_messages` query, as a client reading the whole run asks for them.
        pages: list[ModelMessage] = []
        while len(pages) < len(result.new_messages) + result.earlier_messages_omitted:
            pages.extend(await handle.query(AgentWorkflow.new_messages, MessagePage(offset=len(pages), limit=1)))
    assert normalized(pages[-len(result.new_messages) :]) == normalized(result.new_messages)
    return replace(result, new_messages=pages, earlier_messages_omitted=0)


def refusal(size: int, limit: int) -> str:
    return f'refused: The tool result is {size} bytes of JSON, more than the {limit} bytes'


async def test_a_3_mb_tool_result_is_refused_at_the_call_and_the_run_stays_readable(
    client: Client, task_queue: str
) -> None:
    big = 'x' * 3_000_000
    result = await run(client, task_queue, producing('three_mb', lambda: big))

    assert result.output.startswith(refusal(len(to_json(big)), DEFAULT_LIMIT))
    messages = result.new_messages
    assert [m.kind for m in messages] == ['request', 'response', 'request', 'response']
    prompt = messages[2].parts[0]
    assert isinstance(prompt, RetryPromptPart)
    assert (prompt.tool_name, prompt.tool_call_id) == ('produce', 'produce-1')
    assert len(ModelMessagesTypeAdapter.dump_json(messages)) < 10_000  # the refused result is nowhere


SMALL_LIMIT = 10_000
BLOB = bytes(range(256)) * 40  # 10,240 bytes: over the small limit even before base64


@pytest.mark.parametrize(
    ('name', 'result'),
    [
        ('plain_value', lambda: {'rows': ['y' * 100] * 100}),
        (
            'tool_return_content',
            lambda: ToolReturn('see the image', content=[BinaryContent(BLOB, media_type='image/png')]),
        ),
        ('tool_return_metadata', lambda: ToolReturn('ok', metadata={'raw': 'z' * SMALL_LIMIT})),
        ('binary', lambda: BinaryContent(BLOB, media_type='application/pdf')),
        ('content_list', lambda: ['caption', BinaryContent(BLOB, media_type='image/png')]),
    ],
)
async def test_a_configured_limit_applies_to_results_of_every_kind(
    client: Client, task_queue: str, name: str, result: Callable[[], Any]
) -> None:
    agent = producing(f'limited_{name}', result)
    run_result = await run(client, task_queue, DurableAgent(agent, max_tool_result_bytes=SMALL_LIMIT))

    assert run_result.output.startswith(refusal(len(to_json(result())), SMALL_LIMIT))


async def test_a_result_within_the_configured_limit_reaches_the_model(client: Client, task_queue: str) -> None:
    agent = producing('within_limit', lambda: 'w' * 5_000)
    result = await run(client, task_queue, DurableAgent(agent, max_tool_result_bytes=SMALL_LIMIT))

    assert result.output == 'accepted: 5002 bytes'


@pytest.mark.parametrize('limit', [0, -1, 2 * 1024 * 1024])
async def test_a_limit_a_payload_cannot_carry_is_refused_at_build_worker(
    client: Client, task_queue: str, limit: int
) -> None:
    agent = producing('misconfigured', lambda: 'ok')
    with pytest.raises(UserError, match='max_tool_result_bytes'):
        build_worker(client, {'misconfigured': DurableAgent(agent, max_tool_result_bytes=limit)}, task_queue=task_queue)
