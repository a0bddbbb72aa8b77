"""AG-UI messages in (`load_messages`) and out (`dump_messages`)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import (
    ActivityMessage,
    AssistantMessage,
    DataSource,
    DeveloperMessage,
    DocumentPart,
    FileSource,
    FunctionCall,
    ImagePart,
    ReasoningMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from ag_ui.core import TextPart as AGUITextPart

from agent.messages import (
    BinaryContent,
    BinaryImage,
    CompactionPart,
    DocumentUrl,
    FilePart,
    ImageUrl,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UploadedFile,
    UserPromptPart,
)
from agent.ui.ag_ui import AGUIAdapter


def _comparable(messages: list[ModelMessage]) -> list[dict[str, Any]]:
    """Messages as JSON without the values the mapping does not carry (times, response metadata)."""
    dumped = ModelMessagesTypeAdapter.dump_python(messages, mode='json')
    for message in dumped:
        for key in ('timestamp', 'usage', 'model_name', 'provider_name', 'finish_reason', 'run_id', 'metadata'):
            message.pop(key, None)
        for part in message['parts']:
            part.pop('timestamp', None)
            if isinstance(part.get('args'), str):
                part['args'] = json.loads(part['args'])
    return dumped


def _call(call_id: str, name: str, arguments: str = '{}') -> ToolCall:
    return ToolCall(id=call_id, function=FunctionCall(name=name, arguments=arguments))


def test_every_ag_ui_role_loads_into_requests_and_responses_in_order():
    messages = AGUIAdapter.load_messages(
        [
            SystemMessage(id='s', content='Be brief.'),
            DeveloperMessage(id='d', content='Use metric units.'),
            UserMessage(id='u', content='Weather in Paris?'),
            ReasoningMessage(
                id='r', content='Look it up.', encrypted_value='{"signature": "sig", "provider_name": "x"}'
            ),
            AssistantMessage(id='a', content='Checking.', tool_calls=[_call('c1', 'weather', '{"city": "Paris"}')]),
            ToolMessage(id='t', tool_call_id='c1', content='{"temp": 21}'),
            AssistantMessage(id='a2', content='21 degrees.'),
            ActivityMessage(id='p', activity_type='progress', content={'step': 2}),
        ]
    )

    assert _comparable(messages) == _comparable(
        [
            ModelRequest(
                parts=[
                    SystemPromptPart('Be brief.'),
                    SystemPromptPart('Use metric units.'),
                    UserPromptPart('Weather in Paris?'),
                ]
            ),
            ModelResponse(
                parts=[
                    ThinkingPart('Look it up.', signature='sig', provider_name='x'),
                    TextPart('Checking.'),
                    ToolCallPart('weather', '{"city": "Paris"}', 'c1'),
                ]
            ),
            ModelRequest(parts=[ToolReturnPart('weather', {'temp': 21}, 'c1')]),
            # The activity message is UI progress, not conversation: it is left out.
            ModelResponse(parts=[TextPart('21 degrees.')]),
        ]
    )


def test_multimodal_user_content_loads_as_urls_binary_and_uploaded_files():
    [request] = AGUIAdapter.load_messages(
        [
            UserMessage(
                id='u',
                content=[
                    AGUITextPart(text='What is in these?'),
                    ImagePart(source=UrlSource(value='https://example.com/cat.png', mime_type='image/png')),
                    ImagePart(source=DataSource(value='iVBORw0K', mime_type='image/png')),
                    DocumentPart(source=FileSource(value='file-abc', provider='openai', mime_type='application/pdf')),
                ],
            )
        ]
    )

    assert isinstance(request, ModelRequest)
    [part] = request.parts
    assert isinstance(part, UserPromptPart)
    text, url, binary, uploaded = part.content
    assert text == 'What is in these?'
    assert url == ImageUrl('https://example.com/cat.png', media_type='image/png')
    assert isinstance(binary, BinaryImage)
    assert binary.media_type == 'image/png'
    assert uploaded == UploadedFile('file-abc', 'openai', media_type='application/pdf')


def test_a_file_from_an_unknown_provider_is_dropped_with_a_warning():
    message = UserMessage(
        id='u',
        content=[AGUITextPart(text='Read this'), DocumentPart(source=FileSource(value='f-1', provider='elsewhere'))],
    )

    with pytest.warns(UserWarning, match="provider 'elsewhere'"):
        [request] = AGUIAdapter.load_messages([message])

    assert isinstance(request, ModelRequest)
    assert request.parts[0].content == 'Read this'


def test_a_failed_tool_message_loads_as_a_failed_tool_return():
    messages = AGUIAdapter.load_messages(
        [
            AssistantMessage(id='a', tool_calls=[_call('c1', 'geolocate')]),
            ToolMessage(id='t', tool_call_id='c1', content='', error='Permission denied'),
        ]
    )

    [result] = messages[1].parts
    assert isinstance(result, ToolReturnPart)
    assert (result.content, result.outcome) == ('Permission denied', 'failed')


def test_a_tool_message_without_its_call_cannot_be_loaded():
    with pytest.raises(ValueError, match=r"messages\[0\].*'c9'"):
        AGUIAdapter.load_messages([ToolMessage(id='t', tool_call_id='c9', content='42')])


def test_messages_survive_a_dump_and_load_round_trip():
    messages: list[ModelMessage] = [
        ModelRequest(
            parts=[
                SystemPromptPart('Be brief.'),
                UserPromptPart(
                    [
                        'Compare',
                        ImageUrl('https://example.com/a.png'),
                        BinaryContent(b'%PDF', media_type='application/pdf'),
                    ]
                ),
            ]
        ),
        ModelResponse(
            parts=[
                ThinkingPart('Search first.', signature='sig', provider_name='anthropic'),
                TextPart('Searching.'),
                NativeToolCallPart('web_search', {'query': 'a'}, 'n1', provider_name='anthropic'),
                NativeToolReturnPart('web_search', [{'title': 'A'}], 'n1', provider_name='anthropic'),
                TextPart('Found it.'),
                ToolCallPart('lookup', {'id': 7}, 'c1'),
            ]
        ),
        ModelRequest(parts=[ToolReturnPart('lookup', {'name': 'seven'}, 'c1')]),
        ModelResponse(
            parts=[
                FilePart(BinaryContent(b'\x89PNG', media_type='image/png')),
                CompactionPart('Summary so far.', provider_name='openai'),
            ]
        ),
        ModelRequest(parts=[UserPromptPart('Thanks')]),
    ]

    # Files the model made travel only with `preserve_file_data` (a client must not hand the model such files).
    dumped = AGUIAdapter.dump_messages(messages, preserve_file_data=True)

    assert [message.role for message in dumped] == [
        'system',
        'user',
        'reasoning',
        'assistant',
        'tool',
        'assistant',
        'tool',
        'activity',
        'activity',
        'user',
    ]
    assert _comparable(AGUIAdapter.load_messages(dumped, preserve_file_data=True)) == _comparable(messages)
    without_files = [part for m in AGUIAdapter.load_messages(dumped) for part in m.parts]
    assert not any(isinstance(part, FilePart) for part in without_files)
    assert not any(getattr(m, 'activity_type', None) == 'pydantic_ai_file' for m in AGUIAdapter.dump_messages(messages))


def test_dumped_native_tool_calls_are_marked_and_retries_are_failed_tool_messages():
    dumped = AGUIAdapter.dump_messages(
        [
            ModelResponse(
                parts=[
                    NativeToolCallPart('code', {'src': '1+1'}, 'n1', provider_name='openai'),
                    ToolCallPart('f', None, 'c1'),
                ]
            ),
            ModelRequest(parts=[RetryPromptPart('Wrong type', tool_name='f', tool_call_id='c1')]),
        ]
    )

    assistant, retry = dumped
    assert isinstance(assistant, AssistantMessage)
    assert assistant.tool_calls is not None
    assert [call.id for call in assistant.tool_calls] == ['pyd_ai_builtin|openai|n1', 'c1']
    assert isinstance(retry, ToolMessage)
    assert retry.error == 'Wrong type\n\nFix the errors and try again.'


def test_tool_results_with_media_dump_as_content_parts():
    [message] = AGUIAdapter.dump_messages(
        [ModelRequest(parts=[ToolReturnPart('chart', ['Here:', DocumentUrl('https://example.com/c.pdf')], 'c1')])]
    )

    assert isinstance(message, ToolMessage)
    assert message.model_dump(by_alias=True)['content'] == [
        {'type': 'text', 'text': 'Here:'},
        {
            'type': 'document',
            'source': {'type': 'url', 'value': 'https://example.com/c.pdf', 'mimeType': 'application/pdf'},
        },
    ]
