"""Messages: JSON round trips of whole histories, streaming deltas, and tool call argument helpers."""

from __future__ import annotations

from datetime import UTC, datetime

import pydantic_core
import pytest

from agent import Agent
from agent.exceptions import UnexpectedModelBehavior
from agent.messages import (
    INVALID_JSON_KEY,
    AudioUrl,
    BinaryContent,
    BinaryImage,
    CompactionPart,
    DocumentUrl,
    FilePart,
    ImageUrl,
    InstructionPart,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
    ToolReturnPart,
    UserPromptPart,
    VideoUrl,
)
from agent.models.test import TestModel
from agent.usage import RequestUsage

T0 = datetime(2025, 3, 1, 12, 30, 15, 123456, tzinfo=UTC)
PNG = bytes.fromhex('89504e470d0a1a0a0000000d4948445200000001')


def every_part_history() -> list[ModelMessage]:
    """A history holding every part kind, with every optional field of both message kinds set."""
    validation_errors: list[pydantic_core.ErrorDetails] = [
        {'type': 'int_parsing', 'loc': ('args', 0, 'x'), 'msg': 'Input should be a valid integer', 'input': 'abc'},
        {'type': 'missing', 'loc': ('y',), 'msg': 'Field required', 'input': {'x': 'abc'}},
    ]
    request = ModelRequest(
        parts=[
            SystemPromptPart('You are terse.', timestamp=T0, dynamic_ref='prompt_func'),
            UserPromptPart('Hello there', timestamp=T0),
            UserPromptPart(
                [
                    'Look at these:',
                    ImageUrl(
                        'https://example.com/cat.png',
                        force_download=True,
                        vendor_metadata={'detail': 'high'},
                        identifier='img-1',
                    ),
                    DocumentUrl('https://example.com/report.pdf', media_type='application/pdf', identifier='doc-1'),
                    AudioUrl('https://example.com/song.mp3'),
                    VideoUrl('https://example.com/clip.mp4', vendor_metadata={'fps': 24}),
                    BinaryContent(PNG, media_type='image/png', identifier='bin-1', vendor_metadata={'k': 'v'}),
                ],
                timestamp=T0,
            ),
            ToolReturnPart(
                'get_weather',
                {'temp_c': 21.5, 'conditions': ['sunny', 'dry'], 'nested': {'wind': None}},
                'call-1',
                metadata={'source': 'cache'},
                timestamp=T0,
                outcome='failed',
            ),
            RetryPromptPart('Please pass a city name.', tool_name='get_weather', tool_call_id='call-2', timestamp=T0),
            RetryPromptPart(validation_errors, tool_name='add', tool_call_id='call-3', timestamp=T0),
            RetryPromptPart('Plain text is not allowed.', tool_call_id='call-4', timestamp=T0),
        ],
        timestamp=T0,
        instructions='Answer in one sentence.',
        run_id='run-1',
        conversation_id='conv-1',
        metadata={'origin': 'web'},
    )
    response = ModelResponse(
        parts=[
            ThinkingPart(
                'Let me think.',
                id='think-1',
                signature='sig==',
                provider_name='anthropic',
                provider_details={'redacted': False},
            ),
            TextPart('Here you go.', id='text-1', provider_name='openai', provider_details={'phase': 'final'}),
            ToolCallPart('get_weather', '{"city": "Paris"}', 'call-5', id='item-5', provider_name='openai'),
            ToolCallPart('search_tools', {'x': 1, 'y': [2, 3]}, 'call-6', tool_kind='tool-search'),
            NativeToolCallPart(
                'web_search',
                {'query': 'weather'},
                'native-1',
                id='ws-1',
                provider_name='openai',
                provider_details={'status': 'completed'},
            ),
            NativeToolReturnPart(
                'web_search',
                [{'url': 'https://example.com', 'title': 'Example'}],
                'native-1',
                metadata={'ranked': True},
                timestamp=T0,
                outcome='failed',
                provider_name='openai',
                provider_details={'sources': 1},
            ),
            FilePart(
                BinaryContent(PNG, media_type='image/png'),
                id='file-1',
                provider_name='openai',
                provider_details={'size': '1x1'},
            ),
            CompactionPart(None, id='cmp-1', provider_name='openai', provider_details={'encrypted_content': 'gAAA'}),
        ],
        usage=RequestUsage(
            input_tokens=120,
            output_tokens=45,
            input_audio_tokens=4,
            cache_audio_read_tokens=2,
            output_audio_tokens=6,
            cache_read_tokens=10,
            cache_write_tokens=5,
            reasoning_tokens=7,
            details={'audio_tokens': 3},
        ),
        model_name='gpt-test',
        timestamp=T0,
        provider_name='openai',
        provider_url='https://api.openai.com/v1',
        provider_details={'finish_details': {'type': 'stop'}},
        provider_response_id='resp-1',
        finish_reason='tool_call',
        run_id='run-1',
        conversation_id='conv-1',
        metadata={'cost_usd': 0.002},
        state='interrupted',
    )
    return [request, response]


def test_history_with_every_part_kind_round_trips_through_json():
    history = every_part_history()

    dumped = ModelMessagesTypeAdapter.dump_json(history)
    restored = ModelMessagesTypeAdapter.validate_json(dumped)

    assert restored == history
    assert ModelMessagesTypeAdapter.dump_json(restored) == dumped


def test_history_round_trip_keeps_part_types_and_binary_bytes():
    restored = ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(every_part_history()))

    request, response = restored
    assert isinstance(request, ModelRequest)
    assert isinstance(response, ModelResponse)
    assert [type(p) for p in request.parts] == [
        SystemPromptPart,
        UserPromptPart,
        UserPromptPart,
        ToolReturnPart,
        RetryPromptPart,
        RetryPromptPart,
        RetryPromptPart,
    ]
    assert [type(p) for p in response.parts] == [
        ThinkingPart,
        TextPart,
        ToolCallPart,
        ToolCallPart,
        NativeToolCallPart,
        NativeToolReturnPart,
        FilePart,
        CompactionPart,
    ]
    multimodal = request.parts[2]
    assert isinstance(multimodal, UserPromptPart)
    assert [type(item) for item in multimodal.content] == [
        str,
        ImageUrl,
        DocumentUrl,
        AudioUrl,
        VideoUrl,
        BinaryContent,
    ]
    binary = multimodal.content[-1]
    assert isinstance(binary, BinaryContent)
    assert binary.data == PNG
    errors = request.parts[5]
    assert isinstance(errors, RetryPromptPart)
    assert isinstance(errors.content, list)
    assert errors.content[0]['loc'] == ('args', 0, 'x')
    assert request.parts[0].timestamp == T0


def test_history_round_trips_through_python_mode_dump():
    history = every_part_history()

    restored = ModelMessagesTypeAdapter.validate_python(ModelMessagesTypeAdapter.dump_python(history))

    assert restored == history


def test_binary_content_is_base64_in_json():
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart([BinaryContent(b'\x00\xffhi', media_type='x/y')])])
    ]

    dumped = ModelMessagesTypeAdapter.dump_json(history)

    assert b'"AP9oaQ=="' in dumped


def test_real_run_messages_round_trip_through_all_messages_json():
    agent = Agent(TestModel(), instructions='Be brief.')

    @agent.tool_plain
    def add(x: int, y: int) -> int:
        """Add two numbers."""
        return x + y

    result = agent.run_sync('What is 1 + 2?')

    dumped = result.all_messages_json()
    restored = ModelMessagesTypeAdapter.validate_json(dumped)
    assert restored == result.all_messages()
    assert ModelMessagesTypeAdapter.dump_json(restored) == dumped
    assert ModelMessagesTypeAdapter.validate_json(result.new_messages_json()) == result.new_messages()
    kinds = [m.kind for m in restored]
    assert kinds == ['request', 'response', 'request', 'response']


def test_restored_history_continues_a_conversation():
    agent = Agent(TestModel(custom_output_text='again'))
    first = agent.run_sync('Hi')
    history = ModelMessagesTypeAdapter.validate_json(first.all_messages_json())

    second = agent.run_sync('Once more', message_history=history)

    assert second.all_messages()[: len(history)] == history
    assert second.conversation_id == first.conversation_id
    assert second.output == 'again'


def test_text_delta_appends_to_text_part():
    part = TextPart('Hel', id='t1')

    updated = TextPartDelta('lo').apply(part)

    assert updated == TextPart('Hello', id='t1')
    assert part.content == 'Hel'


def test_text_delta_refuses_other_part_kinds():
    with pytest.raises(ValueError, match='text delta'):
        TextPartDelta('x').apply(ToolCallPart('t', '{}'))


def test_thinking_delta_appends_content_and_replaces_the_signature():
    part = ThinkingPart('Step 1.', signature='ab')

    updated = ThinkingPartDelta(' Step 2.', signature_delta='cd', provider_name='anthropic').apply(part)

    assert (updated.content, updated.signature, updated.provider_name) == ('Step 1. Step 2.', 'cd', 'anthropic')


def test_thinking_delta_without_signature_keeps_the_existing_one():
    updated = ThinkingPartDelta(' more').apply(ThinkingPart('some', signature='sig'))

    assert (updated.content, updated.signature) == ('some more', 'sig')


def test_thinking_delta_refuses_text_part():
    with pytest.raises(ValueError, match='thinking delta'):
        ThinkingPartDelta('x').apply(TextPart('y'))


def test_tool_call_delta_concatenates_json_args_and_name():
    part = ToolCallPart('get_', '{"city": ', 'call-1')

    updated = ToolCallPartDelta('weather', '"Paris"}').apply(part)

    assert isinstance(updated, ToolCallPart)
    assert (updated.tool_name, updated.args, updated.tool_call_id) == ('get_weather', '{"city": "Paris"}', 'call-1')
    assert updated.args_as_dict() == {'city': 'Paris'}


def test_tool_call_delta_merges_dict_args_and_sets_call_id():
    updated = ToolCallPartDelta(args_delta={'b': 2}, tool_call_id='call-9').apply(ToolCallPart('t', {'a': 1}, 'old'))

    assert isinstance(updated, ToolCallPart)
    assert (updated.args, updated.tool_call_id) == ({'a': 1, 'b': 2}, 'call-9')


def test_tool_call_delta_refuses_mixing_string_and_dict_args():
    with pytest.raises(UnexpectedModelBehavior, match='Cannot apply dict deltas to non-dict tool arguments'):
        ToolCallPartDelta(args_delta={'b': 2}).apply(ToolCallPart('t', '{"a": 1'))
    with pytest.raises(UnexpectedModelBehavior, match='Cannot apply JSON deltas to non-JSON tool arguments'):
        ToolCallPartDelta(args_delta='{"b": 2}').apply(ToolCallPart('t', {}))


def test_tool_call_delta_on_delta_stays_a_delta_until_the_name_is_known():
    first = ToolCallPartDelta(args_delta='{"a"', tool_call_id='c1')
    assert first.as_part() is None

    merged = ToolCallPartDelta(args_delta=': 1}').apply(first)
    assert merged == ToolCallPartDelta(None, '{"a": 1}', 'c1')

    named = ToolCallPartDelta('tool').apply(merged)
    assert isinstance(named, ToolCallPart)
    assert (named.tool_name, named.args, named.tool_call_id) == ('tool', '{"a": 1}', 'c1')


def test_tool_call_delta_refuses_text_part():
    with pytest.raises(ValueError, match='tool call delta'):
        ToolCallPartDelta('t').apply(TextPart('x'))


def test_args_as_dict_keeps_invalid_json_under_the_invalid_json_key():
    assert ToolCallPart('t', '{not json').args_as_dict() == {INVALID_JSON_KEY: '{not json'}
    assert ToolCallPart('t', '[1, 2]').args_as_dict() == {'INVALID_JSON': '[1, 2]'}


def test_args_as_dict_on_invalid_json_raises_value_error_when_asked():
    with pytest.raises(ValueError, match='column'):
        ToolCallPart('t', '{not json').args_as_dict(raise_if_invalid=True)


def test_args_as_dict_on_json_that_is_not_an_object_raises_value_error_when_asked():
    with pytest.raises(ValueError, match='JSON object'):
        ToolCallPart('t', '[1, 2]').args_as_dict(raise_if_invalid=True)
    with pytest.raises(AssertionError, match='JSON object'):
        ToolCallPart('t', '"text"').args_as_dict(raise_if_invalid=True)


def test_args_as_dict_parses_json_and_passes_dicts_through():
    assert ToolCallPart('t', '{"a": [1, 2]}').args_as_dict() == {'a': [1, 2]}
    assert ToolCallPart('t', {'a': 1}).args_as_dict() == {'a': 1}
    assert ToolCallPart('t', None).args_as_dict() == {}
    assert ToolCallPart('t', '').args_as_dict() == {}


def test_args_as_json_str_renders_dict_args():
    assert ToolCallPart('t', {'city': 'Zürich'}).args_as_json_str() == '{"city": "Zürich"}'
    assert ToolCallPart('t', None).args_as_json_str() == '{}'
    assert ToolCallPart('t', '{"raw": 1}').args_as_json_str() == '{"raw": 1}'


def test_retry_prompt_model_response_renders_errors_or_message():
    errors: list[pydantic_core.ErrorDetails] = [
        {'type': 'missing', 'loc': ('x',), 'msg': 'Field required', 'input': {}}
    ]

    rendered = RetryPromptPart(errors, tool_name='t').model_response()

    assert rendered.startswith('1 validation error:')
    assert '"Field required"' in rendered
    assert rendered.endswith('Fix the errors and try again.')
    assert (
        RetryPromptPart('Use a bigger number.').model_response()
        == 'Validation feedback:\nUse a bigger number.\n\nFix the errors and try again.'
    )


def test_model_response_text_and_tool_calls_views():
    response = ModelResponse(parts=[TextPart('a'), ToolCallPart('t', {}), NativeToolCallPart('web', {}), TextPart('b')])

    assert response.text == 'a\n\nb'  # text parts with other parts between them are separate paragraphs
    assert [c.tool_name for c in response.tool_calls] == ['t']
    assert ModelResponse(parts=[ToolCallPart('t', {})]).text is None


def test_a_response_reads_back_its_text_thinking_files_and_native_tool_calls() -> None:
    image = BinaryImage(b'\x89PNG', media_type='image/png')
    pdf = BinaryContent(b'%PDF', media_type='application/pdf')
    search = NativeToolCallPart('web_search', {'query': 'paris'}, 'ws-1')
    found = NativeToolReturnPart('web_search', [{'url': 'https://example.com'}], 'ws-1')
    unanswered = NativeToolCallPart('code_execution', {'code': '1+1'}, 'ce-1')
    response = ModelResponse(
        parts=[
            ThinkingPart('Look it up.'),
            ThinkingPart('Then draw it.'),
            TextPart('Paris '),
            TextPart('is big.'),
            search,
            found,
            unanswered,
            TextPart('Here it is.'),
            FilePart(image),
            FilePart(pdf),
        ]
    )

    assert response.text == 'Paris is big.\n\nHere it is.'
    assert response.thinking == 'Look it up.\n\nThen draw it.'
    assert response.files == [image, pdf]
    assert response.images == [image]
    assert response.native_tool_calls == [(search, found)]
    assert (ModelResponse(parts=[]).text, ModelResponse(parts=[]).thinking) == (None, None)


@pytest.mark.parametrize(
    ('args', 'has_content'), [({}, False), ('', False), (None, False), ({'a': 0}, True), ('{}', True)]
)
def test_a_tool_call_has_content_once_it_has_arguments(args: dict[str, object] | str | None, has_content: bool) -> None:
    assert ToolCallPart('lookup', args).has_content() is has_content
    assert NativeToolCallPart('web_search', args).has_content() is has_content


def test_instruction_parts_join_into_paragraphs_and_sort_static_before_dynamic() -> None:
    static, dynamic = InstructionPart('  Be brief.'), InstructionPart('Today is Monday.  ', dynamic=True)

    assert InstructionPart.join([static, dynamic]) == 'Be brief.\n\nToday is Monday.'
    assert InstructionPart.join([InstructionPart('  ')]) is None
    assert InstructionPart.sorted([dynamic, static]) == [static, dynamic]
    assert (repr(static), repr(dynamic)) == (
        "InstructionPart(content='  Be brief.')",
        "InstructionPart(content='Today is Monday.  ', dynamic=True)",
    )
