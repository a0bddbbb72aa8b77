"""`BuiltinTool`, `NativeTool` and `BuiltinOrLocalTool`: which side serves a request, and the errors when none can."""

from __future__ import annotations

from typing import Any

import pytest

from agent import Agent, RunContext, Tool, UserError
from agent.builtin_tools import CodeExecutionTool, WebSearchTool
from agent.capabilities import MCP, BuiltinOrLocalTool, BuiltinTool, NativeOrLocalTool, NativeTool, WebSearch
from agent.messages import ModelRequest, ToolCallPart, ToolReturnPart
from agent.toolsets import FunctionToolset

from ._models import Script


def run_python(code: str) -> str:
    """Run Python code and return what it printed."""
    return f'ran {code!r}'


def test_builtin_tool_sends_the_native_tool_to_a_model_that_supports_it() -> None:
    script = Script(['done'], native={'code_execution'})
    agent = Agent(script.model(), capabilities=[BuiltinTool(CodeExecutionTool())])
    assert agent.run_sync('compute').output == 'done'
    assert script.offered[0].native_tools == [CodeExecutionTool()]


def test_builtin_tool_on_a_model_without_support_fails_with_a_user_error() -> None:
    agent = Agent(Script(['done']).model(), capabilities=[NativeTool(CodeExecutionTool())])
    with pytest.raises(
        UserError, match=r"does not support the native tool CodeExecutionTool\(\) \(kind 'code_execution'\)"
    ):
        agent.run_sync('compute')


def test_builtin_tool_may_choose_its_tool_per_step_from_the_run_context() -> None:
    script = Script(['done'], native={'web_search'})

    def localized(ctx: RunContext[str]) -> WebSearchTool | None:
        return WebSearchTool(user_location={'city': ctx.deps}) if ctx.deps else None

    agent = Agent(script.model(), deps_type=str, capabilities=[BuiltinTool(localized)])
    agent.run_sync('news', deps='Oslo')
    agent.run_sync('news', deps='')
    assert [o.native_tools for o in script.offered] == [[WebSearchTool(user_location={'city': 'Oslo'})], []]


def test_auto_uses_the_native_tool_when_supported_and_the_local_one_otherwise() -> None:
    cap = BuiltinOrLocalTool(builtin=CodeExecutionTool(), local=run_python)
    native = Script(['done'], native={'code_execution'})
    Agent(native.model(), capabilities=[cap]).run_sync('compute')
    assert (native.offered[0].native_kinds, native.offered[0].function_tools) == (['code_execution'], [])

    local = Script([[ToolCallPart('run_python', {'code': '1+1'}, 'c1')], 'done'])
    result = Agent(local.model(), capabilities=[cap]).run_sync('compute')
    assert (local.offered[0].native_kinds, local.offered[0].function_tools) == ([], ['run_python'])
    returns = [p for m in result.all_messages() if isinstance(m, ModelRequest) for p in m.parts]
    assert [p.content for p in returns if isinstance(p, ToolReturnPart)] == ["ran '1+1'"]


def test_builtin_false_always_uses_the_local_side() -> None:
    script = Script(['done'], native={'code_execution'})
    Agent(script.model(), capabilities=[BuiltinOrLocalTool(builtin=False, local=run_python)]).run_sync('compute')
    assert (script.offered[0].native_kinds, script.offered[0].function_tools) == ([], ['run_python'])


def test_local_false_uses_only_the_native_tool_and_fails_on_models_without_it() -> None:
    cap = BuiltinOrLocalTool(builtin=CodeExecutionTool(), local=False)
    native = Script(['done'], native={'code_execution'})
    Agent(native.model(), capabilities=[cap]).run_sync('compute')
    assert native.offered[0].native_kinds == ['code_execution']
    with pytest.raises(
        UserError,
        match=r"BuiltinOrLocalTool\(local=False\) only uses the native 'code_execution' tool, and "
        r'it is not supported by function:function:respond:\.',
    ):
        Agent(Script(['done']).model(), capabilities=[cap]).run_sync('compute')


def test_the_local_side_may_be_a_tool_or_a_whole_toolset() -> None:
    toolset = FunctionToolset([run_python])

    @toolset.tool_plain
    def install(package: str) -> str:
        """Install a package."""
        return f'installed {package}'

    for local, expected in ((Tool(run_python, name='python'), ['python']), (toolset, ['run_python', 'install'])):
        script = Script(['done'])
        Agent(script.model(), capabilities=[BuiltinOrLocalTool(builtin=CodeExecutionTool(), local=local)]).run_sync('x')
        assert script.offered[0].function_tools == expected
        native = Script(['done'], native={'code_execution'})
        Agent(native.model(), capabilities=[BuiltinOrLocalTool(builtin=CodeExecutionTool(), local=local)]).run_sync('x')
        assert native.offered[0].function_tools == []


def test_a_local_side_keeps_working_under_a_prefix() -> None:
    cap = BuiltinOrLocalTool(builtin=CodeExecutionTool(), local=run_python).prefix_tools('sandbox')
    local = Script(['done'])
    Agent(local.model(), capabilities=[cap]).run_sync('x')
    native = Script(['done'], native={'code_execution'})
    Agent(native.model(), capabilities=[cap]).run_sync('x')
    assert local.offered[0].function_tools == ['sandbox_run_python']
    assert (native.offered[0].function_tools, native.offered[0].native_kinds) == ([], ['code_execution'])


@pytest.mark.parametrize(
    ('kwargs', 'message'),
    [
        (
            {'builtin': False, 'local': False},
            r'BuiltinOrLocalTool\(builtin=False, local=False\) provides nothing: '
            r'both `native` and `local` cannot be False',
        ),
        ({'local': run_python}, r'has no default native tool \(native=True requires a subclass that provides one\)'),
        ({'builtin': False}, r'BuiltinOrLocalTool\(builtin=False\) needs a local fallback: none was given'),
    ],
)
def test_configurations_that_cannot_work_fail_at_construction(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(UserError, match=message):
        BuiltinOrLocalTool(**kwargs)


def test_builtin_or_local_tool_itself_is_not_loadable_from_a_spec_but_builtin_tool_is() -> None:
    with pytest.raises(UserError, match="Capability 'BuiltinOrLocalTool' is not in the provided"):
        Agent.from_spec({'model': 'test', 'capabilities': ['BuiltinOrLocalTool']})
    agent = Agent.from_spec(
        {
            'model': 'test',
            'capabilities': [
                {'BuiltinTool': 'code_execution'},
                {'BuiltinTool': {'kind': 'web_search', 'max_uses': 2}},
                {'NativeTool': {'kind': 'mcp_server', 'id': 'docs', 'url': 'https://mcp.example.com'}},
            ],
        }
    )
    assert [cap.tool for cap in agent.capabilities] == [
        CodeExecutionTool(),
        WebSearchTool(max_uses=2),
        agent.capabilities[2].tool,
    ]
    assert agent.capabilities[2].tool.url == 'https://mcp.example.com'


def test_bad_builtin_tool_spec_arguments_name_the_capability_and_field() -> None:
    with pytest.raises(UserError, match=r"Failed to instantiate capability 'BuiltinTool': max_uses"):
        Agent.from_spec({'model': 'test', 'capabilities': [{'BuiltinTool': {'kind': 'web_search', 'max_uses': 'x'}}]})
    with pytest.raises(
        UserError,
        match=r"Failed to instantiate capability 'BuiltinTool': WebSearchTool has no field\(s\) \['domains'\]",
    ):
        Agent.from_spec({'model': 'test', 'capabilities': [{'BuiltinTool': {'kind': 'web_search', 'domains': ['a']}}]})


def test_native_is_another_name_for_builtin() -> None:

    local_only = NativeOrLocalTool(native=False, local=run_python)
    explicit = BuiltinOrLocalTool(native=CodeExecutionTool(), local=run_python)

    assert NativeOrLocalTool is BuiltinOrLocalTool
    assert (local_only.builtin, local_only.native, local_only.builtin_tool()) == (False, False, None)
    assert explicit.builtin == explicit.native == CodeExecutionTool()
    assert WebSearch(native=False, local=run_python).builtin_tool() is None
    assert MCP.from_spec(url='https://mcp.example.com', native=False).builtin is False
    with pytest.raises(UserError, match='both builtin= and native='):
        BuiltinOrLocalTool(builtin=CodeExecutionTool(), native=False, local=run_python)
