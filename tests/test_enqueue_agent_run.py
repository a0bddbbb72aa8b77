"""`AgentRun.enqueue`: code driving a run from outside queues messages for it, as a tool would with `ctx.enqueue`."""

from __future__ import annotations

import pytest

from agent import Agent, RunContext, UserError
from agent._enqueue import PendingMessage
from agent.graph import End
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from agent.models.function import AgentInfo, FunctionModel


def prompts_seen(seen: list[list[str]]) -> FunctionModel:
    """A model that answers every request and records the user prompts of the request it answered."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        seen.append([str(p.content) for p in last.parts if isinstance(p, UserPromptPart)])
        return ModelResponse(parts=[TextPart(f'reply {len(seen)}')])

    return FunctionModel(respond)


async def test_a_when_idle_message_enqueued_from_outside_gets_its_own_turn() -> None:
    seen: list[list[str]] = []
    async with Agent(prompts_seen(seen)).iter('plan my day') as agent_run:
        assert agent_run.pending_messages == []
        agent_run.enqueue('and book a table for two', priority='when_idle')
        assert [p.priority for p in agent_run.pending_messages] == ['when_idle']
        node = agent_run.next_node
        while not isinstance(node, End):
            node = await agent_run.next(node)
        assert agent_run.pending_messages == []
    assert seen == [['plan my day'], ['and book a table for two']]
    assert agent_run.result is not None
    assert agent_run.result.output == 'reply 2'


async def test_each_enqueue_call_is_one_queue_entry_and_an_empty_call_adds_nothing() -> None:
    async with Agent(prompts_seen([])).iter('hi') as agent_run:
        agent_run.enqueue()
        assert agent_run.pending_messages == []
        synthetic = ModelResponse(parts=[TextPart('earlier answer')])
        agent_run.enqueue(synthetic, 'so, about that answer')
        agent_run.enqueue('one more thing')
        queued = agent_run.pending_messages
        assert [len(entry.messages) for entry in queued] == [2, 1]
        assert queued[0].messages[0] is synthetic
        assert queued[0].priority == 'asap'


async def test_agent_run_enqueue_rejects_content_that_does_not_end_in_a_request() -> None:
    async with Agent(prompts_seen([])).iter('hi') as agent_run:
        with pytest.raises(UserError, match='must end with a `ModelRequest`'):
            agent_run.enqueue(ModelResponse(parts=[TextPart('a lone answer')]))
        assert agent_run.pending_messages == []


def test_a_queue_entry_appended_by_hand_that_ends_in_a_response_fails_the_run_clearly() -> None:
    agent = Agent(FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart('done')])))

    @agent.instructions
    def sneak(ctx: RunContext[None]) -> str:
        assert ctx.pending_messages is not None
        if ctx.run_step == 1:
            lone = ModelResponse(parts=[TextPart('nobody asked')])
            ctx.pending_messages.append(PendingMessage(messages=[lone], priority='when_idle'))
        return 'be helpful'

    with pytest.raises(UserError, match='last queued message is a `ModelResponse`'):
        agent.run_sync('hi')
