"""`AbstractAgent` is the interface `Agent` implements; `WrapperAgent` forwards all of it to a wrapped agent."""

from __future__ import annotations

from typing import Any

import pytest

from agent import Agent, AgentRunResultEvent, RunContext
from agent.agent import AbstractAgent, WrapperAgent
from agent.messages import ModelRequest
from agent.models.test import TestModel


def test_agent_is_an_abstract_agent_and_the_abstract_class_cannot_be_instantiated() -> None:
    assert isinstance(Agent('test'), AbstractAgent)
    with pytest.raises(TypeError, match='abstract'):
        AbstractAgent()  # type: ignore[abstract]


def test_wrapper_forwards_configuration_to_the_wrapped_agent() -> None:
    inner = Agent('test', name='inner', output_type=int, deps_type=str)
    wrapper = WrapperAgent(inner)
    assert (wrapper.name, wrapper.output_type, wrapper.deps_type, wrapper.model) == ('inner', int, str, inner.model)
    assert wrapper.toolsets == inner.toolsets
    wrapper.name = 'renamed'
    assert inner.name == 'renamed'


async def test_wrapper_runs_through_the_wrapped_agent_in_every_style() -> None:
    wrapper = WrapperAgent(Agent(TestModel(custom_output_text='hello')))
    assert (await wrapper.run('hi')).output == 'hello'
    async with wrapper.iter('hi') as agent_run:
        async for _ in agent_run:
            pass
    assert agent_run.result is not None
    assert agent_run.result.output == 'hello'
    async with wrapper.run_stream('hi') as streamed:
        assert await streamed.get_output() == 'hello'
    async with wrapper.run_stream_events('hi') as stream:
        events = [event async for event in stream]
    assert isinstance(events[-1], AgentRunResultEvent)
    assert events[-1].result.output == 'hello'
    async with wrapper:
        assert (await wrapper.run('again')).output == 'hello'


def test_wrapper_run_sync_and_override_reach_the_wrapped_agent() -> None:
    inner = Agent(TestModel(custom_output_text='real'))
    wrapper = WrapperAgent(inner)
    with wrapper.override(model=TestModel(custom_output_text='overridden')):
        assert wrapper.run_sync('hi').output == 'overridden'
        assert inner.run_sync('hi').output == 'overridden'
    assert wrapper.run_sync('hi').output == 'real'


def test_subclassing_the_wrapper_changes_one_behaviour_and_keeps_the_rest() -> None:
    prompts: list[Any] = []

    class Recording(WrapperAgent[None, str]):
        async def run(self, user_prompt: Any = None, **kwargs: Any) -> Any:
            prompts.append(user_prompt)
            return await super().run(user_prompt, **kwargs)

    agent = Recording(Agent(TestModel(custom_output_text='ok')))
    assert agent.run_sync('first').output == 'ok'
    assert prompts == ['first']


async def test_system_prompt_parts_are_the_wrapped_agents_evaluated_with_the_given_context():
    agent = Agent('test', system_prompt='Be kind.')

    @agent.system_prompt
    def greeting(ctx: RunContext[str]) -> str:
        return f'The user is {ctx.deps}; they said {ctx.prompt!r} after {len(ctx.messages)} messages.'

    parts = await WrapperAgent(agent).system_prompt_parts(
        deps='Ann', prompt='hi', message_history=[ModelRequest.user_text_prompt('earlier')]
    )

    assert [part.content for part in parts] == ['Be kind.', "The user is Ann; they said 'hi' after 1 messages."]
