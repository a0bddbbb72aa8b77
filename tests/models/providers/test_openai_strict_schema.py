"""Strict-mode schemas for OpenAI tools and structured output."""

from __future__ import annotations

from agent.models._openai_common import strict_schema


def test_strict_mode_lists_no_required_properties_for_a_tool_without_parameters() -> None:
    schema = strict_schema({'type': 'object', 'properties': {}, 'additionalProperties': False})

    assert schema == {'type': 'object', 'properties': {}, 'additionalProperties': False, 'required': []}


def test_strict_mode_keeps_the_required_list_a_schema_has() -> None:
    schema = strict_schema({'type': 'object', 'properties': {'x': {'type': 'integer'}}, 'required': ['x']})

    assert schema['required'] == ['x']
    assert schema['additionalProperties'] is False
