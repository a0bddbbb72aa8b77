"""Histories stored by Pydantic AI load here, and histories stored here carry every field Pydantic AI reads.

`PYDANTIC_AI_HISTORY` is written by hand in the format Pydantic AI's `ModelMessagesTypeAdapter.dump_json` writes
(field names and order, `kind`/`part_kind` tags, base64 bytes, `Z` timestamps, computed `media_type` and
`identifier` on multi-modal content).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from agent import Agent
from agent.messages import (
    BinaryContent,
    ImageUrl,
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
    UserPromptPart,
)
from agent.models.test import TestModel
from agent.usage import RequestUsage

T0 = datetime(2025, 3, 1, 12, 30, 15, 123456, tzinfo=UTC)

PYDANTIC_AI_HISTORY = """
[
  {
    "parts": [
      {"content": "You are terse.", "timestamp": "2025-03-01T12:30:15.123456Z", "dynamic_ref": null,
       "part_kind": "system-prompt"},
      {
        "content": [
          "What is in this picture?",
          {"data": "iVBORw0K", "media_type": "image/png", "vendor_metadata": null, "kind": "binary",
           "identifier": "8181b0"},
          {"url": "https://example.com/cat.jpg", "force_download": false, "vendor_metadata": {"detail": "high"},
           "kind": "image-url", "media_type": "image/jpeg", "identifier": "c78aba"}
        ],
        "timestamp": "2025-03-01T12:30:15.123456Z",
        "part_kind": "user-prompt"
      }
    ],
    "timestamp": "2025-03-01T12:30:16Z",
    "instructions": "Answer briefly.",
    "kind": "request",
    "run_id": "run-1",
    "conversation_id": "conv-1",
    "metadata": {"channel": "web"}
  },
  {
    "parts": [
      {"content": "Looking at the image.", "id": "rs_1", "signature": "c2lnbmF0dXJl", "provider_name": "openai",
       "provider_details": {"summary_index": 0}, "part_kind": "thinking"},
      {"content": "Let me check.", "id": "msg_1", "provider_name": "openai", "provider_details": null,
       "part_kind": "text"},
      {"tool_name": "describe", "args": "{\\"detail\\": \\"high\\"}", "tool_call_id": "call_1", "tool_kind": null,
       "id": "fc_1", "provider_name": "openai", "provider_details": null, "part_kind": "tool-call"},
      {"tool_name": "web_search", "args": {"query": "cats"}, "tool_call_id": "ws_1", "tool_kind": null,
       "id": null, "provider_name": "openai", "provider_details": {"status": "completed"},
       "part_kind": "builtin-tool-call"},
      {"tool_name": "web_search", "content": [{"url": "https://example.com/cats"}], "tool_call_id": "ws_1",
       "tool_kind": null, "metadata": null, "timestamp": "2025-03-01T12:30:17Z", "outcome": "success",
       "provider_name": "openai", "provider_details": null, "part_kind": "builtin-tool-return"}
    ],
    "usage": {
      "input_tokens": 120, "cache_write_tokens": 0, "cache_read_tokens": 20, "output_tokens": 30,
      "input_audio_tokens": 5, "cache_audio_read_tokens": 1, "output_audio_tokens": 2,
      "details": {"reasoning_tokens": 12}
    },
    "model_name": "gpt-5",
    "timestamp": "2025-03-01T12:30:17.500000Z",
    "kind": "response",
    "provider_name": "openai",
    "provider_url": "https://api.openai.com/v1/",
    "provider_details": {"finish_reason": "completed"},
    "provider_response_id": "resp_1",
    "finish_reason": "tool_call",
    "run_id": "run-1",
    "conversation_id": "conv-1",
    "metadata": {"trace": "abc"},
    "state": "complete"
  },
  {
    "parts": [
      {"tool_name": "describe", "content": {"animal": "cat"}, "tool_call_id": "call_1", "tool_kind": null,
       "metadata": {"cached": true}, "timestamp": "2025-03-01T12:30:18Z", "outcome": "success",
       "part_kind": "tool-return"},
      {"content": [{"type": "int_parsing", "loc": ["count"], "msg": "Input should be a valid integer",
                    "input": "many"}],
       "tool_name": "count", "tool_call_id": "call_2", "timestamp": "2025-03-01T12:30:18Z",
       "part_kind": "retry-prompt"}
    ],
    "timestamp": "2025-03-01T12:30:19Z",
    "instructions": "Answer briefly.",
    "kind": "request",
    "run_id": "run-1",
    "conversation_id": "conv-1",
    "metadata": null
  },
  {
    "parts": [
      {"content": "A cat.", "id": null, "provider_name": null, "provider_details": null, "part_kind": "text"}
    ],
    "usage": {
      "input_tokens": 150, "cache_write_tokens": 0, "cache_read_tokens": 0, "output_tokens": 3,
      "input_audio_tokens": 0, "cache_audio_read_tokens": 0, "output_audio_tokens": 0, "details": {}
    },
    "model_name": "gpt-5",
    "timestamp": "2025-03-01T12:30:20Z",
    "kind": "response",
    "provider_name": "openai",
    "provider_url": null,
    "provider_details": null,
    "provider_response_id": null,
    "finish_reason": "stop",
    "run_id": "run-1",
    "conversation_id": "conv-1",
    "metadata": null,
    "state": "interrupted"
  }
]
"""

OUR_ADDITIONS = {'reasoning_tokens'}
"""Fields we write that Pydantic AI does not have (it ignores them when reading)."""


def differences(theirs: Any, ours: Any, path: str = '$') -> list[str]:
    """Where `ours` lacks or changes a value of `theirs` (keys only `ours` has must be in `OUR_ADDITIONS`)."""
    if isinstance(theirs, dict) and isinstance(ours, dict):
        found: list[str] = []
        for key in theirs.keys() | ours.keys():
            if key not in ours:
                found.append(f'{path}.{key}: missing')
            elif key not in theirs:
                if key not in OUR_ADDITIONS:
                    found.append(f'{path}.{key}: not a Pydantic AI field')
            else:
                found += differences(theirs[key], ours[key], f'{path}.{key}')
        return found
    if isinstance(theirs, list) and isinstance(ours, list) and len(theirs) == len(ours):
        return [d for i, (a, b) in enumerate(zip(theirs, ours, strict=True)) for d in differences(a, b, f'{path}[{i}]')]
    return [] if theirs == ours else [f'{path}: {theirs!r} != {ours!r}']


def test_a_pydantic_ai_history_loads_with_its_messages_and_part_types():
    history = ModelMessagesTypeAdapter.validate_json(PYDANTIC_AI_HISTORY)

    assert [type(m) for m in history] == [ModelRequest, ModelResponse, ModelRequest, ModelResponse]
    first, second, third, fourth = history
    assert [type(p) for p in first.parts] == [SystemPromptPart, UserPromptPart]
    assert [type(p) for p in second.parts] == [
        ThinkingPart,
        TextPart,
        ToolCallPart,
        NativeToolCallPart,
        NativeToolReturnPart,
    ]
    assert [type(p) for p in third.parts] == [ToolReturnPart, RetryPromptPart]
    assert [type(p) for p in fourth.parts] == [TextPart]


def test_a_pydantic_ai_request_loads_with_its_prompts_timestamps_and_metadata():
    request = ModelMessagesTypeAdapter.validate_json(PYDANTIC_AI_HISTORY)[0]

    assert isinstance(request, ModelRequest)
    assert request.timestamp == datetime(2025, 3, 1, 12, 30, 16, tzinfo=UTC)
    assert (request.instructions, request.run_id, request.conversation_id) == ('Answer briefly.', 'run-1', 'conv-1')
    assert request.metadata == {'channel': 'web'}
    system, user = request.parts
    assert isinstance(system, SystemPromptPart)
    assert (system.content, system.timestamp, system.dynamic_ref) == ('You are terse.', T0, None)
    assert isinstance(user, UserPromptPart)
    text, image_bytes, image_url = user.content
    assert text == 'What is in this picture?'
    assert isinstance(image_bytes, BinaryContent)
    assert (image_bytes.data, image_bytes.media_type) == (b'\x89PNG\r\n', 'image/png')
    assert isinstance(image_url, ImageUrl)
    assert (image_url.url, image_url.vendor_metadata) == ('https://example.com/cat.jpg', {'detail': 'high'})


def test_a_pydantic_ai_response_loads_with_its_provider_fields_usage_and_state():
    response = ModelMessagesTypeAdapter.validate_json(PYDANTIC_AI_HISTORY)[1]

    assert isinstance(response, ModelResponse)
    assert (response.model_name, response.provider_name) == ('gpt-5', 'openai')
    assert response.provider_url == 'https://api.openai.com/v1/'
    assert response.provider_details == {'finish_reason': 'completed'}
    assert (response.provider_response_id, response.finish_reason) == ('resp_1', 'tool_call')
    assert response.timestamp == datetime(2025, 3, 1, 12, 30, 17, 500000, tzinfo=UTC)
    assert (response.metadata, response.state) == ({'trace': 'abc'}, 'complete')
    assert response.usage == RequestUsage(
        input_tokens=120,
        cache_read_tokens=20,
        output_tokens=30,
        input_audio_tokens=5,
        cache_audio_read_tokens=1,
        output_audio_tokens=2,
        details={'reasoning_tokens': 12},
    )


def test_pydantic_ai_response_parts_load_with_their_provider_fields():
    response = ModelMessagesTypeAdapter.validate_json(PYDANTIC_AI_HISTORY)[1]
    thinking, text, call, native_call, native_return = response.parts

    assert thinking == ThinkingPart(
        'Looking at the image.',
        id='rs_1',
        signature='c2lnbmF0dXJl',
        provider_name='openai',
        provider_details={'summary_index': 0},
    )
    assert text == TextPart('Let me check.', id='msg_1', provider_name='openai')
    assert call == ToolCallPart('describe', '{"detail": "high"}', 'call_1', id='fc_1', provider_name='openai')
    assert isinstance(call, ToolCallPart)
    assert call.args_as_dict() == {'detail': 'high'}
    assert native_call == NativeToolCallPart(
        'web_search', {'query': 'cats'}, 'ws_1', provider_name='openai', provider_details={'status': 'completed'}
    )
    assert isinstance(native_return, NativeToolReturnPart)
    assert (native_return.content, native_return.outcome) == ([{'url': 'https://example.com/cats'}], 'success')


def test_pydantic_ai_tool_results_and_retry_prompts_load():
    request = ModelMessagesTypeAdapter.validate_json(PYDANTIC_AI_HISTORY)[2]

    result, retry = request.parts
    assert result == ToolReturnPart(
        'describe',
        {'animal': 'cat'},
        'call_1',
        metadata={'cached': True},
        timestamp=datetime(2025, 3, 1, 12, 30, 18, tzinfo=UTC),
    )
    assert isinstance(retry, RetryPromptPart)
    assert (retry.tool_name, retry.tool_call_id) == ('count', 'call_2')
    assert isinstance(retry.content, list)
    assert retry.content[0]['msg'] == 'Input should be a valid integer'
    assert retry.content[0]['loc'] == ('count',)


def test_an_interrupted_pydantic_ai_response_keeps_its_state():
    response = ModelMessagesTypeAdapter.validate_json(PYDANTIC_AI_HISTORY)[3]

    assert isinstance(response, ModelResponse)
    assert response.state == 'interrupted'


def test_a_loaded_pydantic_ai_history_is_written_back_with_every_field_unchanged():
    history = ModelMessagesTypeAdapter.validate_json(PYDANTIC_AI_HISTORY)

    written = json.loads(ModelMessagesTypeAdapter.dump_json(history))

    assert differences(json.loads(PYDANTIC_AI_HISTORY), written) == []


def _shapes(value: Any, into: dict[str, set[str]]) -> dict[str, set[str]]:
    """The keys of every tagged object (message, part, multi-modal item) in a dumped history, by tag."""
    if isinstance(value, dict):
        tag = value.get('part_kind') or value.get('kind')
        if isinstance(tag, str):
            into.setdefault(tag, set()).update(value)
        for item in value.values():
            _shapes(item, into)
    elif isinstance(value, list):
        for item in value:
            _shapes(item, into)
    return into


def test_a_history_from_our_run_has_every_field_pydantic_ai_writes_for_each_kind():
    agent = Agent(TestModel(), instructions='Answer briefly.')

    @agent.tool_plain
    def describe(detail: str) -> str:
        return 'a cat'

    result = agent.run_sync(['What is in this picture?', BinaryContent(b'\x89PNG\r\n', media_type='image/png')])

    ours = _shapes(json.loads(result.all_messages_json()), {})
    theirs = _shapes(json.loads(PYDANTIC_AI_HISTORY), {})
    assert set(ours) == {'request', 'response', 'user-prompt', 'binary', 'tool-call', 'tool-return', 'text'}
    for tag, keys in ours.items():
        assert keys - OUR_ADDITIONS == theirs[tag], tag


def test_field_names_of_older_pydantic_ai_histories_still_load():
    old = (
        b'[{"kind":"response","parts":[{"part_kind":"text","content":"hi"}],'
        b'"usage":{"request_tokens":7,"response_tokens":2,"details":null},'
        b'"vendor_id":"resp_9","vendor_details":{"region":"eu"},"timestamp":"2024-06-01T00:00:00Z"}]'
    )

    [response] = ModelMessagesTypeAdapter.validate_json(old)

    assert isinstance(response, ModelResponse)
    assert (response.provider_response_id, response.provider_details) == ('resp_9', {'region': 'eu'})
    assert response.usage == RequestUsage(input_tokens=7, output_tokens=2)
