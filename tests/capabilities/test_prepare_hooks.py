"""The prepare hooks: which tool definitions each one gets, and what a prepare function may change."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, cast

import pytest

from agent import UserError
from agent._run_context import RunContext
from agent._tool_def import ToolDefinition
from agent.capabilities import AbstractCapability, CombinedCapability, PrepareOutputTools, PrepareTools
from agent.usage import RunUsage


def make_ctx() -> RunContext[Any]:
    return RunContext(deps=None, model=cast(Any, None), usage=RunUsage())


async def test_prepare_tools_sees_function_tools_and_prepare_output_tools_sees_output_tools() -> None:
    seen: dict[str, list[str]] = {}

    @dataclass
    class Watch(AbstractCapability[Any]):
        async def prepare_tools(self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
            seen['function'] = [td.name for td in tool_defs]
            return tool_defs

        async def prepare_output_tools(
            self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]
        ) -> list[ToolDefinition]:
            seen['output'] = [td.name for td in tool_defs]
            return tool_defs

    defs = [ToolDefinition(name='final', kind='output'), ToolDefinition(name='add'), ToolDefinition(name='ask')]
    prepared = await CombinedCapability([Watch()]).prepare_tools(make_ctx(), defs)

    assert seen == {'function': ['add', 'ask'], 'output': ['final']}
    assert [td.name for td in prepared] == ['add', 'ask', 'final']


async def test_a_prepare_function_may_not_add_or_rename_tools() -> None:
    def rename(ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [dataclasses.replace(td, name=f'new_{td.name}') for td in tool_defs]

    with pytest.raises(UserError, match=r"cannot add or rename tools.*'new_add'"):
        await PrepareTools(rename).prepare_tools(make_ctx(), [ToolDefinition(name='add')])
    with pytest.raises(UserError, match=r"cannot add or rename tools.*'new_final'"):
        await PrepareOutputTools(rename).prepare_output_tools(make_ctx(), [ToolDefinition(name='final')])
