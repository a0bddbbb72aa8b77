"""`include_return_schemas()`, `with_metadata()`, `defer_loading()` and `FunctionToolset(instructions=...)`."""

from __future__ import annotations

from typing import Any

from agent import Agent, RunContext
from agent.messages import InstructionPart, ModelMessage, ModelRequest, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel
from agent.toolsets import (
    DeferredLoadingToolset,
    FunctionToolset,
    IncludeReturnSchemasToolset,
    SetMetadataToolset,
)
from tests._toolset_helpers import call, make_ctx, math_toolset


async def test_include_return_schemas_turns_unset_return_schemas_on_and_keeps_opt_outs():
    toolset = math_toolset()

    @toolset.tool_plain(include_return_schema=False)
    def secret(a: int) -> int:
        return a

    wrapped = toolset.include_return_schemas()
    tools = await wrapped.get_tools(make_ctx())

    assert isinstance(wrapped, IncludeReturnSchemasToolset)
    assert {name: t.tool_def.include_return_schema for name, t in tools.items()} == {
        'add': True,
        'neg': True,
        'secret': False,
    }
    assert await call(wrapped, 'add', {'a': 1, 'b': 2}) == 3


async def test_with_metadata_merges_its_keys_over_each_tools_own():
    toolset = FunctionToolset[Any](metadata={'team': 'core', 'risk': 'low'})

    @toolset.tool_plain
    def drop_table(name: str) -> str:
        return name

    wrapped = toolset.with_metadata(risk='high', audited=True)
    tools = await wrapped.get_tools(make_ctx())

    assert isinstance(wrapped, SetMetadataToolset)
    assert wrapped.metadata == {'risk': 'high', 'audited': True}
    assert tools['drop_table'].tool_def.metadata == {'team': 'core', 'risk': 'high', 'audited': True}
    assert await call(wrapped, 'drop_table', {'name': 't'}) == 't'


async def test_defer_loading_hides_the_named_tools_or_all_of_them():
    some = await math_toolset().defer_loading(['add']).get_tools(make_ctx())
    every = math_toolset().defer_loading()

    assert {name: t.tool_def.defer_loading for name, t in some.items()} == {'add': True, 'neg': False}
    assert isinstance(every, DeferredLoadingToolset)
    assert all(t.tool_def.defer_loading for t in (await every.get_tools(make_ctx())).values())


async def test_function_toolset_defer_loading_argument_still_marks_every_tool():
    tools = await math_toolset(defer_loading=True).get_tools(make_ctx())

    assert all(t.tool_def.defer_loading for t in tools.values())


async def test_function_toolset_instructions_are_added_to_each_model_request():
    seen: list[str | None] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        seen.append(last.instructions)
        return ModelResponse(parts=[TextPart('ok')])

    toolset = FunctionToolset[int](list(math_toolset().tools.values()), instructions='Use add for sums.')

    @toolset.instructions
    def units(ctx: RunContext[int]) -> str:
        return f'Numbers are in base {ctx.deps}.'

    agent = Agent(FunctionModel(respond), deps_type=int, instructions='Be brief.', toolsets=[toolset])
    await agent.run('1+1?', deps=10)

    assert seen == ['Be brief.\n\nUse add for sums.\n\nNumbers are in base 10.']
    assert await toolset.get_instructions(make_ctx(deps=2)) == [
        InstructionPart('Use add for sums.', dynamic=False),
        InstructionPart('Numbers are in base 2.', dynamic=True),
    ]
    assert await FunctionToolset[Any]().get_instructions(make_ctx()) is None
