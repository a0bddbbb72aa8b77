"""Agent specs: capabilities by name from Python dicts, JSON and YAML, with clear errors."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent import Agent, AgentSpec, RunContext, ToolDefinition, UserError
from agent.capabilities import AbstractCapability, PrefixTools
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel
from agent.toolsets import FunctionToolset


@dataclass
class RateLimit(AbstractCapability[Any]):
    """Limits requests per minute."""

    rpm: int = 60


@dataclass
class ConditionalTools(AbstractCapability[Any]):
    """Hides tools unless a condition is met."""

    condition: Callable[[RunContext[Any]], bool]  # not serializable
    hidden_tools: list[str] = field(default_factory=list)

    @classmethod
    def from_spec(cls, hidden_tools: list[str]) -> ConditionalTools:
        return cls(condition=lambda ctx: True, hidden_tools=hidden_tools)

    async def prepare_tools(self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        if self.condition(ctx):
            return [td for td in tool_defs if td.name not in self.hidden_tools]
        return tool_defs


def test_custom_spec_capability_from_python_spec() -> None:
    agent = Agent.from_spec(
        AgentSpec(model='test', capabilities=[{'RateLimit': {'rpm': 30}}]),
        custom_capability_types=[RateLimit],
    )
    assert agent.capabilities == [RateLimit(rpm=30)]
    assert agent.run_sync('hi').output == 'success (no tool calls)'


def test_from_spec_override_builds_from_serializable_fields() -> None:
    seen: list[list[str]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append([t.name for t in info.function_tools])
        return ModelResponse(parts=[TextPart('ok')])

    toolset = FunctionToolset()

    @toolset.tool_plain
    def dangerous_tool() -> str:
        return 'boom'

    @toolset.tool_plain
    def safe_tool() -> str:
        return 'fine'

    agent = Agent.from_spec(
        {'capabilities': [{'ConditionalTools': {'hidden_tools': ['dangerous_tool']}}]},
        custom_capability_types=[ConditionalTools],
        model=FunctionModel(respond),
        toolsets=[toolset],
    )
    agent.run_sync('hi')
    assert seen == [['safe_tool']]


def test_yaml_and_json_spec_files_load(tmp_path: Path) -> None:
    yaml_file = tmp_path / 'agent.yaml'
    yaml_file.write_text(
        'model: test\nname: helper\ninstructions: Be brief.\nmodel_settings: {temperature: 0.1}\n'
        'capabilities:\n  - RateLimit: {rpm: 30}\n  - RateLimit\n'
    )
    agent = Agent.from_file(yaml_file, custom_capability_types=[RateLimit])
    assert agent.name == 'helper'
    assert agent.capabilities == [RateLimit(rpm=30), RateLimit()]
    assert agent.model_settings == {'temperature': 0.1}

    json_file = tmp_path / 'agent.json'
    json_file.write_text('{"model": "test", "capabilities": [{"RateLimit": {"rpm": 5}}]}')
    assert Agent.from_file(json_file, custom_capability_types=[RateLimit]).capabilities == [RateLimit(rpm=5)]


def test_unknown_capability_names_the_capability() -> None:
    with pytest.raises(
        UserError,
        match=r"Capability 'RateLimitt' is not in the provided `custom_capability_types`\. Valid choices: .*RateLimit",
    ):
        Agent.from_spec(AgentSpec(model='test', capabilities=['RateLimitt']), custom_capability_types=[RateLimit])


def test_bad_capability_arguments_name_the_field() -> None:
    with pytest.raises(
        UserError, match=r"Failed to instantiate capability 'RateLimit': rpm: Input should be a valid integer"
    ):
        Agent.from_spec(
            {'model': 'test', 'capabilities': [{'RateLimit': {'rpm': 'fast'}}]}, custom_capability_types=[RateLimit]
        )
    with pytest.raises(UserError, match=r"capability 'RateLimit': it has no field\(s\) \['burst'\]"):
        Agent.from_spec(
            {'model': 'test', 'capabilities': [{'RateLimit': {'burst': 3}}]}, custom_capability_types=[RateLimit]
        )
    with pytest.raises(UserError, match=r"Failed to instantiate capability 'ConditionalTools': hidden_tools"):
        Agent.from_spec(
            {'model': 'test', 'capabilities': [{'ConditionalTools': {'hidden_tools': 5}}]},
            custom_capability_types=[ConditionalTools],
        )


def test_invalid_spec_fields_are_rejected(tmp_path: Path) -> None:
    bad = tmp_path / 'bad.yaml'
    bad.write_text('model: test\nretires: 3\n')
    with pytest.raises(UserError, match=r'Invalid agent spec in .*bad\.yaml: retires: Extra inputs are not permitted'):
        Agent.from_file(bad)


def test_prefix_tools_wraps_a_nested_capability_entry() -> None:
    agent = Agent.from_spec(
        {
            'model': 'test',
            'capabilities': [{'PrefixTools': {'capability': {'RateLimit': {'rpm': 1}}, 'prefix': 'api1'}}],
        },
        custom_capability_types=[RateLimit],
    )
    (cap,) = agent.capabilities
    assert isinstance(cap, PrefixTools)
    assert cap.prefix == 'api1'
    assert cap.wrapped == RateLimit(rpm=1)
