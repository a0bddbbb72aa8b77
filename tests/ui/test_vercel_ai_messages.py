"""`VercelAIAdapter.load_messages` and `dump_messages`: UI messages to agent messages and back."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from agent.messages import (
    BinaryContent,
    BinaryImage,
    DocumentUrl,
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.ui.vercel_ai import VercelAIAdapter
from agent.ui.vercel_ai._dump import merge_steps
from agent.ui.vercel_ai.request_types import UIMessage
from tests.ui._node import run_node

HISTORY: list[ModelMessage] = [
    ModelRequest(
        parts=[
            SystemPromptPart('Be brief.'),
            UserPromptPart(
                ['Look at this', BinaryImage(data=b'\x89PNG', media_type='image/png'), ImageUrl('https://x.test/a.png')]
            ),
        ]
    ),
    ModelResponse(
        parts=[
            ThinkingPart('I should check.', signature='sig-1', provider_name='anthropic'),
            TextPart('Checking.', id='msg_1'),
            ToolCallPart('weather', {'city': 'Paris'}, 'call_ok'),
            ToolCallPart('lookup', {'q': 'x'}, 'call_err'),
            ToolCallPart('delete', {'path': '/tmp'}, 'call_denied'),
        ]
    ),
    ModelRequest(
        parts=[
            ToolReturnPart('weather', {'temp': 21}, 'call_ok'),
            ToolReturnPart('lookup', 'lookup failed', 'call_err', outcome='failed'),
            ToolReturnPart('delete', 'Not allowed.', 'call_denied', outcome='denied'),
        ]
    ),
    ModelResponse(parts=[TextPart('It is 21 degrees.')]),
    ModelRequest(parts=[UserPromptPart('Thanks')]),
    ModelResponse(parts=[ToolCallPart('send', {'to': 'me'}, 'call_pending')]),
]


def _comparable(messages: list[ModelMessage]) -> list[tuple[str, list[object]]]:
    """Messages without the fields the UI does not carry (times, run ids)."""
    out: list[tuple[str, list[object]]] = []
    for message in messages:
        parts: list[object] = []
        for part in message.parts:
            if isinstance(part, ToolReturnPart):
                parts.append(('return', part.tool_name, part.tool_call_id, part.content, part.outcome))
            elif isinstance(part, UserPromptPart | SystemPromptPart):
                parts.append((part.part_kind, part.content))
            else:
                parts.append(part)
        out.append((message.kind, parts))
    return out


def test_dumped_history_is_valid_for_the_ai_sdk_and_loads_back_to_the_same_messages():
    dumped = VercelAIAdapter.dump_messages(HISTORY)

    as_json = json.dumps([message.model_dump(mode='json', by_alias=True, exclude_none=True) for message in dumped])
    validated = run_node('vercel_ai_check.mjs', as_json, 'messages')
    assert validated['error'] is None
    assert validated['valid'] is True
    loaded = VercelAIAdapter.load_messages([UIMessage.model_validate(m) for m in validated['messages']])
    assert _comparable(loaded) == _comparable(HISTORY)


def test_dump_shows_each_response_as_an_assistant_message_with_its_tool_calls_results_errors_and_denials():
    dumped = VercelAIAdapter.dump_messages(HISTORY)

    assert [message.role for message in dumped] == ['system', 'user', 'assistant', 'assistant', 'user', 'assistant']
    assistant = dumped[2].model_dump(by_alias=True, exclude_none=True)
    assert [(part['type'], part.get('state')) for part in assistant['parts']] == [
        ('reasoning', 'done'),
        ('text', 'done'),
        ('tool-weather', 'output-available'),
        ('tool-lookup', 'output-error'),
        ('tool-delete', 'output-denied'),
    ]
    assert assistant['parts'][2]['output'] == {'temp': 21}
    assert assistant['parts'][2]['providerExecuted'] is False
    assert assistant['parts'][3]['errorText'] == 'lookup failed'
    assert assistant['parts'][4]['approval'] == {'id': 'call_denied', 'approved': False, 'reason': 'Not allowed.'}
    # Each message carries its timestamp under Pydantic AI's key, so a reload restores it.
    assert set(assistant['metadata']) == {'pydantic_ai'}
    assert [(part['type'], part.get('state')) for part in dumped[3].model_dump(by_alias=True)['parts']] == [
        ('text', 'done')
    ]
    pending = dumped[5].model_dump(by_alias=True, exclude_none=True)['parts'][0]
    assert (pending['state'], pending['approval']) == ('approval-requested', {'id': 'call_pending'})


def test_merge_steps_joins_a_turns_responses_into_one_assistant_message_of_steps():
    merged = merge_steps(VercelAIAdapter.dump_messages(HISTORY))

    assert [message.role for message in merged] == ['system', 'user', 'assistant', 'user', 'assistant']
    steps = [part.type for part in merged[2].parts]
    assert steps == [
        'step-start',
        'reasoning',
        'text',
        'tool-weather',
        'tool-lookup',
        'tool-delete',
        'step-start',
        'text',
    ]
    assert _comparable(VercelAIAdapter.load_messages(merged)) == _comparable(HISTORY)


def test_dump_gives_stable_ids_and_accepts_an_id_function():
    assert [m.id for m in VercelAIAdapter.dump_messages(HISTORY)] == [
        m.id for m in VercelAIAdapter.dump_messages(HISTORY)
    ]
    custom = VercelAIAdapter.dump_messages(HISTORY, generate_message_id=lambda message, role, index: f'{role}-{index}')
    assert [m.id for m in custom] == ['system-0', 'user-1', 'assistant-2', 'assistant-3', 'user-4', 'assistant-5']


def test_v5_dump_shows_a_call_without_result_as_input_available():
    dumped = VercelAIAdapter.dump_messages(HISTORY, sdk_version=5)
    assert dumped[-1].parts[-1].state == 'input-available'  # pyright: ignore[reportAttributeAccessIssue]


def test_load_reads_user_files_and_splits_assistant_steps_into_responses_and_tool_results():
    messages = [
        UIMessage.model_validate(
            {
                'id': 'u',
                'role': 'user',
                'parts': [
                    {'type': 'text', 'text': 'Describe'},
                    {'type': 'file', 'mediaType': 'image/png', 'url': 'data:image/png;base64,iVBO'},
                    {'type': 'file', 'mediaType': 'application/pdf', 'url': 'https://x.test/doc.pdf'},
                    {'type': 'data-note', 'data': {'ignored': True}},
                ],
            }
        ),
        UIMessage.model_validate(
            {
                'id': 'a',
                'role': 'assistant',
                'parts': [
                    {'type': 'step-start'},
                    {
                        'type': 'dynamic-tool',
                        'toolName': 'search',
                        'toolCallId': 'c1',
                        'state': 'output-available',
                        'input': '{"q": "x"}',
                        'output': ['hit'],
                    },
                    {'type': 'source-url', 'sourceId': 's', 'url': 'https://x.test'},
                    {
                        'type': 'tool-other',
                        'toolCallId': 'c2',
                        'state': 'output-available',
                        'input': {},
                        'output': 'ok',
                    },
                    {'type': 'step-start'},
                    {'type': 'text', 'text': 'Found it.'},
                ],
            }
        ),
    ]

    loaded = VercelAIAdapter.load_messages(messages)

    assert [message.kind for message in loaded] == ['request', 'response', 'request', 'response']
    prompt = loaded[0].parts[0]
    assert isinstance(prompt, UserPromptPart)
    assert not isinstance(prompt.content, str)
    text, image, document = prompt.content
    assert text == 'Describe'
    assert isinstance(image, BinaryContent)
    assert image.media_type == 'image/png'
    assert isinstance(document, DocumentUrl)
    assert document.url == 'https://x.test/doc.pdf'
    assert loaded[1].parts == [ToolCallPart('search', {'q': 'x'}, 'c1'), ToolCallPart('other', {}, 'c2')]
    assert [(part.tool_call_id, part.content) for part in loaded[2].parts if isinstance(part, ToolReturnPart)] == [
        ('c1', ['hit']),
        ('c2', 'ok'),
    ]
    assert loaded[3].parts == [TextPart('Found it.')]


def test_load_reads_part_metadata_stored_under_pydantic_ais_key():
    stored = UIMessage.model_validate(
        {
            'id': 'a1',
            'role': 'assistant',
            'parts': [
                {
                    'type': 'reasoning',
                    'text': 'Hmm.',
                    'state': 'done',
                    'providerMetadata': {'pydantic_ai': {'id': 'rs_1', 'signature': 'sig', 'provider_name': 'openai'}},
                },
                {'type': 'text', 'text': 'Hi', 'providerMetadata': {'pydantic_ai': {'id': 'msg_1'}}},
            ],
        }
    )

    (response,) = VercelAIAdapter.load_messages([stored])

    assert isinstance(response, ModelResponse)
    thinking, text = response.parts
    assert isinstance(thinking, ThinkingPart)
    assert (thinking.id, thinking.signature, thinking.provider_name) == ('rs_1', 'sig', 'openai')
    assert isinstance(text, TextPart)
    assert text.id == 'msg_1'


def test_message_timestamps_and_metadata_survive_a_dump_and_load_under_pydantic_ais_key():
    stamp = datetime(2026, 4, 15, 12, 0, 45, tzinfo=UTC)
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('Hi')], timestamp=stamp, metadata={'app': 1}),
        ModelResponse(parts=[TextPart('Hello')], timestamp=stamp),
    ]

    dumped = VercelAIAdapter.dump_messages(history)

    assert dumped[0].metadata == {'app': 1, 'pydantic_ai': {'timestamp': '2026-04-15T12:00:45Z'}}
    request, response = VercelAIAdapter.load_messages(dumped)
    assert (request.timestamp, request.metadata, response.timestamp) == (stamp, {'app': 1}, stamp)


def test_part_metadata_written_by_earlier_versions_under_durable_agents_still_loads():
    stored = UIMessage.model_validate(
        {
            'id': 'a1',
            'role': 'assistant',
            'parts': [{'type': 'text', 'text': 'Hi', 'providerMetadata': {'durable_agents': {'id': 'msg_1'}}}],
        }
    )

    (response,) = VercelAIAdapter.load_messages([stored])

    assert response.parts == [TextPart('Hi', id='msg_1')]
