"""Which tool return schemas a prepared request carries, and where: as schemas, in descriptions, or not at all."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

from agent import Agent, Tool
from agent._tool_def import ToolDefinition
from agent.capabilities import IncludeToolReturnSchemas
from agent.models import ModelProfile, ModelRequestParameters
from agent.models._google import _declaration
from agent.models.test import TestModel

INTEGER = {'type': 'integer'}


def _tool(name: str, **kwargs: Any) -> ToolDefinition:
    return ToolDefinition(name=name, parameters_json_schema={'type': 'object', 'properties': {}}, **kwargs)


def _prepared(profile: ModelProfile, *tools: ToolDefinition) -> list[ToolDefinition]:
    _, params = TestModel(profile=profile).prepare_request(None, ModelRequestParameters(function_tools=list(tools)))
    return params.function_tools


def test_a_model_that_takes_return_schemas_gets_only_the_opted_in_ones_and_the_caller_keeps_its_own():
    hidden = _tool('hidden', return_schema=INTEGER)
    shown = _tool('shown', description='Counts.', return_schema=INTEGER, include_return_schema=True)

    prepared = _prepared(ModelProfile(supports_tool_return_schema=True), hidden, shown)

    assert [(t.return_schema, t.description) for t in prepared] == [(None, None), (INTEGER, 'Counts.')]
    assert hidden.return_schema == INTEGER


def test_any_other_model_reads_an_opted_in_return_schema_at_the_end_of_the_description():
    described = _tool('described', description='Counts.', return_schema=INTEGER, include_return_schema=True)
    bare = _tool('bare', return_schema=INTEGER, include_return_schema=True)

    prepared = _prepared(ModelProfile(), described, bare)

    schema_text = f'Return schema:\n\n{json.dumps(INTEGER, indent=2)}'
    assert [(t.description, t.return_schema) for t in prepared] == [
        (f'Counts.\n\n{schema_text}', None),
        (schema_text, None),
    ]
    # Preparing the prepared request again changes nothing and has nothing to warn about.
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert _prepared(ModelProfile(), *prepared) == prepared


@pytest.mark.parametrize('schema', [None, {}], ids=['no schema', 'empty schema'])
def test_opting_in_without_a_meaningful_return_schema_warns(schema: dict[str, Any] | None):
    tool = _tool('lookup', return_schema=schema, include_return_schema=True)

    with pytest.warns(UserWarning, match="Tool 'lookup' has `include_return_schema` enabled but no meaningful"):
        [prepared] = _prepared(ModelProfile(supports_tool_return_schema=True), tool)

    assert prepared.return_schema is None


def test_an_agent_run_on_the_test_model_shows_the_selected_tools_return_schemas_in_their_descriptions():
    def width(x: int) -> int:
        """Measure."""
        return x

    def height(x: int) -> int:
        """Measure."""
        return x

    model = TestModel()
    agent = Agent(model, tools=[Tool(width), Tool(height)], capabilities=[IncludeToolReturnSchemas(tools=['width'])])
    agent.run_sync('go')

    assert model.last_model_request_parameters is not None
    descriptions = {t.name: t.description for t in model.last_model_request_parameters.function_tools}
    assert descriptions == {'width': 'Measure.\n\nReturn schema:\n\n{\n  "type": "integer"\n}', 'height': 'Measure.'}


def test_gemini_declares_an_opted_in_return_schema_as_the_response_schema():
    shown = _tool('shown', return_schema=INTEGER, include_return_schema=True)
    profile = ModelProfile(supports_tool_return_schema=True)

    [prepared] = _prepared(profile, shown)

    assert _declaration(prepared)['responseJsonSchema'] == INTEGER
    assert 'responseJsonSchema' not in _declaration(_tool('hidden'))
