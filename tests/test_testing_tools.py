"""Testing tools: `Agent.override`, `capture_run_messages`, and what TestModel/FunctionModel produce in runs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent import Agent, ModelRetry, RunContext, UnexpectedModelBehavior, UserError, capture_run_messages
from agent.agent import capture_run_messages as capture_from_agent_module
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel
from agent.toolsets import FunctionToolset
from agent.usage import RequestUsage


def _answer_with_instructions(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart(info.instructions or '<none>')])


# ----- override -----


def test_override_model_wins_over_the_agents_and_the_runs_model_and_is_restored_after():
    agent = Agent(TestModel(custom_output_text='agent model'))

    with agent.override(model=TestModel(custom_output_text='override')):
        inside = agent.run_sync('hi', model=TestModel(custom_output_text='run model')).output
    after = agent.run_sync('hi').output

    assert (inside, after) == ('override', 'agent model')


def test_override_deps_replaces_the_deps_a_run_passes():
    agent = Agent(TestModel(), deps_type=str)

    @agent.tool
    def whoami(ctx: RunContext[str]) -> str:
        return ctx.deps

    with agent.override(deps='fake'):
        result = agent.run_sync('hi', deps='real')

    assert result.output == '{"whoami":"fake"}'


def test_override_tools_and_toolsets_replace_the_agents_tools_and_the_runs_toolsets():
    agent = Agent(TestModel(), toolsets=[FunctionToolset([lambda: 'agent toolset'])])

    @agent.tool_plain
    def registered() -> str:
        return 'registered'

    def replacement() -> str:
        return 'replaced'

    def extra() -> str:
        return 'extra'

    with agent.override(tools=[replacement], toolsets=[FunctionToolset([extra])]):
        result = agent.run_sync('hi', toolsets=[FunctionToolset([lambda: 'run toolset'])])

    assert result.output == '{"replacement":"replaced","extra":"extra"}'


def test_override_instructions_replace_the_agents_and_the_runs():
    agent = Agent(FunctionModel(_answer_with_instructions), instructions='agent instructions')

    with agent.override(instructions='overridden'):
        inside = agent.run_sync('hi', instructions='run instructions').output
    after = agent.run_sync('hi').output

    assert (inside, after) == ('overridden', 'agent instructions')


def test_overrides_nest_and_unwind_in_order():
    agent = Agent(TestModel(), name='base')

    with agent.override(name='outer', model=TestModel(custom_output_text='outer')):
        with agent.override(name='inner'):
            inner = (agent.name, agent.run_sync('hi').output)
        outer = agent.name

    assert inner == ('inner', 'outer')
    assert (outer, agent.name) == ('outer', 'base')


async def test_an_override_does_not_leak_into_runs_outside_its_context():
    agent = Agent(TestModel(custom_output_text='normal'))
    entered = asyncio.Event()
    release = asyncio.Event()

    async def overridden() -> str:
        with agent.override(model=TestModel(custom_output_text='overridden')):
            entered.set()
            await release.wait()
            return (await agent.run('hi')).output

    task = asyncio.create_task(overridden())
    await entered.wait()
    outside = (await agent.run('hi')).output
    release.set()

    assert (outside, await task) == ('normal', 'overridden')


def test_override_model_settings_metadata_and_output_retries():
    seen: list[Any] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info.model_settings)
        return ModelResponse(parts=[TextPart('ok')])

    agent = Agent(FunctionModel(respond), model_settings={'temperature': 0.1}, metadata={'team': 'a'})

    with agent.override(model_settings={'max_tokens': 5}, metadata={'team': 'b'}, retries=4):
        result = agent.run_sync('hi', model_settings={'temperature': 0.9}, metadata={'extra': 1})
        retries = agent._max_result_retries

    assert seen == [{'max_tokens': 5}]
    assert result.metadata == {'team': 'b'}
    assert retries == 4


def test_override_cannot_change_tool_retries():
    agent = Agent(TestModel())

    with pytest.raises(UserError, match='tool retries'), agent.override(retries={'tools': 3}):
        pass


def test_override_spec_supplies_values_that_explicit_arguments_beat():
    agent = Agent(FunctionModel(_answer_with_instructions), name='base')

    with agent.override(spec={'name': 'from spec', 'instructions': 'spec instructions'}):
        from_spec = (agent.name, agent.run_sync('hi').output)
    with agent.override(spec={'name': 'from spec'}, name='explicit'):
        explicit = agent.name

    assert from_spec == ('from spec', 'spec instructions')
    assert explicit == 'explicit'


# ----- capture_run_messages -----


def test_capture_run_messages_keeps_the_messages_of_a_failed_run():
    agent = Agent(TestModel())

    @agent.tool_plain(retries=0)
    def broken(x: int) -> str:
        raise ModelRetry('always broken')

    with capture_run_messages() as messages, pytest.raises(UnexpectedModelBehavior):
        agent.run_sync('hi')

    assert capture_run_messages is capture_from_agent_module
    assert [type(m).__name__ for m in messages] == ['ModelRequest', 'ModelResponse']
    assert messages[1].parts == [ToolCallPart('broken', {'x': 0}, 'pyd_ai_tool_call_id__broken')]


def test_capture_run_messages_captures_only_the_first_run_in_the_block():
    agent = Agent(TestModel())

    with capture_run_messages() as messages:
        agent.run_sync('first')
        agent.run_sync('second')

    first_request = messages[0]
    assert isinstance(first_request, ModelRequest)
    assert first_request.parts[0].content == 'first'


# ----- TestModel and FunctionModel inside runs -----


def test_test_model_run_matches_pydantic_ais_messages_ids_and_usage():
    agent = Agent(TestModel())
    calls = 0

    @agent.tool_plain
    def my_ret(x: int) -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ModelRetry('First call failed')
        return str(x + 1)

    result = agent.run_sync('Hello')

    responses = [m for m in result.all_messages() if isinstance(m, ModelResponse)]
    assert responses[0].parts == [ToolCallPart('my_ret', {'x': 0}, 'pyd_ai_tool_call_id__my_ret')]
    # 50 tokens of overhead + 'Hello'; the call is 1 + '{', 'x', '0}'.
    assert responses[0].usage == RequestUsage(input_tokens=51, output_tokens=4)
    assert (responses[0].model_name, responses[0].provider_name, responses[0].finish_reason) == ('test', None, None)
    retried = responses[1].parts[0]
    assert isinstance(retried, ToolCallPart)
    assert (retried.args, retried.tool_call_id != 'pyd_ai_tool_call_id__my_ret') == ({'x': 0}, True)
    assert responses[2].parts == [TextPart('{"my_ret":"1"}')]
    assert result.output == '{"my_ret":"1"}'


def test_test_model_answers_an_output_tool_with_the_pydantic_ai_call_id():
    agent = Agent(TestModel(custom_output_args=['a', 'b']), output_type=tuple[str, str])

    result = agent.run_sync('x')

    assert result.output == ('a', 'b')
    response = result.all_messages()[1]
    assert isinstance(response, ModelResponse)
    assert response.parts == [
        ToolCallPart('final_result', {'response': ['a', 'b']}, 'pyd_ai_tool_call_id__final_result')
    ]
    assert response.usage == RequestUsage(input_tokens=51, output_tokens=7)
    assert isinstance(result.all_messages()[2], ModelRequest)
    assert isinstance(result.all_messages()[2].parts[0], ToolReturnPart)


def test_function_model_responses_are_named_after_both_functions():
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart('hello world')])

    result = Agent(FunctionModel(answer)).run_sync('Hi there')

    response = result.all_messages()[1]
    assert isinstance(response, ModelResponse)
    assert response.model_name == 'function:answer:'
    assert response.usage == RequestUsage(input_tokens=52, output_tokens=2)


def test_overriding_the_model_of_an_agent_without_one_still_fails_the_run():
    agent = Agent()

    with agent.override(model='test'), pytest.raises(UserError, match=r'^`model` must either be set on the agent'):
        agent.run_sync('hi')
    assert Agent('test').run_sync('hi').output == 'success (no tool calls)'
