from __future__ import annotations

import datetime
import json
import uuid
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Any, Literal

import pydantic
import pytest

from agent import models
from agent._tool_def import ToolDefinition
from agent.exceptions import UserError
from agent.messages import (
    FilePart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    RetryPromptPart,
    TextPart,
    TextPartDelta,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models import (
    Model,
    ModelProfile,
    ModelRequestParameters,
    OutputObjectDefinition,
    check_allow_model_requests,
    infer_model,
    override_allow_model_requests,
    register_model_provider,
)
from agent.models._test_args import generate_example, generate_tool_args
from agent.models.test import TestModel
from agent.models.wrapper import WrapperModel

# ----- argument generation -----


class Color(StrEnum):
    RED = 'red'
    GREEN = 'green'


class Address(pydantic.BaseModel):
    street: str
    zip_code: Annotated[str, pydantic.Field(min_length=5, max_length=5)]


class Cat(pydantic.BaseModel):
    kind: Literal['cat'] = 'cat'
    lives: Annotated[int, pydantic.Field(ge=1, le=9)]


class Dog(pydantic.BaseModel):
    kind: Literal['dog'] = 'dog'
    good: bool


class Node(pydantic.BaseModel):
    name: str
    children: list[Node] = []
    parent: Node | None = None


class Everything(pydantic.BaseModel):
    name: str
    count: Annotated[int, pydantic.Field(gt=10, lt=20)]
    ratio: Annotated[float, pydantic.Field(gt=0, lt=1)]
    price: Decimal
    color: Color
    mode: Literal['fast', 'slow']
    address: Address
    previous: list[Address] = []
    tags: Annotated[list[str], pydantic.Field(min_length=2, max_length=3)]
    unique: set[int]
    pair: tuple[int, str]
    scores: dict[str, float]
    nickname: str | None = None
    born: datetime.date
    seen: datetime.datetime
    at: datetime.time
    ident: uuid.UUID
    ident4: pydantic.UUID4
    pet: Annotated[Cat | Dog, pydantic.Field(discriminator='kind')]
    tree: Node
    short: Annotated[str, pydantic.Field(max_length=1)]
    step: Annotated[int, pydantic.Field(multiple_of=5, ge=7)]


@pytest.mark.parametrize('seed', range(6))
def test_generated_example_validates_against_the_pydantic_model_that_produced_the_schema(seed: int):
    schema = Everything.model_json_schema()

    example = generate_example(schema, seed=seed)

    Everything.model_validate_json(json.dumps(example))


@dataclass
class Point:
    x: int
    y: int = 0


@pytest.mark.parametrize('seed', range(4))
def test_generated_example_validates_a_dataclass_and_plain_types(seed: int):
    types: list[Any] = [Point, list[Point], int | str, dict[Literal['a', 'b'], int], bool, None, Any]
    for type_ in types:
        adapter = pydantic.TypeAdapter[Any](type_)
        adapter.validate_json(json.dumps(generate_example(adapter.json_schema(), seed=seed)))


def test_only_required_fields_are_generated_with_pydantic_ais_minimal_values():
    schema = {
        'type': 'object',
        'properties': {
            'text': {'type': 'string'},
            'count': {'type': 'integer'},
            'ratio': {'type': 'number'},
            'flag': {'type': 'boolean'},
            'items': {'type': 'array', 'items': {'type': 'string'}},
            'nothing': {'type': 'null'},
            'optional': {'type': 'integer', 'default': 3},
        },
        'required': ['text', 'count', 'ratio', 'flag', 'items', 'nothing'],
    }

    assert generate_tool_args(schema) == {
        'text': 'a',
        'count': 0,
        'ratio': 0.0,
        'flag': False,
        'items': ['a'],
        'nothing': None,
    }


def test_the_seed_shifts_every_generated_value():
    schema = {
        'type': 'object',
        'properties': {'q': {'type': 'string'}, 'n': {'type': 'integer', 'minimum': 5}, 'b': {'type': 'boolean'}},
        'required': ['q', 'n', 'b'],
    }

    assert generate_tool_args(schema, seed=1) == {'q': 'b', 'n': 6, 'b': True}
    assert generate_tool_args(schema, seed=26)['q'] == 'A'


def test_bounds_lengths_enums_unions_and_extra_properties_follow_pydantic_ais_rules():
    schema = {
        'type': 'object',
        'properties': {
            'code': {'type': 'string', 'minLength': 3},
            'low': {'type': 'integer', 'exclusiveMinimum': 10, 'exclusiveMaximum': 20},
            'top': {'type': 'integer', 'maximum': 7},
            'choice': {'enum': ['x', 'y']},
            'either': {'anyOf': [{'type': 'integer'}, {'type': 'string'}]},
            'scores': {'type': 'object', 'additionalProperties': {'type': 'integer'}},
            'day': {'type': 'string', 'format': 'date'},
        },
        'required': ['code', 'low', 'top', 'choice', 'either', 'scores', 'day'],
    }

    assert generate_tool_args(schema) == {
        'code': 'aaa',
        'low': 11,
        'top': 7,
        'choice': 'x',
        'either': 0,
        'scores': {'additionalProperty': 0},
        'day': '2024-01-01',
    }


def test_each_unique_array_item_advances_the_seed_for_what_follows():
    schema = {
        'type': 'object',
        'properties': {
            'ids': {'type': 'array', 'items': {'type': 'integer'}, 'uniqueItems': True, 'minItems': 2},
            'after': {'type': 'string'},
        },
        'required': ['ids', 'after'],
    }

    assert generate_tool_args(schema) == {'ids': [0, 1], 'after': 'c'}


def test_string_formats_produce_parseable_values():
    assert generate_example({'type': 'string', 'format': 'date'}, seed=2) == '2024-01-03'
    assert datetime.datetime.fromisoformat(generate_example({'type': 'string', 'format': 'date-time'}))
    assert uuid.UUID(generate_example({'type': 'string', 'format': 'uuid'})).version == 4
    assert generate_example({'type': 'string', 'format': 'email'}, seed=1) == 'user1@example.com'
    assert generate_example({'const': 42}) == 42
    assert generate_example({'enum': ['x', 'y']}, seed=1) == 'y'


# ----- the scripted conversation -----


def _tool(name: str, properties: dict[str, Any] | None = None, **kwargs: Any) -> ToolDefinition:
    schema = {'type': 'object', 'properties': properties or {}, 'required': list(properties or {})}
    return ToolDefinition(name=name, parameters_json_schema=schema, **kwargs)


def _params(**kwargs: Any) -> ModelRequestParameters:
    return ModelRequestParameters(**kwargs)


WEATHER = _tool('weather', {'city': {'type': 'string'}, 'days': {'type': 'integer', 'minimum': 1}})
TIME = _tool('time', {'zone': {'type': 'string', 'enum': ['UTC', 'CET']}})


async def test_first_request_calls_every_tool_with_schema_valid_arguments():
    model = TestModel()
    params = _params(function_tools=[WEATHER, TIME])

    response = await model.request([ModelRequest.user_text_prompt('hi')], None, params)

    assert response.parts == [
        ToolCallPart('weather', {'city': 'a', 'days': 1}, 'pyd_ai_tool_call_id__weather'),
        ToolCallPart('time', {'zone': 'UTC'}, 'pyd_ai_tool_call_id__time'),
    ]
    assert (response.model_name, response.provider_name, response.finish_reason) == ('test', None, None)
    assert model.last_model_request_parameters == params


async def test_after_tool_results_the_answer_maps_each_tool_to_its_result():
    model = TestModel()
    params = _params(function_tools=[WEATHER, TIME])
    history: list[ModelMessage] = [ModelRequest.user_text_prompt('hi')]
    first = await model.request(history, None, params)
    history.append(first)
    history.append(
        ModelRequest(
            parts=[ToolReturnPart(c.tool_name, {'tool': c.tool_name}, c.tool_call_id) for c in first.tool_calls]
        )
    )

    answer = await model.request(history, None, params)

    assert answer.parts == [TextPart('{"weather":{"tool":"weather"},"time":{"tool":"time"}}')]


async def test_call_tools_limits_which_tools_are_called():
    model = TestModel(call_tools=['time'])

    response = await model.request([ModelRequest.user_text_prompt('hi')], None, _params(function_tools=[WEATHER, TIME]))

    assert [c.tool_name for c in response.tool_calls] == ['time']


async def test_without_tools_the_answer_says_success_or_the_custom_text():
    prompt: list[ModelMessage] = [ModelRequest.user_text_prompt('hi')]

    plain = await TestModel().request(prompt, None, _params())
    custom = await TestModel(custom_output_text='Paris').request(prompt, None, _params())

    assert plain.parts == [TextPart('success (no tool calls)')]
    assert custom.parts == [TextPart('Paris')]


async def test_retry_prompt_calls_the_tool_again_with_the_same_arguments_and_a_new_id():
    model = TestModel()
    params = _params(function_tools=[WEATHER, TIME])
    history: list[ModelMessage] = [ModelRequest.user_text_prompt('hi')]
    first = await model.request(history, None, params)
    weather_call = first.tool_calls[0]
    history += [
        first,
        ModelRequest(
            parts=[
                RetryPromptPart('bad city', tool_name='weather', tool_call_id=weather_call.tool_call_id),
                ToolReturnPart('time', 'noon', first.tool_calls[1].tool_call_id),
            ]
        ),
    ]

    retry = await model.request(history, None, params)

    assert [(c.tool_name, c.args) for c in retry.tool_calls] == [('weather', weather_call.args)]
    assert retry.tool_calls[0].tool_call_id != weather_call.tool_call_id
    history += [retry, ModelRequest(parts=[ToolReturnPart('weather', 'sunny', retry.tool_calls[0].tool_call_id)])]
    final = await model.request(history, None, params)
    assert final.text == '{"time":"noon","weather":"sunny"}'


async def test_final_output_calls_the_output_tool_when_text_is_not_allowed():
    output = _tool('final_result', {'answer': {'type': 'string'}}, kind='output')
    params = _params(output_mode='tool', output_tools=[output], allow_text_output=False)

    response = await TestModel().request([ModelRequest.user_text_prompt('hi')], None, params)

    assert response.parts == [ToolCallPart('final_result', {'answer': 'a'}, 'pyd_ai_tool_call_id__final_result')]


async def test_custom_output_args_are_sent_to_the_output_tool_wrapped_in_its_outer_key():
    output = _tool('final_result', {'response': {'type': 'integer'}}, kind='output', outer_typed_dict_key='response')
    params = _params(output_mode='tool_or_text', output_tools=[output])

    response = await TestModel(custom_output_args=42).request([ModelRequest.user_text_prompt('hi')], None, params)

    assert response.tool_calls[0].args == {'response': 42}


async def test_native_output_mode_answers_with_json_text_matching_the_output_schema():
    class City(pydantic.BaseModel):
        name: str
        population: int

    params = _params(
        output_mode='native', output_object=OutputObjectDefinition(City.model_json_schema()), allow_text_output=True
    )

    response = await TestModel().request([ModelRequest.user_text_prompt('hi')], None, params)

    assert City.model_validate_json(response.text or '') == City(name='a', population=0)


async def test_image_output_is_a_png_file_when_only_images_are_allowed():
    params = _params(output_mode='image', allow_text_output=False, allow_image_output=True)

    response = await TestModel().request([ModelRequest.user_text_prompt('draw')], None, params)

    assert isinstance(response.parts[0], FilePart)
    assert response.parts[0].content.data.startswith(b'\x89PNG')


async def test_usage_is_50_plus_the_words_of_the_prompts_and_the_words_of_every_response():
    history: list[ModelMessage] = [
        ModelRequest.user_text_prompt('how are you today', instructions='instructions are not counted'),
        ModelResponse(parts=[ToolCallPart('weather', {'city': 'Paris'})]),
        ModelRequest(parts=[ToolReturnPart('weather', 'sunny, warm')]),
    ]
    response = await TestModel(custom_output_text='one two three').request(history, None, _params())

    # 4 prompt words + 2 result words; the earlier tool call is 1 + 4 JSON words ('{', 'city', 'Paris', '}').
    assert (response.usage.input_tokens, response.usage.output_tokens) == (56, 8)


async def test_custom_output_text_is_refused_when_only_tool_output_is_allowed():
    output = _tool('final_result', {'answer': {'type': 'string'}}, kind='output')
    params = _params(output_mode='tool', output_tools=[output], allow_text_output=False)

    with pytest.raises(UserError, match='custom_output_text'):
        await TestModel(custom_output_text='x').request([ModelRequest.user_text_prompt('hi')], None, params)


async def test_calling_an_unknown_tool_is_a_configuration_error():
    with pytest.raises(UserError, match='nosuch'):
        await TestModel(call_tools=['nosuch']).request([ModelRequest.user_text_prompt('hi')], None, _params())


async def test_gen_tool_args_gives_the_arguments_the_model_sends():
    assert TestModel(seed=1).gen_tool_args(WEATHER) == {'city': 'b', 'days': 2}


def test_both_custom_text_and_custom_args_are_rejected():
    with pytest.raises(UserError, match='either'):
        TestModel(custom_output_text='x', custom_output_args={'a': 1})


# ----- streaming -----


async def test_streamed_text_opens_empty_arrives_word_by_word_and_ends_with_a_part_end_event():
    model = TestModel(custom_output_text='The capital is Paris')
    async with model.request_stream([ModelRequest.user_text_prompt('hi')], None, _params()) as stream:
        events = [event async for event in stream]

    assert events == [
        PartStartEvent(0, TextPart('')),
        PartDeltaEvent(0, TextPartDelta('The ')),
        PartDeltaEvent(0, TextPartDelta('capital ')),
        PartDeltaEvent(0, TextPartDelta('is ')),
        PartDeltaEvent(0, TextPartDelta('Paris')),
        PartEndEvent(0, TextPart('The capital is Paris')),
    ]
    response = stream.get()
    assert response.parts == [TextPart('The capital is Paris')]
    assert (response.model_name, response.provider_name) == ('test', 'test')
    assert (stream.usage().input_tokens, stream.usage().output_tokens) == (51, 4)


async def test_a_single_long_word_is_streamed_in_two_halves():
    model = TestModel(custom_output_text='Paris')
    async with model.request_stream([ModelRequest.user_text_prompt('hi')], None, _params()) as stream:
        events = [event async for event in stream]

    assert events[:3] == [
        PartStartEvent(0, TextPart('')),
        PartDeltaEvent(0, TextPartDelta('Pa')),
        PartDeltaEvent(0, TextPartDelta('ris')),
    ]


async def test_streamed_tool_calls_are_whole_parts_each_ended_when_the_next_starts():
    model = TestModel()
    async with model.request_stream(
        [ModelRequest.user_text_prompt('hi')], None, _params(function_tools=[WEATHER, TIME])
    ) as stream:
        events = [event async for event in stream]

    kinds = [(type(e).__name__, getattr(e, 'index', None)) for e in events]
    assert kinds == [('PartStartEvent', 0), ('PartEndEvent', 0), ('PartStartEvent', 1), ('PartEndEvent', 1)]
    assert [getattr(e, 'next_part_kind', None) for e in events] == [None, 'tool-call', None, None]
    assert [getattr(e, 'previous_part_kind', None) for e in events] == [None, None, 'tool-call', None]
    assert [p.tool_name for p in stream.get().parts if isinstance(p, ToolCallPart)] == ['weather', 'time']


class _NoStreamModel(Model):
    async def request(
        self, messages: list[ModelMessage], model_settings: Any, model_request_parameters: ModelRequestParameters
    ) -> ModelResponse:
        return ModelResponse(parts=[])

    @property
    def model_name(self) -> str:
        return 'plain'

    @property
    def system(self) -> str:
        return 'custom'


async def test_a_model_without_streaming_raises_when_the_stream_is_entered():
    model = _NoStreamModel()
    stream = model.request_stream([], None, _params())

    with pytest.raises(NotImplementedError, match='Streamed requests are not supported by _NoStreamModel'):
        async with stream:
            pass
    assert model.label == 'custom:plain'


# ----- request preparation -----


@dataclass
class _WebSearch:
    kind: str = 'web_search'


def test_prepare_request_drops_tools_replaced_by_a_supported_native_tool():
    local_search = _tool('search', unless_native='web_search')
    params = _params(function_tools=[local_search, WEATHER], native_tools=[_WebSearch()])

    _, supported = TestModel(profile=ModelProfile(supported_native_tools=frozenset({'web_search'}))).prepare_request(
        None, params
    )
    _, unsupported = TestModel(profile=ModelProfile()).prepare_request(None, params)

    assert [t.name for t in supported.function_tools] == ['weather']
    assert [t.name for t in unsupported.function_tools] == ['search', 'weather']
    assert params.builtin_tools == params.native_tools


def test_prepare_request_merges_model_settings_under_request_settings_and_resolves_auto_output():
    model = TestModel(
        settings={'temperature': 0.1, 'max_tokens': 10}, profile=ModelProfile(default_structured_output_mode='native')
    )
    output_object = OutputObjectDefinition({'type': 'object'})
    params = _params(output_mode='auto', output_object=output_object, output_tools=[_tool('final_result')])

    settings, prepared = model.prepare_request({'temperature': 0.5}, params)

    assert settings == {'temperature': 0.5, 'max_tokens': 10}
    assert (prepared.output_mode, prepared.output_tools, prepared.output_object) == ('native', [], output_object)
    assert model.prepare_request(settings, prepared) == (settings, prepared)


def test_tool_defs_include_function_and_output_tools_by_name():
    params = _params(function_tools=[WEATHER], output_tools=[_tool('final_result', kind='output')])

    assert list(params.tool_defs) == ['weather', 'final_result']


# ----- inferring models, wrapping, and the request guard -----


def test_infer_model_returns_models_as_is_and_resolves_test_names():
    model = TestModel(model_name='mine')

    assert infer_model(model) is model
    assert isinstance(infer_model('test'), TestModel)
    assert infer_model('gateway/test:scripted').model_name == 'scripted'


def test_infer_model_rejects_unknown_providers_naming_them():
    expected = r"Unknown model provider 'nosuch' in 'nosuch:model-1'\. Known providers: .*test"
    with pytest.raises(UserError, match=expected):
        infer_model('nosuch:model-1')


def test_infer_model_treats_a_known_provider_without_its_module_as_unknown(monkeypatch: pytest.MonkeyPatch):
    from agent.models import _infer

    monkeypatch.setitem(_infer._PROVIDER_MODULES, 'ghost', 'agent.models.ghost_provider')

    with pytest.raises(UserError, match="Unknown model provider 'ghost'"):
        infer_model('ghost:x')


def test_infer_model_explains_the_provider_prefix_format():
    with pytest.raises(UserError, match='<provider>:<model>'):
        infer_model('gpt-5.2')


def test_registered_providers_build_models_from_the_name(monkeypatch: pytest.MonkeyPatch):
    from agent.models import _infer

    monkeypatch.setattr(_infer, '_factories', dict(_infer._factories))
    register_model_provider('acme', lambda name: TestModel(model_name=f'acme-{name}'))

    assert infer_model('acme:large').model_name == 'acme-large'


async def test_wrapper_model_delegates_requests_and_properties():
    inner = TestModel(custom_output_text='wrapped', profile=ModelProfile(supports_thinking=True))
    wrapper = WrapperModel(inner)

    response = await wrapper.request([ModelRequest.user_text_prompt('hi')], None, _params())
    async with wrapper.request_stream([ModelRequest.user_text_prompt('hi')], None, _params()) as stream:
        streamed = [event async for event in stream]

    assert response.text == 'wrapped'
    assert streamed[-1] == PartEndEvent(0, TextPart('wrapped'))
    assert (wrapper.label, wrapper.profile.supports_thinking) == ('test:test', True)
    assert isinstance(WrapperModel('test').wrapped, TestModel)


def test_model_requests_can_be_disallowed_for_a_block():
    with override_allow_model_requests(True):
        check_allow_model_requests()

        with override_allow_model_requests(False):
            assert models.ALLOW_MODEL_REQUESTS is False
            with pytest.raises(RuntimeError, match='ALLOW_MODEL_REQUESTS is False'):
                check_allow_model_requests()

        assert models.ALLOW_MODEL_REQUESTS is True


async def test_tools_are_only_called_while_the_history_has_no_response():
    history: list[ModelMessage] = [
        ModelRequest.user_text_prompt('first'),
        ModelResponse(parts=[ToolCallPart('weather', {}, 'c1')]),
        ModelRequest(parts=[ToolReturnPart('weather', 'rain', 'c1')]),
        ModelResponse(parts=[TextPart('done')]),
        ModelRequest(parts=[UserPromptPart('again')]),
    ]
    response = await TestModel().request(history, None, _params(function_tools=[WEATHER]))

    # As in Pydantic AI: a continued conversation gets the tool results so far, not new calls.
    assert response.parts == [TextPart('{"weather":"rain"}')]
