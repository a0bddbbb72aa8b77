"""The examples of the tools API reference (newer and older versions), run after the import rename."""

from __future__ import annotations

from dataclasses import replace

from agent import Agent, RunContext, Tool
from agent.capabilities import PrepareTools
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel
from agent.tools import ToolDefinition


def tools_seen_by_model(agent: Agent[int, str], deps: int) -> list[ToolDefinition]:
    seen: list[ToolDefinition] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(info.function_tools)
        return ModelResponse(parts=[TextPart('ok')])

    agent.run_sync('hi', deps=deps, model=FunctionModel(respond))
    return seen


def test_tool_wrapping_a_context_function() -> None:
    async def my_tool(ctx: RunContext[int], x: int, y: int) -> str:
        return f'{ctx.deps} {x} {y}'

    agent = Agent('test', tools=[Tool(my_tool)])
    result = agent.run_sync('go', deps=42)
    assert result.output == '{"my_tool":"42 0 0"}'


def test_tool_with_a_prepare_method_registers_only_for_deps_42() -> None:
    async def my_tool(ctx: RunContext[int], x: int, y: int) -> str:
        return f'{ctx.deps} {x} {y}'

    async def prep_my_tool(ctx: RunContext[int], tool_def: ToolDefinition) -> ToolDefinition | None:
        # only register the tool if `deps == 42`
        if ctx.deps == 42:
            return tool_def
        return None

    agent: Agent[int, str] = Agent('test', tools=[Tool(my_tool, prepare=prep_my_tool)])
    assert [t.name for t in tools_seen_by_model(agent, 42)] == ['my_tool']
    assert tools_seen_by_model(agent, 41) == []


def test_sync_tool_prepare_func_only_if_42() -> None:
    def only_if_42(ctx: RunContext[int], tool_def: ToolDefinition) -> ToolDefinition | None:
        if ctx.deps == 42:
            return tool_def
        return None

    def hitchhiker(ctx: RunContext[int], answer: str) -> str:
        return f'{ctx.deps} {answer}'

    hitchhiker_tool = Tool(hitchhiker, prepare=only_if_42)
    agent: Agent[int, str] = Agent('test', tools=[hitchhiker_tool])
    assert [t.name for t in tools_seen_by_model(agent, 42)] == ['hitchhiker']
    assert tools_seen_by_model(agent, 7) == []
    assert agent.run_sync('go', deps=42).output == '{"hitchhiker":"42 a"}'


def test_tools_prepare_func_turns_on_strict_for_openai_models() -> None:
    def turn_on_strict_if_openai(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition] | None:
        if ctx.model.system == 'openai':
            return [replace(tool_def, strict=True) for tool_def in tool_defs]
        return tool_defs

    class OpenAILike(FunctionModel):
        @property
        def system(self) -> str:
            return 'openai'

    seen: list[bool | None] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(t.strict for t in info.function_tools)
        return ModelResponse(parts=[TextPart('ok')])

    agent = Agent(OpenAILike(respond), capabilities=[PrepareTools(turn_on_strict_if_openai)])

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    agent.run_sync('hi')
    agent.run_sync('hi', model=FunctionModel(respond))
    assert seen == [True, None]


def test_agent_level_prepare_tools_from_the_older_reference() -> None:
    async def turn_on_strict(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition] | None:
        return [replace(tool_def, strict=True) for tool_def in tool_defs]

    seen: list[bool | None] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(t.strict for t in info.function_tools)
        return ModelResponse(parts=[TextPart('ok')])

    agent = Agent(FunctionModel(respond), prepare_tools=turn_on_strict)

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    agent.run_sync('hi')
    assert seen == [True]
