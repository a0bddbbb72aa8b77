"""A durable run adopts what its history processors return, as an in-process run does.

The processor runs in the model-request activity (or in the workflow, for one moved there with `hook_sides`); either
way the history it leaves is what the model gets and what the run's messages are from then on.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ActivityError, ApplicationError

from agent import Agent, RunContext
from agent.capabilities import HookSide, ProcessHistory
from agent.exceptions import UserError
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')

RUN_WAIT = 30.0  # seconds, for a loaded machine

EARLIER: list[ModelMessage] = [
    ModelRequest(parts=[UserPromptPart('What is the tallest mountain?')]),
    ModelResponse(parts=[TextPart('Everest.')]),
]


class _ProcessHistoryInWorkflow(ProcessHistory[Any]):
    hook_sides: ClassVar[dict[str, HookSide]] = {'before_model_request': 'workflow'}


def _summarized(ctx: RunContext[None], messages: list[ModelMessage]) -> list[ModelMessage]:
    """Keeps the turn in progress, after a note of the run's own saying how many earlier messages it replaces."""
    start = max(
        i
        for i, m in enumerate(messages)
        if isinstance(m, ModelRequest) and any(isinstance(p, UserPromptPart) for p in m.parts)
    )
    note = ModelRequest(parts=[UserPromptPart(f'({start} earlier messages left out)')], run_id=ctx.run_id)
    return [note, *messages[start:]]


def _shape(messages: list[ModelMessage]) -> list[tuple[str, list[str]]]:
    """What a message says, without its times and ids."""
    return [
        (m.kind, [str(getattr(p, 'content', None) or getattr(p, 'tool_name', '')) for p in m.parts]) for m in messages
    ]


def _agent(name: str, side: str, received: list[list[tuple[str, list[str]]]]) -> Agent[None, str]:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        received.append(_shape(messages))
        if not any(isinstance(p, ToolReturnPart) for p in messages[-1].parts):
            return ModelResponse(parts=[ToolCallPart('depth', {'lake': 'Baikal'}, 'c1')])
        return ModelResponse(parts=[TextPart('Baikal, 1642 m.')])

    capability = ProcessHistory(_summarized) if side == 'activity' else _ProcessHistoryInWorkflow(_summarized)
    agent = Agent(FunctionModel(respond), name=name, capabilities=[capability])

    @agent.tool_plain
    def depth(lake: str) -> str:
        return f'{lake}: 1642 m'

    return agent


async def _run_durably(client: Client, task_queue: str, agent: Agent[Any, Any], **kwargs: Any) -> AgentRunOutput:
    assert agent.name is not None
    async with build_worker(client, {agent.name: agent}, task_queue=task_queue):
        async with asyncio.timeout(RUN_WAIT):
            return await client.execute_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent=agent.name, **kwargs),
                id=f'history-processors-{uuid.uuid4()}',
                task_queue=task_queue,
            )


@pytest.mark.parametrize('side', ['activity', 'workflow'])
async def test_a_durable_run_keeps_what_its_history_processor_returned_as_in_process(
    client: Client, task_queue: str, side: str
) -> None:
    in_process_received: list[list[tuple[str, list[str]]]] = []
    in_process = await _agent('summarizing', side, in_process_received).run(
        'And the deepest lake?', message_history=EARLIER
    )
    durable_received: list[list[tuple[str, list[str]]]] = []
    durable = await _run_durably(
        client,
        task_queue,
        _agent('summarizing', side, durable_received),
        prompt='And the deepest lake?',
        message_history=EARLIER,
    )

    assert durable.output == in_process.output == 'Baikal, 1642 m.'
    # The model got the processed history, adjacent requests as one, at each step.
    assert durable_received == in_process_received
    assert in_process_received[0] == [('request', ['(2 earlier messages left out)', 'And the deepest lake?'])]
    # At the next step the earlier turn is already gone: only the previous note is left out.
    assert in_process_received[1][0] == ('request', ['(1 earlier messages left out)', 'And the deepest lake?'])
    # The processor's note (tagged with the run's id) replaced the earlier turn in the run's messages.
    expected = [
        ('request', ['(1 earlier messages left out)']),
        ('request', ['And the deepest lake?']),
        ('response', ['depth']),
        ('request', ['Baikal: 1642 m']),
        ('response', ['Baikal, 1642 m.']),
    ]
    assert _shape(in_process.new_messages()) == expected
    assert _shape(durable.new_messages) == expected


def _nothing_left(messages: list[ModelMessage]) -> list[ModelMessage]:
    return []


@pytest.mark.parametrize(
    ('processor', 'message'),
    [
        (_nothing_left, 'Processed history cannot be empty.'),
        (lambda messages: messages[:1] + messages[1:-1], 'Processed history must end with a `ModelRequest`.'),
    ],
    ids=['empty', 'ending with a response'],
)
async def test_a_processed_history_the_model_cannot_be_sent_fails_the_durable_run_before_the_model_is_asked(
    client: Client, task_queue: str, processor: Callable[[list[ModelMessage]], list[ModelMessage]], message: str
) -> None:
    asked: list[int] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        asked.append(len(messages))  # pragma: no cover
        return ModelResponse(parts=[TextPart('unreachable')])  # pragma: no cover

    agent = Agent(FunctionModel(respond), name='over_trimming', capabilities=[ProcessHistory(processor)])
    with pytest.raises(UserError, match=message.replace('`', '.')):
        await agent.run('hi', message_history=EARLIER)

    with pytest.raises(WorkflowFailureError) as failed:
        await _run_durably(client, task_queue, agent, prompt='hi', message_history=EARLIER)
    activity_failure = failed.value.cause
    assert isinstance(activity_failure, ActivityError)
    cause = activity_failure.cause
    assert isinstance(cause, ApplicationError)
    assert (cause.type, cause.message) == ('UserError', message)
    assert asked == []
