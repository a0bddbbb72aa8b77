"""The runtime's payloads leave out default fields, and decode to exactly the objects that were sent."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pydantic

from activities._types import ActivityRunContext, CallToolOutput, ModelRequestOutput
from agent import BinaryContent, DeferredToolResults, ToolDenied
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.usage import RequestUsage, RunUsage
from workflows import AgentRunInput, AgentRunOutput, data_converter
from workflows._compact import compact

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def round_trip(value: Any) -> tuple[dict[str, Any], Any]:
    [payload] = data_converter.payload_converter.to_payloads([value])
    [decoded] = data_converter.payload_converter.from_payloads([payload], [type(value)])
    return json.loads(payload.data), decoded


def messages() -> list[ModelMessage]:
    return [
        ModelRequest(
            parts=[UserPromptPart(['look', BinaryContent(b'\x89PNG', media_type='image/png')], timestamp=WHEN)]
        ),
        ModelResponse(
            parts=[ToolCallPart('lookup', {'key': None}, 'c1')], usage=RequestUsage(output_tokens=3), timestamp=WHEN
        ),
        ModelRequest(parts=[ToolReturnPart('lookup', None, 'c1', timestamp=WHEN)]),
        ModelResponse(parts=[TextPart('')], timestamp=WHEN),
    ]


def test_a_run_result_decodes_to_the_same_messages_without_their_default_fields() -> None:
    output = AgentRunOutput(output={'answer': None}, new_messages=messages(), usage=RunUsage(requests=2), run_id='r')
    sent, decoded = round_trip(output)
    assert decoded == output
    response = sent['new_messages'][1]
    assert 'provider_name' not in response
    assert 'finish_reason' not in response
    assert response['usage'] == {'output_tokens': 3}
    # Union tags are always written, and so are values that merely look like defaults.
    assert response['kind'] == 'response'
    assert sent['new_messages'][2]['parts'][0]['part_kind'] == 'tool-return'
    assert sent['new_messages'][2]['parts'][0]['content'] is None
    assert sent['new_messages'][1]['parts'][0]['args'] == {'key': None}
    assert sent['new_messages'][3]['parts'][0]['content'] == ''


def test_a_run_result_keeps_its_documented_top_level_fields() -> None:
    sent, _ = round_trip(AgentRunOutput(output=None))
    assert set(sent) >= {'output', 'new_messages', 'usage', 'run_id', 'conversation_id'}


def test_activity_payloads_round_trip() -> None:
    response = messages()[1]
    assert isinstance(response, ModelResponse)
    for value in (
        ModelRequestOutput(response=response, response_key='k'),
        CallToolOutput(result={'kind': 'binary', 'not': 'content'}, usage=RunUsage(tool_calls=1), content_key='c'),
        AgentRunInput(
            agent='a', prompt='hi', deferred_tool_results=DeferredToolResults(approvals={'c1': ToolDenied('no')})
        ),
    ):
        _, decoded = round_trip(value)
        assert decoded == value


def test_ids_and_timestamps_are_never_generated_to_compare_with_a_default() -> None:
    # A part built without an id or timestamp draws them from the run's environment; compacting must not draw
    # again (that would shift a workflow's random sequence), so such fields are simply always written.
    part = ToolCallPart('t', {})
    out = compact(part)
    assert out['tool_call_id'] == part.tool_call_id
    assert pydantic.TypeAdapter(ToolCallPart).validate_python(out) == part


def test_the_run_context_crossing_into_activities_is_written_without_defaults() -> None:
    ctx = ActivityRunContext(run_id='r', conversation_id='c', run_step=1, usage=RunUsage(requests=1))
    sent, decoded = round_trip(CallToolOutput(result=None, usage=RunUsage()))
    assert decoded == CallToolOutput(result=None)
    assert 'usage' not in sent
    assert compact(ctx) == {
        'run_id': 'r',
        'conversation_id': 'c',
        'run_step': 1,
        'usage': {'requests': 1},
    }
