"""Run output: structured output tools, output types chosen per agent or per run, and bad output retried."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import pydantic

from agent import Agent, RunContext, ToolDefinition, ToolOutput
from agent.messages import ModelMessage, ModelResponse, RetryPromptPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel

from ._agent_helpers import City, call, parts_of, scripted, text


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
    assert retry.content == 'Please include your response in a tool call.'


async def test_empty_response_is_asked_again_without_a_retry_prompt():
    agent = Agent(scripted(ModelResponse(parts=[]), text('there you go')))

    result = await agent.run('Hello')

    assert result.output == 'there you go'
    assert parts_of(result.all_messages(), RetryPromptPart) == []


async def test_output_type_given_to_run_overrides_the_agents():
    agent = Agent(TestModel(custom_output_args={'a': 5}))

    result = await agent.run('x', output_type=ModelA)

    assert result.output == ModelA(a=5)


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
