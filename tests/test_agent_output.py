"""Run output: structured output tools, output validators, output retries, results' messages and run identity."""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pydantic
import pytest

from agent import Agent, ModelRetry, RunContext, ToolDefinition, ToolOutput
from agent.exceptions import UnexpectedModelBehavior, UserError
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel

Step = ModelResponse | Callable[[list[ModelMessage], AgentInfo], ModelResponse]

UUID7 = re.compile(r'^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$')


def scripted(*steps: Step) -> FunctionModel:
    """A model that answers each request with the next scripted response (or the response a step function builds)."""
    remaining = list(steps)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert remaining, 'the model was asked more often than the test scripted'
        step = remaining.pop(0)
        return step(messages, info) if callable(step) else step

    return FunctionModel(respond)


def call(tool_name: str, args: str | dict[str, Any] | None = None, call_id: str | None = None) -> ModelResponse:
    part = ToolCallPart(tool_name, args) if call_id is None else ToolCallPart(tool_name, args, call_id)
    return ModelResponse(parts=[part])


def text(content: str) -> ModelResponse:
    return ModelResponse(parts=[TextPart(content)])


def parts_of(messages: list[ModelMessage], kind: type) -> list[Any]:
    return [part for m in messages if isinstance(m, ModelRequest) for part in m.parts if isinstance(part, kind)]


class City(pydantic.BaseModel):
    """A city and its population."""

    name: str
    population: int


@dataclass
class Weather:
    """A weather report."""

    city: str
    celsius: float


class ModelA(pydantic.BaseModel):
    a: int


class ModelB(pydantic.BaseModel):
    b: str


# ----- structured output -----


async def test_pydantic_model_output_comes_from_the_final_result_tool():
    model = TestModel()
    agent = Agent(model, output_type=City)

    result = await agent.run('Name a city')

    assert isinstance(result.output, City)
    assert model.last_model_request_parameters is not None
    [output_tool] = model.last_model_request_parameters.output_tools
    assert output_tool.name == 'final_result'
    assert output_tool.description == 'A city and its population.'
    assert set(output_tool.parameters_json_schema['properties']) == {'name', 'population'}
    assert model.last_model_request_parameters.allow_text_output is False
    response = result.all_messages()[1]
    assert isinstance(response, ModelResponse)
    assert [c.tool_name for c in response.tool_calls] == ['final_result']
    [tool_return] = parts_of(result.all_messages(), ToolReturnPart)
    assert (tool_return.tool_name, tool_return.content) == ('final_result', 'Final result processed.')


async def test_dataclass_output_is_validated_from_the_output_tool_args():
    agent = Agent(scripted(call('final_result', '{"city": "Oslo", "celsius": "-3.5"}')), output_type=Weather)

    result = await agent.run('Weather?')

    assert result.output == Weather('Oslo', -3.5)


async def test_test_model_custom_output_args_fill_the_output_tool():
    agent = Agent(TestModel(custom_output_args={'name': 'Lima', 'population': 10}), output_type=City)

    result = await agent.run('Name a city')

    assert result.output == City(name='Lima', population=10)


async def test_two_output_types_give_two_named_output_tools():
    seen: list[list[str]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append([t.name for t in info.output_tools])
        return call('final_result_ModelB', {'b': 'bee'})

    agent = Agent(FunctionModel(respond), output_type=[ModelA, ModelB])

    result = await agent.run('Pick one')

    assert seen == [['final_result_ModelA', 'final_result_ModelB']]
    assert result.output == ModelB(b='bee')


async def test_union_output_type_also_gives_one_tool_per_member():
    model = TestModel()
    agent = Agent(model, output_type=ModelA | ModelB)

    result = await agent.run('Pick one')

    assert model.last_model_request_parameters is not None
    assert [t.name for t in model.last_model_request_parameters.output_tools] == [
        'final_result_ModelA',
        'final_result_ModelB',
    ]
    assert isinstance(result.output, ModelA)


async def test_non_object_tool_output_is_wrapped_under_an_outer_key():
    seen: list[Any] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(info.output_tools)
        return call('answer', {'response': 42})

    agent = Agent(FunctionModel(respond), output_type=ToolOutput(int, name='answer', description='The answer.'))

    result = await agent.run('What is the answer?')

    assert result.output == 42
    [tool_def] = seen
    assert (tool_def.name, tool_def.description, tool_def.outer_typed_dict_key) == ('answer', 'The answer.', 'response')
    assert tool_def.parameters_json_schema['type'] == 'object'
    assert tool_def.parameters_json_schema['properties']['response'] == {'type': 'integer'}
    assert tool_def.parameters_json_schema['required'] == ['response']


async def test_test_model_answers_a_wrapped_output_tool():
    agent = Agent(TestModel(custom_output_args=7), output_type=ToolOutput(int, name='answer'))

    result = await agent.run('Number?')

    assert result.output == 7


async def test_list_output_is_wrapped_and_unwrapped():
    agent = Agent(scripted(call('final_result', {'response': ['a', 'b']})), output_type=list[str])

    result = await agent.run('List')

    assert result.output == ['a', 'b']


async def test_str_alongside_structured_output_allows_both_text_and_the_tool():
    seen: list[tuple[bool, list[str]]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append((info.allow_text_output, [t.name for t in info.output_tools]))
        return text('just text')

    agent = Agent(FunctionModel(respond), output_type=[str, City])

    result = await agent.run('Anything')

    assert seen == [(True, ['final_result'])]
    assert result.output == 'just text'


async def test_schema_invalid_output_args_get_a_retry_prompt_with_the_errors():
    agent = Agent(
        scripted(call('final_result', {'name': 'X'}, 'c1'), call('final_result', {'name': 'X', 'population': 1})),
        output_type=City,
    )

    result = await agent.run('City')

    assert result.output == City(name='X', population=1)
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert (retry.tool_name, retry.tool_call_id) == ('final_result', 'c1')
    assert isinstance(retry.content, list)
    assert [(e['type'], e['loc']) for e in retry.content] == [('missing', ('population',))]


async def test_plain_text_when_only_structured_output_is_allowed_gets_a_retry_prompt():
    agent = Agent(
        scripted(text('Paris, 2 million'), call('final_result', {'name': 'Paris', 'population': 2})), output_type=City
    )

    result = await agent.run('City')

    assert result.output == City(name='Paris', population=2)
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert retry.tool_name is None
    assert 'Plain text responses are not permitted' in retry.content
    assert 'final_result' in retry.content


async def test_empty_response_gets_a_retry_prompt():
    agent = Agent(scripted(ModelResponse(parts=[]), text('there you go')))

    result = await agent.run('Hello')

    assert result.output == 'there you go'
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert 'without text or tool calls' in retry.content


# ----- output validators -----


async def test_sync_output_validator_with_context_transforms_the_output():
    agent = Agent(TestModel(custom_output_text='hello'), deps_type=str)

    @agent.output_validator
    def shout(ctx: RunContext[str], output: str) -> str:
        return f'{output.upper()}{ctx.deps}'

    result = await agent.run('Greet', deps='!')

    assert result.output == 'HELLO!'


async def test_async_output_validator_without_context_transforms_structured_output():
    agent = Agent(TestModel(custom_output_args={'name': 'rome', 'population': 3}), output_type=City)

    @agent.output_validator
    async def capitalise(output: City) -> City:
        return output.model_copy(update={'name': output.name.title()})

    result = await agent.run('City')

    assert result.output == City(name='Rome', population=3)


async def test_output_validator_model_retry_asks_again_then_succeeds():
    seen_retries: list[int] = []
    agent = Agent(scripted(text('too short'), text('this one is long enough')), output_retries=2)

    @agent.output_validator
    def long_enough(ctx: RunContext[None], output: str) -> str:
        seen_retries.append(ctx.retry)
        if len(output) < 15:
            raise ModelRetry('Answer with at least 15 characters.')
        return output

    result = await agent.run('Talk')

    assert result.output == 'this one is long enough'
    assert seen_retries == [0, 1]
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert (retry.content, retry.tool_name) == ('Answer with at least 15 characters.', None)


async def test_output_validator_retry_on_an_output_tool_names_the_tool_call():
    agent = Agent(
        scripted(
            call('final_result', {'name': 'Nowhere', 'population': 0}, 'c1'),
            call('final_result', {'name': 'Bern', 'population': 1}, 'c2'),
        ),
        output_type=City,
    )

    @agent.output_validator
    def populated(ctx: RunContext[None], output: City) -> City:
        assert ctx.tool_name == 'final_result'
        if output.population == 0:
            raise ModelRetry('Pick a city people live in.')
        return output

    result = await agent.run('City')

    assert result.output == City(name='Bern', population=1)
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert (retry.content, retry.tool_name, retry.tool_call_id) == ('Pick a city people live in.', 'final_result', 'c1')


async def test_exhausted_output_retries_raise_unexpected_model_behavior():
    agent = Agent(scripted(text('a'), text('b'), text('c')), output_retries=1)

    @agent.output_validator
    def never_happy(output: str) -> str:
        raise ModelRetry('Not good enough.')

    with pytest.raises(UnexpectedModelBehavior, match='Exceeded maximum retries') as exc_info:
        await agent.run('Talk')

    assert 'Not good enough.' in str(exc_info.value)


async def test_exhausted_output_retries_on_bad_output_args_raise():
    agent = Agent(scripted(*[call('final_result', {'name': 'X'})] * 3), output_type=City, retries=1)

    with pytest.raises(UnexpectedModelBehavior):
        await agent.run('City')


async def test_custom_output_type_on_run_is_refused_when_the_agent_has_output_validators():
    agent = Agent(TestModel())

    @agent.output_validator
    def keep(output: str) -> str:
        return output

    with pytest.raises(UserError, match='output validators'):
        await agent.run('x', output_type=City)


async def test_output_type_given_to_run_overrides_the_agents():
    agent = Agent(TestModel(custom_output_args={'a': 5}))

    result = await agent.run('x', output_type=ModelA)

    assert result.output == ModelA(a=5)


# ----- messages of a result -----


def last_request(messages: list[ModelMessage]) -> ModelRequest:
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    return last


async def test_all_messages_can_replace_the_output_tool_return_content():
    agent = Agent(TestModel(), output_type=City)
    result = await agent.run('City')

    replaced = result.all_messages(output_tool_return_content='Thanks, got it.')

    assert replaced[:-1] == result.all_messages()[:-1]
    [part] = last_request(replaced).parts
    assert isinstance(part, ToolReturnPart)
    assert (part.tool_name, part.content) == ('final_result', 'Thanks, got it.')
    [new_part] = last_request(result.new_messages(output_tool_return_content='Noted.')).parts
    assert isinstance(new_part, ToolReturnPart)
    assert new_part.content == 'Noted.'
    [kept] = last_request(result.all_messages()).parts
    assert isinstance(kept, ToolReturnPart)
    assert kept.content == 'Final result processed.'


async def test_replacing_the_output_tool_return_content_keeps_everything_else():
    agent = Agent(TestModel(), output_type=City, instructions='Be exact.')
    result = await agent.run('City')

    original = last_request(result.all_messages())
    replaced = last_request(result.all_messages(output_tool_return_content='Thanks, got it.'))

    [original_part] = original.parts
    assert replaced == dataclasses.replace(
        original, parts=[dataclasses.replace(original_part, content='Thanks, got it.')]
    )
    assert replaced.conversation_id == result.conversation_id


async def test_new_messages_exclude_the_history_passed_in():
    agent = Agent(TestModel(custom_output_text='reply'))
    first = await agent.run('one')

    second = await agent.run('two', message_history=first.all_messages())

    assert len(first.all_messages()) == 2
    assert second.all_messages()[:2] == first.all_messages()
    new = second.new_messages()
    assert len(new) == 2
    assert isinstance(new[0], ModelRequest)
    assert isinstance(new[0].parts[0], UserPromptPart)
    assert new[0].parts[0].content == 'two'
    assert second.new_messages() == second.all_messages()[2:]


async def test_message_history_continues_the_conversation_for_the_model():
    seen: list[list[str]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompts = [p.content for p in parts_of(messages, UserPromptPart)]
        seen.append(prompts)
        return text(f'heard {len(prompts)} prompts')

    agent = Agent(FunctionModel(respond), system_prompt='Be kind.')
    first = await agent.run('My name is Ann.')
    second = await agent.run('What is my name?', message_history=first.all_messages())

    assert seen == [['My name is Ann.'], ['My name is Ann.', 'What is my name?']]
    assert second.output == 'heard 2 prompts'
    # The system prompt starts a conversation; it is not repeated when one is continued.
    system_prompts = [
        p
        for m in second.all_messages()
        if isinstance(m, ModelRequest)
        for p in m.parts
        if p.part_kind == 'system-prompt'
    ]
    assert len(system_prompts) == 1


async def test_passed_history_is_not_mutated_by_the_run():
    agent = Agent(TestModel(custom_output_text='ok'))
    first = await agent.run('one')
    history = first.all_messages()
    snapshot = list(history)

    await agent.run('two', message_history=history)

    assert history == snapshot
    assert len(history) == 2


# ----- run and conversation ids -----


async def test_every_message_of_a_run_is_stamped_with_its_run_and_conversation_ids():
    agent = Agent(TestModel())

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    result = await agent.run('go')

    messages = result.all_messages()
    assert len(messages) == 4
    assert {m.run_id for m in messages} == {result.run_id}
    assert {m.conversation_id for m in messages} == {result.conversation_id}
    assert UUID7.match(result.run_id)
    assert UUID7.match(result.conversation_id)
    assert uuid.UUID(result.conversation_id).version == 7


async def test_runs_get_distinct_run_ids_and_fresh_conversations_by_default():
    agent = Agent(TestModel())

    first = await agent.run('a')
    second = await agent.run('b')

    assert first.run_id != second.run_id
    assert first.conversation_id != second.conversation_id


async def test_explicit_conversation_id_is_used():
    agent = Agent(TestModel())

    result = await agent.run('a', conversation_id='conv-123')

    assert result.conversation_id == 'conv-123'
    assert {m.conversation_id for m in result.all_messages()} == {'conv-123'}


async def test_conversation_id_is_taken_from_the_history():
    agent = Agent(TestModel())
    first = await agent.run('a', conversation_id='conv-abc')

    second = await agent.run('b', message_history=first.all_messages())

    assert second.conversation_id == 'conv-abc'
    assert second.run_id != first.run_id
    assert {m.run_id for m in second.new_messages()} == {second.run_id}
    assert {m.run_id for m in second.all_messages()[:2]} == {first.run_id}


async def test_conversation_id_new_starts_a_fresh_conversation_despite_the_history():
    agent = Agent(TestModel())
    first = await agent.run('a', conversation_id='conv-abc')

    second = await agent.run('b', message_history=first.all_messages(), conversation_id='new')

    assert second.conversation_id not in ('conv-abc', 'new')
    assert UUID7.match(second.conversation_id)
    assert {m.conversation_id for m in second.new_messages()} == {second.conversation_id}


async def test_explicit_conversation_id_wins_over_the_history():
    agent = Agent(TestModel())
    first = await agent.run('a', conversation_id='conv-abc')

    second = await agent.run('b', message_history=first.all_messages(), conversation_id='conv-xyz')

    assert second.conversation_id == 'conv-xyz'


async def test_run_context_carries_the_run_and_conversation_ids():
    seen: list[tuple[str | None, str | None]] = []
    agent = Agent(scripted(call('probe'), text('done')))

    @agent.tool
    def probe(ctx: RunContext[None]) -> str:
        seen.append((ctx.run_id, ctx.conversation_id))
        return 'ok'

    result = await agent.run('go', conversation_id='conv-1')

    assert seen == [(result.run_id, 'conv-1')]


async def test_tool_output_max_retries_overrides_the_agents_output_retries():
    attempts = [call('final_result', {'name': 'X'})] * 3
    agent = Agent(
        scripted(*attempts, call('final_result', {'name': 'X', 'population': 1})),
        output_type=ToolOutput(City, max_retries=3),
        output_retries=1,
    )

    result = await agent.run('City')

    assert result.output == City(name='X', population=1)
    assert len(parts_of(result.all_messages(), RetryPromptPart)) == 3


async def test_only_the_first_of_several_output_tool_calls_is_used():
    agent = Agent(
        scripted(
            ModelResponse(
                parts=[
                    ToolCallPart('final_result', {'name': 'First', 'population': 1}, 'c1'),
                    ToolCallPart('final_result', {'name': 'Second', 'population': 2}, 'c2'),
                ]
            )
        ),
        output_type=City,
    )

    result = await agent.run('City')

    assert result.output == City(name='First', population=1)
    returns = {p.tool_call_id: p.content for p in parts_of(result.all_messages(), ToolReturnPart)}
    assert returns['c1'] == 'Final result processed.'
    assert returns['c2'].startswith('Output tool not used')


async def test_a_history_ending_in_an_unanswered_request_is_resent_with_the_new_prompt():
    seen: list[list[Any]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append([p.content for p in parts_of(messages, UserPromptPart)])
        return text('answered')

    agent = Agent(FunctionModel(respond))
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart('first')])]

    result = await agent.run('second', message_history=history)

    assert seen == [['first', 'second']]
    assert len(result.all_messages()) == 2
    prompts = [p.content for p in parts_of(result.new_messages(), UserPromptPart)]
    assert 'second' in prompts
    assert len(history) == 1


async def test_output_validator_sees_the_output_tools_own_retry_budget():
    seen: list[tuple[int, int]] = []
    agent = Agent(
        scripted(
            *[call('final_result', {'name': 'X', 'population': 0})] * 3,
            call('final_result', {'name': 'X', 'population': 1}),
        ),
        output_type=ToolOutput(City, max_retries=3),
        output_retries=1,
    )

    @agent.output_validator
    def populated(ctx: RunContext[None], output: City) -> City:
        seen.append((ctx.retry, ctx.max_retries))
        if output.population == 0:
            raise ModelRetry('Pick a populated city.')
        return output

    result = await agent.run('City')

    assert result.output == City(name='X', population=1)
    assert seen == [(0, 3), (1, 3), (2, 3), (3, 3)]


async def test_prepare_output_tools_can_rewrite_output_tool_definitions():
    seen: list[tuple[str, str | None]] = []

    def describe(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [dataclasses.replace(td, description=f'Step {ctx.run_step}: submit the city') for td in tool_defs]

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend((t.name, t.description) for t in info.output_tools)
        return ModelResponse(parts=[ToolCallPart('final_result', {'name': 'Oslo', 'population': 1})])

    agent = Agent(FunctionModel(respond), output_type=City, prepare_output_tools=describe)
    result = await agent.run('City')
    assert result.output == City(name='Oslo', population=1)
    assert seen == [('final_result', 'Step 1: submit the city')]
