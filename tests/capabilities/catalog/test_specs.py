"""Which built-in capabilities load from agent specs (the Spec column of the capabilities guide), and how."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import Agent, AgentSpec, UserError
from agent.builtin_tools import CodeExecutionTool, WebSearchTool
from agent.capabilities import BuiltinTool, ImageGeneration, PrefixTools, Thinking, WebFetch, WebSearch

from ._models import Script

SPEC_YAML = """\
model: test
name: researcher
instructions: You are a research assistant.
model_settings: {temperature: 0.2}
capabilities:
  - Thinking: {effort: high}
  - WebSearch
  - WebFetch: {allowed_domains: [example.com]}
  - ImageGeneration: {fallback_model: test}
  - BuiltinTool: code_execution
  - PrefixTools: {capability: WebFetch, prefix: docs}
"""


def test_every_spec_capable_built_in_loads_from_a_yaml_file(tmp_path: Path) -> None:
    path = tmp_path / 'researcher.yaml'
    path.write_text(SPEC_YAML)
    agent = Agent.from_file(path)
    assert agent.name == 'researcher'
    assert agent.model_settings == {'temperature': 0.2}
    assert agent.capabilities == [
        Thinking(effort='high'),
        WebSearch(),
        WebFetch(allowed_domains=['example.com']),
        ImageGeneration(fallback_model='test'),
        BuiltinTool(CodeExecutionTool()),
        PrefixTools(WebFetch(), prefix='docs'),
    ]


@pytest.mark.parametrize('name', ['Hooks', 'PrepareTools', 'Toolset', 'HistoryProcessor', 'ThreadExecutor'])
def test_built_ins_taking_python_objects_are_not_loadable_from_specs(name: str) -> None:
    with pytest.raises(UserError, match=rf"Capability '{name}' is not in the provided `custom_capability_types`"):
        Agent.from_spec(AgentSpec(model='test', capabilities=[name]))


def test_spec_errors_name_the_capability_and_the_bad_field() -> None:
    with pytest.raises(UserError, match=r"Failed to instantiate capability 'WebSearch': max_uses: Input should be"):
        Agent.from_spec({'model': 'test', 'capabilities': [{'WebSearch': {'max_uses': 'many'}}]})
    with pytest.raises(
        UserError, match=r"Failed to instantiate capability 'WebSearch': domains: Unexpected keyword argument"
    ):
        Agent.from_spec({'model': 'test', 'capabilities': [{'WebSearch': {'domains': ['a.org']}}]})
    with pytest.raises(UserError, match=r"Failed to instantiate capability 'Thinking': effort"):
        Agent.from_spec({'model': 'test', 'capabilities': [{'Thinking': {'effort': 'extreme'}}]})
    with pytest.raises(UserError, match=r"Capability 'WebSerch' is not in the provided"):
        Agent.from_spec({'model': 'test', 'capabilities': ['WebSerch']})
    with pytest.raises(
        UserError, match=r"Failed to instantiate capability 'WebFetch': WebFetch\(max_uses\) needs the native tool"
    ):
        Agent.from_spec({'model': 'test', 'capabilities': [{'WebFetch': {'max_uses': 1, 'builtin': False}}]})


def test_from_spec_keyword_overrides_win_over_the_spec(tmp_path: Path) -> None:
    path = tmp_path / 'researcher.yaml'
    path.write_text(SPEC_YAML)
    agent = Agent.from_file(path, name='overridden', capabilities=[WebSearch(max_results=1)])
    assert agent.name == 'overridden'
    assert agent.capabilities[-1] == WebSearch(max_results=1)
    assert len(agent.capabilities) == 7


def test_a_native_tool_entry_may_name_its_tool_as_a_mapping() -> None:
    explicit = BuiltinTool.from_spec(tool={'kind': 'web_search', 'max_uses': 2})
    assert explicit.get_native_tools() == [WebSearchTool(max_uses=2)]
    script = Script(['ok'], native={'code_execution'})
    spec = {'model': 'test', 'capabilities': [{'NativeTool': {'tool': {'kind': 'code_execution'}}}]}
    Agent.from_spec(spec, model=script.model()).run_sync('run it')
    assert script.offered[0].native_tools == [CodeExecutionTool()]
    with pytest.raises(TypeError, match='requires either a `tool` argument or a native tool `kind`'):
        BuiltinTool.from_spec()
