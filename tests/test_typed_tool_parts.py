"""Typed views of capability-loading and tool-search parts."""

from __future__ import annotations

from agent._tool_search import ToolSearchCallPart, ToolSearchReturnPart
from agent.messages import (
    LoadCapabilityCallPart,
    LoadCapabilityReturnPart,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
)


def test_load_capability_parts_fill_in_the_tool_and_read_their_arguments() -> None:
    call = LoadCapabilityCallPart(args='{"id": "refunds"}', tool_call_id='c1')
    assert (call.tool_name, call.tool_kind, call.capability_id) == ('load_capability', 'capability-load', 'refunds')
    assert LoadCapabilityCallPart(args='{"id":', tool_call_id='c2').capability_id is None  # still streaming
    done = LoadCapabilityReturnPart(content={'instructions': 'Be exact.'}, tool_call_id='c1')
    assert done.instructions == 'Be exact.'
    assert LoadCapabilityReturnPart(content={}, tool_call_id='c1').instructions is None


def test_typed_parts_are_plain_tool_parts_in_a_stored_history() -> None:
    history = [
        ModelResponse(parts=[ToolSearchCallPart(args={'queries': ['refund']}, tool_call_id='s')]),
        ModelRequest(parts=[ToolSearchReturnPart(content={'discovered_tools': []}, tool_call_id='s')]),
    ]
    revived = ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(history))
    call, result = revived[0].parts[0], revived[1].parts[0]
    assert isinstance(call, ToolCallPart)
    assert (call.tool_name, call.tool_kind) == ('search_tools', 'tool-search')
    assert isinstance(result, ToolReturnPart)
    assert result.content == {'discovered_tools': []}
