"""`RunContext.enqueue`: messages injected into a running conversation, `'asap'` or `'when_idle'`."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent import Agent, ModelRequestContext, RunContext, UserError
from agent.capabilities import AbstractCapability
from agent.messages import (
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from agent.models.function import AgentInfo, FunctionModel
from agent.usage import RunUsage


def describe(message: ModelMessage) -> list[str]:
    return [f'{part.part_kind}:{getattr(part, "content", "")}' for part in message.parts]


def recording_model(requests: list[list[str]]) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        requests.append(describe(messages[-1]))
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('note', {})])
        return ModelResponse(parts=[TextPart(f'answer after {len(requests)} requests')])

    return FunctionModel(respond)


def test_asap_messages_join_the_next_request_and_when_idle_ones_redirect_the_ending_run() -> None:
    requests: list[list[str]] = []
    agent = Agent(recording_model(requests))

    @agent.tool
    def note(ctx: RunContext[None]) -> str:
        ctx.enqueue('check the weather too', priority='when_idle')
        ctx.enqueue('urgent: be brief', SystemPromptPart('stay polite'))
        return 'noted'

    result = agent.run_sync('hi')
    assert requests == [
        ['user-prompt:hi'],
        ['tool-return:noted', 'user-prompt:urgent: be brief', 'system-prompt:stay polite'],
        ['user-prompt:check the weather too'],
    ]
    assert result.output == 'answer after 3 requests'


def test_adjacent_user_content_is_gathered_into_one_prompt_part() -> None:
    requests: list[list[str]] = []
    agent = Agent(recording_model(requests))
    image = ImageUrl('https://example.com/cat.png')

    @agent.tool
    def note(ctx: RunContext[None]) -> str:
        ctx.enqueue('look at', image, 'this')
        return 'noted'

    result = agent.run_sync('hi')
    # The history keeps the tool's result and the enqueued request apart (the model gets them as one).
    tool_results, enqueued = result.all_messages()[2:4]
    assert isinstance(tool_results, ModelRequest)
    assert [part.part_kind for part in tool_results.parts] == ['tool-return']
    assert isinstance(enqueued, ModelRequest)
    assert enqueued.run_id == result.run_id
    [prompt] = enqueued.parts
    assert isinstance(prompt, UserPromptPart)
    assert prompt.content == ['look at', image, 'this']


def test_asap_message_enqueued_at_the_end_redirects_the_run() -> None:
    requests: list[list[str]] = []

    class FollowUp(AbstractCapability[Any]):
        fired = False

        async def after_model_request(
            self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
        ) -> ModelResponse:
            if not FollowUp.fired and response.text:
                FollowUp.fired = True
                ctx.enqueue('one more thing')
            return response

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        requests.append(describe(messages[-1]))
        return ModelResponse(parts=[TextPart(f'reply {len(requests)}')])

    result = Agent(FunctionModel(respond), capabilities=[FollowUp()]).run_sync('hello')
    assert requests == [['user-prompt:hello'], ['user-prompt:one more thing']]
    assert result.output == 'reply 2'


def test_enqueue_with_a_complete_response_must_end_in_a_request() -> None:
    agent = Agent(recording_model([]))

    @agent.tool
    def note(ctx: RunContext[None]) -> str:
        ctx.enqueue(ModelResponse(parts=[TextPart('pretend I said this')]))
        return 'noted'

    with pytest.raises(UserError, match='must end with a `ModelRequest`'):
        agent.run_sync('hi')


def test_enqueue_outside_a_run_raises_user_error() -> None:
    ctx = RunContext[None](deps=None, model=None, usage=RunUsage())  # type: ignore[arg-type]
    with pytest.raises(UserError, match='only available during an agent run'):
        ctx.enqueue('hello')
    with pytest.raises(UserError, match='only available during an agent run'):
        ctx.enqueue()  # even with nothing to send: there is no run to send it to


def test_system_prompt_parts_context_cannot_enqueue() -> None:
    agent = Agent('test')
    errors: list[str] = []

    @agent.system_prompt
    def prompt(ctx: RunContext[None]) -> str:
        try:
            ctx.enqueue('x')
        except UserError as exc:
            errors.append(str(exc))
        return 'You are helpful.'

    parts = asyncio.run(agent.system_prompt_parts())
    assert [p.content for p in parts] == ['You are helpful.']
    assert len(errors) == 1


def test_an_enqueued_request_keeps_the_instructions_and_metadata_its_producer_gave_it() -> None:
    requests: list[list[str]] = []
    agent = Agent(recording_model(requests), instructions='Answer briefly.')
    relayed = ModelRequest(parts=[UserPromptPart('from the webhook')], instructions='Quote it verbatim.')
    relayed.metadata = {'origin': 'webhook'}

    @agent.tool
    def note(ctx: RunContext[None]) -> str:
        ctx.enqueue(relayed)
        return 'noted'

    result = agent.run_sync('hi')
    recorded = [m for m in result.all_messages() if isinstance(m, ModelRequest) and m.metadata == {'origin': 'webhook'}]
    assert [m.instructions for m in recorded] == ['Quote it verbatim.']
    assert recorded[0].run_id == result.run_id


def test_at_the_end_leftover_asap_and_when_idle_messages_share_one_more_turn() -> None:
    requests: list[list[str]] = []

    class LateNotes(AbstractCapability[None]):
        async def after_model_request(self, ctx: RunContext[None], *, request_context: Any, response: Any) -> Any:
            if ctx.run_step == 2:  # the answer that would end the run
                ctx.enqueue('later, please', priority='when_idle')
                ctx.enqueue('right now')
            return response

    result = Agent(recording_model(requests), capabilities=[LateNotes()]).run_sync('hi')
    assert requests[2:] == [['user-prompt:right now', 'user-prompt:later, please']]
    assert result.output == 'answer after 3 requests'
