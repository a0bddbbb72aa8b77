"""Output markers: `NativeOutput`, `PromptedOutput`, `TextOutput`, `StructuredDict`, and output tool schemas."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter

from agent import Agent, ModelRetry, RunContext, ToolOutput
from agent.exceptions import UserError
from agent.messages import ModelMessage, ModelResponse, RetryPromptPart, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel
from agent.output import NativeOutput, OutputContext, PromptedOutput, StructuredDict, TextOutput


class City(BaseModel):
    """A city and its country."""

    name: str
    country: str


class Vehicle(BaseModel):
    name: str
    wheels: int


def answering(*texts: str, seen: list[AgentInfo] | None = None) -> FunctionModel:
    remaining = list(texts)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if seen is not None:
            seen.append(info)
        return ModelResponse(parts=[TextPart(remaining.pop(0))])

    return FunctionModel(respond)


async def test_native_output_asks_for_the_schema_in_native_mode_and_parses_the_text():
    seen: list[AgentInfo] = []
    agent = Agent(answering('{"name": "Paris", "country": "France"}', seen=seen), output_type=NativeOutput(City))

    result = await agent.run('Capital of France?')

    assert result.output == City(name='Paris', country='France')
    params = seen[0].model_request_parameters
    assert (params.output_mode, params.output_tools, params.allow_text_output) == ('native', [], True)
    assert params.output_object is not None
    assert params.output_object.name == 'City'
    assert params.output_object.description == 'A city and its country.'
    assert params.output_object.json_schema['properties'] == {
        'name': {'type': 'string'},
        'country': {'type': 'string'},
    }
    assert params.prompted_output_template is None


async def test_prompted_output_sends_its_template_with_the_schema():
    seen: list[AgentInfo] = []
    output = PromptedOutput(City, name='place', description='Where it is', template='Give JSON: {schema}')
    agent = Agent(answering('```json\n{"name": "Oslo", "country": "Norway"}\n```', seen=seen), output_type=output)

    result = await agent.run('Capital of Norway?')

    assert result.output == City(name='Oslo', country='Norway')
    params = seen[0].model_request_parameters
    assert params.output_mode == 'prompted'
    instructions = params.prompted_output_instructions
    assert instructions is not None
    assert instructions.startswith('Give JSON: {')
    schema = json.loads(instructions.removeprefix('Give JSON: '))
    assert (schema['title'], schema['description']) == ('place', 'Where it is. A city and its country.')


async def test_prompted_output_without_a_template_uses_the_profile_template():
    seen: list[AgentInfo] = []
    agent = Agent(answering('{"name": "Rome", "country": "Italy"}', seen=seen), output_type=PromptedOutput(City))

    await agent.run('Capital of Italy?')

    instructions = seen[0].model_request_parameters.prompted_output_instructions
    assert instructions is not None
    assert '"title": "City"' in instructions


async def test_invalid_structured_text_goes_back_as_a_retry_prompt():
    agent = Agent(
        answering('{"name": "Paris"}', '{"name": "Paris", "country": "France"}'), output_type=NativeOutput(City)
    )

    result = await agent.run('Capital of France?')

    assert result.output == City(name='Paris', country='France')
    retries = [p for m in result.all_messages() for p in getattr(m, 'parts', []) if isinstance(p, RetryPromptPart)]
    assert len(retries) == 1
    assert retries[0].tool_name is None
    assert isinstance(retries[0].content, list)
    assert retries[0].content[0]['loc'] == ('country',)


async def test_several_native_outputs_are_offered_as_a_choice_of_kinds():
    seen: list[AgentInfo] = []
    answer = {'result': {'kind': 'Vehicle', 'data': {'name': 'Bike', 'wheels': 2}}}
    agent = Agent(answering(json.dumps(answer), seen=seen), output_type=NativeOutput([City, Vehicle]))

    result = await agent.run('Something with wheels')

    assert result.output == Vehicle(name='Bike', wheels=2)
    output_object = seen[0].model_request_parameters.output_object
    assert output_object is not None
    choices = output_object.json_schema['properties']['result']['anyOf']
    assert [c['properties']['kind'] for c in choices] == [
        {'type': 'string', 'const': 'City'},
        {'type': 'string', 'const': 'Vehicle'},
    ]


async def test_native_output_works_with_test_model():
    agent = Agent(TestModel(), output_type=NativeOutput(City))

    result = await agent.run('Anything')

    assert isinstance(result.output, City)


async def test_text_output_passes_the_text_to_a_function_with_the_run_context():
    async def words(ctx: RunContext[int], text: str) -> list[str]:
        return [f'{w}{ctx.deps}' for w in text.split()]

    agent = Agent(answering('a b'), deps_type=int, output_type=TextOutput(words))

    result = await agent.run('Split', deps=7)

    assert result.output == ['a7', 'b7']


async def test_text_output_function_can_ask_for_a_retry():
    def shout(text: str) -> str:
        if not text.isupper():
            raise ModelRetry('Answer in capitals.')
        return text

    agent = Agent(answering('hi', 'HI'), output_type=TextOutput(shout))

    result = await agent.run('Greet')

    assert result.output == 'HI'


def test_text_output_needs_a_single_string_argument():
    def two(a: str, b: str) -> str:
        return a + b

    with pytest.raises(UserError, match='single `str` argument'):
        Agent(TestModel(), output_type=TextOutput(two))  # pyright: ignore[reportArgumentType]


def test_native_and_prompted_output_must_be_the_only_output_types():
    with pytest.raises(UserError, match='NativeOutput must be the only output type'):
        Agent(TestModel(), output_type=[NativeOutput(City), str])


async def test_structured_dict_output_is_a_dict_with_the_given_schema():
    schema = {
        'type': 'object',
        'properties': {'name': {'type': 'string'}, 'age': {'$ref': '#/$defs/Age'}},
        'required': ['name', 'age'],
        '$defs': {'Age': {'type': 'integer'}},
    }
    person = StructuredDict(schema, name='Person', description='A person.')
    seen: list[AgentInfo] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        return _call('final_result', {'name': 'Ann', 'age': 30})

    agent = Agent(FunctionModel(respond), output_type=person)
    result = await agent.run('Make a person')

    assert result.output == {'name': 'Ann', 'age': 30}
    tool = seen[0].output_tools[0]
    assert tool.description == 'A person.'
    assert tool.parameters_json_schema == {
        'type': 'object',
        'title': 'Person',
        'properties': {'name': {'type': 'string'}, 'age': {'type': 'integer'}},
        'required': ['name', 'age'],
    }


def test_structured_dict_refuses_recursive_and_non_object_schemas():
    with pytest.raises(UserError, match='object JSON schema'):
        StructuredDict({'type': 'string'})
    recursive = {
        'type': 'object',
        'properties': {'child': {'$ref': '#/$defs/Node'}},
        '$defs': {'Node': {'type': 'object', 'properties': {'child': {'$ref': '#/$defs/Node'}}}},
    }
    with pytest.raises(UserError, match=r'does not currently support recursive `\$ref`s and `\$defs`'):
        StructuredDict(recursive)
    # A root that is itself a reference (as pydantic writes recursive models) is refused for the recursion, not
    # taken for a non-object schema.
    with pytest.raises(UserError, match='recursive'):
        StructuredDict({'$ref': '#/$defs/Node', '$defs': recursive['$defs']})


def test_structured_dict_accepts_a_root_reference_to_an_object_definition():
    schema = {'$ref': '#/$defs/Pet', '$defs': {'Pet': {'type': 'object', 'properties': {'name': {'type': 'string'}}}}}

    pet = StructuredDict(schema, name='Pet')

    assert TypeAdapter(pet).json_schema() == {
        'type': 'object',
        'properties': {'name': {'type': 'string'}},
        'title': 'Pet',
    }


async def test_output_tool_schemas_keep_the_model_title_and_docstring_description():
    seen: list[AgentInfo] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        return _call(info.output_tools[0].name, {'name': 'Lima', 'country': 'Peru'})

    agent = Agent(FunctionModel(respond), output_type=[City, ToolOutput(Vehicle, name='vehicle')])
    await agent.run('A city')

    city_tool, vehicle_tool = seen[0].output_tools
    assert (city_tool.name, city_tool.description) == ('final_result_City', 'A city and its country.')
    assert city_tool.parameters_json_schema['title'] == 'City'
    assert vehicle_tool.description == 'Vehicle: The final response which ends this conversation'
    assert vehicle_tool.parameters_json_schema['title'] == 'Vehicle'


def test_a_scalar_output_tool_wraps_the_value_without_a_title():
    agent = Agent(TestModel(), output_type=int)
    tool_def = agent._output_schema.tool_defs[0]

    assert tool_def.parameters_json_schema == {
        'type': 'object',
        'properties': {'response': {'type': 'integer'}},
        'required': ['response'],
    }
    assert tool_def.outer_typed_dict_key == 'response'


def test_output_context_holds_what_output_hooks_are_told():
    context = OutputContext(mode='native', output_type=City, object_def=None, has_function=False)

    assert (context.tool_call, context.allows_text, context.allows_deferred_tools) == (None, False, False)


def _call(name: str, args: dict[str, Any]) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart(name, args)])


async def test_streaming_native_output_yields_partially_validated_objects():
    agent = Agent(answering('{"name": "Paris", "country": "France"}'), output_type=NativeOutput(City))

    async with agent.run_stream('Capital of France?') as stream:
        outputs = [output async for output in stream.stream_output()]

    assert all(isinstance(output, City) for output in outputs)
    assert outputs[-1] == City(name='Paris', country='France')


def test_text_output_refuses_a_function_that_does_not_take_the_text():
    def two_texts(first: str, second: str) -> str:
        return first + second

    with pytest.raises(UserError, match='TextOutput must take a function taking a single `str` argument'):
        Agent(FunctionModel(lambda m, i: ModelResponse(parts=[])), output_type=TextOutput(two_texts))  # pyright: ignore[reportArgumentType]


def test_an_output_type_is_required_besides_none_and_deferred_tool_requests():
    from agent.tools import DeferredToolRequests

    with pytest.raises(UserError, match=r'^At least one output type must be provided\.$'):
        Agent('test', output_type=[])
    with pytest.raises(UserError, match='provided other than `None`'):
        Agent('test', output_type=[None])
    with pytest.raises(UserError, match='provided other than `DeferredToolRequests`'):
        Agent('test', output_type=DeferredToolRequests)


async def test_output_types_that_would_share_a_tool_name_get_numbered_names():
    class Point(BaseModel):
        x: int

    model = TestModel(custom_output_args={'x': 1})
    agent = Agent(model, output_type=[ToolOutput(Point), ToolOutput(Point), ToolOutput(Point)])

    result = await agent.run('go')

    assert result.output == Point(x=1)
    assert model.last_model_request_parameters is not None
    names = [tool.name for tool in model.last_model_request_parameters.output_tools]
    assert names == ['final_result_Point', 'final_result_Point_2', 'final_result_Point_3']


def test_a_function_tool_named_like_an_output_tool_is_refused_naming_both():
    def answer(x: int) -> int:
        return x

    agent = Agent('test', tools=[answer], output_type=ToolOutput(int, name='answer'))

    with pytest.raises(UserError) as raised:
        agent.run_sync('go')
    assert str(raised.value) == (
        "The agent defines a tool whose name conflicts with existing tool from the agent's output tools: 'answer'. "
        'Rename the tool or wrap the toolset in a `PrefixedToolset` to avoid name conflicts.'
    )
