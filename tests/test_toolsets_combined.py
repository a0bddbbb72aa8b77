"""CombinedToolset: merging and routing tools, name conflicts, entering children, and walking the toolset tree."""

from __future__ import annotations

from typing import Any

import pytest

from agent.exceptions import UserError
from agent.toolsets import AbstractToolset, CombinedToolset, FunctionToolset

from ._toolset_helpers import LoggingToolset, RecordingToolset, call, make_ctx, math_toolset


async def test_combined_toolset_merges_tools_and_routes_calls():
    strings = FunctionToolset[Any]()

    @strings.tool_plain
    def upper(s: str) -> str:
        return s.upper()

    combined = CombinedToolset([math_toolset(), strings])

    tools = await combined.get_tools(make_ctx())

    assert list(tools) == ['add', 'neg', 'upper']
    assert tools['upper'].toolset is strings
    assert await combined.call_tool('upper', {'s': 'a'}, make_ctx(), tools['upper']) == 'A'
    assert await combined.call_tool('add', {'a': 1, 'b': 1}, make_ctx(), tools['add']) == 2


async def test_combined_toolset_routes_calls_before_listing_tools():
    combined = CombinedToolset([math_toolset()])
    tool = (await math_toolset().get_tools(make_ctx()))['neg']

    assert await combined.call_tool('neg', {'a': 3}, make_ctx(), tool) == -3
    with pytest.raises(UserError, match="Unknown tool 'nope'"):
        await combined.call_tool('nope', {}, make_ctx(), tool)


async def test_tool_name_conflict_names_both_toolsets_and_suggests_a_fix():
    combined = CombinedToolset([math_toolset(id='first'), math_toolset(id='second')])

    with pytest.raises(UserError) as exc_info:
        await combined.get_tools(make_ctx())

    message = str(exc_info.value)
    assert "FunctionToolset 'second'" in message
    assert "FunctionToolset 'first'" in message
    assert "'add'" in message
    assert 'prefixed' in message


async def test_prefixing_resolves_a_name_conflict():
    combined = CombinedToolset([math_toolset(), math_toolset().prefixed('m')])

    assert list(await combined.get_tools(make_ctx())) == ['add', 'neg', 'm_add', 'm_neg']
    assert await call(combined, 'm_add', {'a': 1, 'b': 2}) == 3


async def test_combined_toolset_enters_children_once_even_when_entered_again():
    events: list[str] = []
    combined = CombinedToolset([RecordingToolset(events, 'a'), RecordingToolset(events, 'b')])

    async with combined:
        async with combined:
            events.append('body')
        events.append('inner exited')

    assert events == ['enter a', 'enter b', 'body', 'inner exited', 'exit b', 'exit a']


async def test_combined_toolset_can_be_entered_again_after_exit():
    events: list[str] = []
    combined = CombinedToolset([RecordingToolset(events, 'a')])

    async with combined:
        pass
    async with combined:
        pass

    assert events == ['enter a', 'exit a', 'enter a', 'exit a']


def test_apply_visits_the_leaf_toolsets():
    first, second, third = math_toolset(id='1'), math_toolset(id='2'), math_toolset(id='3')
    tree = CombinedToolset([first.prefixed('p'), CombinedToolset([second, third.filtered(lambda ctx, td: True)])])
    visited: list[AbstractToolset[Any]] = []

    tree.apply(visited.append)

    assert visited == [first, second, third]


async def test_visit_and_replace_rebuilds_the_tree_around_replaced_leaves():
    original = math_toolset(id='orig')
    replacement = FunctionToolset[Any](id='new')
    replacement.add_function(lambda: 'new', name='add')
    tree = CombinedToolset([LoggingToolset(wrapped=original.prefixed('x'))])

    rebuilt = tree.visit_and_replace(lambda leaf: replacement if leaf is original else leaf)

    assert isinstance(rebuilt, CombinedToolset)
    assert rebuilt is not tree
    assert list(await rebuilt.get_tools(make_ctx())) == ['x_add']
    assert list(await tree.get_tools(make_ctx())) == ['x_add', 'x_neg']
    assert await call(rebuilt, 'x_add', {}) == 'new'
