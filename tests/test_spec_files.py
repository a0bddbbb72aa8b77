"""Spec files and `from_spec` arguments: saving with a schema, reading back, and how arguments combine with a spec."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent import Agent, AgentSpec, RunContext, UserError
from agent._spec import SpecError
from agent._warnings import PydanticAIDeprecationWarning
from agent.capabilities import AbstractCapability, Thinking, WebSearch
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel


@dataclass
class Greeting(AbstractCapability[Any]):
    """A capability of the user's own, for specs."""

    text: str = 'hi'
    times: int = 1


def test_to_file_writes_short_forms_and_a_schema_that_from_file_reads_back(tmp_path: Path) -> None:
    spec = AgentSpec(
        model='test',
        name='helper',
        instructions=['Be brief.', 'Be kind.'],
        retries={'tools': 3},
        capabilities=[{'Greeting': {'times': 2}}, 'Thinking'],
    )
    yaml_path = tmp_path / 'helper.yaml'
    spec.to_file(yaml_path, custom_capability_types=[Greeting])
    text = yaml_path.read_text()
    assert text.startswith('# yaml-language-server: $schema=helper_schema.json\n')
    assert '- Greeting:\n    times: 2\n- Thinking\n' in text
    assert AgentSpec.from_file(yaml_path) == spec

    schema = json.loads((tmp_path / 'helper_schema.json').read_text())
    forms = schema['properties']['capabilities']['items']['anyOf']
    assert {'const': 'Greeting', 'type': 'string'} in forms
    assert set(schema['properties']) == {a or n for n, f in AgentSpec.model_fields.items() for a in [f.alias]}

    json_path = tmp_path / 'helper.json'
    spec.to_file(json_path, schema_path=None)
    data = json.loads(json_path.read_text())
    assert '$schema' not in data
    assert data['retries'] == {'tools': 3}
    assert AgentSpec.from_file(json_path) == spec


def test_json_spec_file_names_its_schema_and_the_schema_is_not_rewritten_when_unchanged(tmp_path: Path) -> None:
    path = tmp_path / 'a.json'
    AgentSpec(model='test').to_file(path)
    assert json.loads(path.read_text())['$schema'] == 'a_schema.json'
    schema_file = tmp_path / 'a_schema.json'
    before = schema_file.stat().st_mtime_ns
    AgentSpec(model='test').to_file(path)
    assert schema_file.stat().st_mtime_ns == before
    assert AgentSpec.from_file(path).json_schema_path == 'a_schema.json'
    with pytest.raises(ValueError, match=r"Could not infer format for filename 'a\.txt'"):
        AgentSpec(model='test').to_file(tmp_path / 'a.txt')


def test_custom_capability_types_must_be_spec_capable_dataclass_capabilities() -> None:
    class NotADataclass(AbstractCapability[Any]):
        pass

    with pytest.raises(ValueError, match='must be decorated with `@dataclass`'):
        AgentSpec.model_json_schema_with_capabilities([NotADataclass])
    with pytest.raises(ValueError, match='must be subclasses of AbstractCapability'):
        AgentSpec.model_json_schema_with_capabilities([str])  # type: ignore[list-item]


def test_spec_errors_are_user_errors_and_value_errors() -> None:
    with pytest.raises(SpecError, match="Capability 'Nope' is not in the provided") as caught:
        Agent.from_spec({'model': 'test', 'capabilities': ['Nope']})
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, UserError)
    with pytest.raises(UserError, match='`model` must be provided'):
        Agent.from_spec({'instructions': 'no model'})


async def test_from_spec_arguments_add_instructions_settings_and_capabilities_and_win_elsewhere() -> None:
    seen: list[ModelRequest] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(next(m for m in messages if isinstance(m, ModelRequest)))
        return ModelResponse(parts=[TextPart(str(info.model_settings))])

    agent = Agent.from_spec(
        {
            'model': 'test',
            'name': 'spec-name',
            'instructions': 'From the spec.',
            'model_settings': {'temperature': 0.5, 'max_tokens': 100},
            'retries': {'tools': 4, 'output': 2},
            'capabilities': ['Thinking'],
        },
        model=FunctionModel(respond),
        name='argument-name',
        instructions='From the argument.',
        model_settings={'temperature': 0.9},
        capabilities=[WebSearch(builtin=False, local=lambda query: query)],
    )
    assert agent.name == 'argument-name'
    assert [type(c) for c in agent._root_capability.capabilities] == [Thinking, WebSearch]
    assert (agent._max_tool_retries, agent._max_output_retries) == (4, 2)
    result = await agent.run('hi')
    assert seen[0].instructions is not None
    assert seen[0].instructions.index('From the spec.') < seen[0].instructions.index('From the argument.')
    assert "'temperature': 0.9" in result.output
    assert "'max_tokens': 100" in result.output


async def test_output_schema_in_a_spec_makes_the_output_a_dict() -> None:
    schema = {'type': 'object', 'properties': {'city': {'type': 'string'}}, 'required': ['city']}
    agent = Agent.from_spec({'model': 'test', 'output_schema': schema})
    result = await agent.run('where?', model=TestModel(custom_output_args={'city': 'Lyon'}))
    assert result.output == {'city': 'Lyon'}
    with pytest.raises(UserError, match='Schema must be an object'):
        Agent.from_spec({'model': 'test', 'output_schema': {'type': 'string'}})


def test_deprecated_instrument_spellings_warn_and_still_apply(tmp_path: Path) -> None:
    with pytest.warns(PydanticAIDeprecationWarning, match=r'`AgentSpec\.instrument` is deprecated'):
        assert Agent.from_spec({'model': 'test', 'instrument': True}).instrument is True
    path = tmp_path / 'spec.yaml'
    path.write_text('model: test\n')
    with pytest.warns(PydanticAIDeprecationWarning, match=r'`Agent\.from_file\(instrument=\.\.\.\)` is deprecated'):
        assert Agent.from_file(path, instrument=False).instrument is False


async def test_a_run_spec_warns_about_fields_only_from_spec_applies_and_merges_metadata_functions() -> None:
    agent = Agent(TestModel())
    with pytest.warns(UserWarning, match="field 'end_strategy' is ignored at run"):
        await agent.run('hi', spec={'end_strategy': 'exhaustive'})
    with pytest.warns(UserWarning, match="retry field 'tools' is ignored"):
        await agent.run('hi', spec={'retries': {'tools': 5}})

    def dynamic(ctx: RunContext[None]) -> dict[str, Any]:
        return {'dynamic': ctx.prompt}

    result = await agent.run('hello', spec={'metadata': {'from_spec': 1}}, metadata=dynamic)
    assert result.metadata == {'from_spec': 1, 'dynamic': 'hello'}
