"""`ToolRetryError`: the carrier of a tool call's retry prompt, raised by the tool manager and honoured from hooks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from agent import Agent, RunContext
from agent.capabilities import AbstractCapability
from agent.exceptions import ModelRetry, ToolRetryError
from agent.messages import RetryPromptPart, ToolCallPart
from agent.tools import ToolDefinition

from ._agent_helpers import call, parts_of, scripted, text


@dataclass
class _RetryFromHook(AbstractCapability[Any]):
    """Sends a retry prompt of its own instead of running the tool, the first time."""

    errors_seen: list[Exception] = field(default_factory=list[Exception])
    calls: int = 0

    async def wrap_tool_execute(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, handler: Any
    ) -> Any:
        self.calls += 1
        if self.calls == 1:
            raise ToolRetryError(RetryPromptPart('use metric units'))
        return await handler(args)

    async def on_tool_execute_error(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, error: Exception
    ) -> Any:
        self.errors_seen.append(error)
        raise error


async def test_a_hook_raising_tool_retry_error_sends_its_prompt_to_the_model_for_that_call():
    hook = _RetryFromHook()
    agent = Agent(scripted(call('weather', {}, 'c1'), call('weather', {}, 'c2'), text('done')), capabilities=[hook])

    @agent.tool_plain
    def weather() -> str:
        return 'sunny'

    result = await agent.run('Weather?')

    assert result.output == 'done'
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert (retry.content, retry.tool_name, retry.tool_call_id) == ('use metric units', 'weather', 'c1')
    # A retry is flow, not a failure: the error hooks never see it.
    assert hook.errors_seen == []


async def test_tool_manager_handle_call_raises_tool_retry_error_carrying_the_retry_prompt():
    caught: list[ToolRetryError] = []
    agent = Agent(scripted(call('outer', {}), text('done')))

    @agent.tool_plain
    def flaky(n: int) -> int:
        raise ModelRetry(f'{n} is too small')

    @agent.tool
    async def outer(ctx: RunContext[None]) -> str:
        assert ctx.tool_manager is not None
        for inner in (
            ToolCallPart('flaky', {'n': 1}, 'i1'),
            ToolCallPart('flaky', {'n': 'x'}, 'i2'),
            ToolCallPart('missing', {}, 'i3'),
        ):
            with pytest.raises(ToolRetryError) as info:
                await ctx.tool_manager.handle_call(inner)
            caught.append(info.value)
        return 'ok'

    await agent.run('go')

    too_small, invalid, unknown = (error.tool_retry for error in caught)
    assert (too_small.content, too_small.tool_name, too_small.tool_call_id) == ('1 is too small', 'flaky', 'i1')
    assert isinstance(invalid.content, list)
    assert invalid.tool_call_id == 'i2'
    assert str(caught[1]).startswith("1 validation error for 'flaky'")
    assert isinstance(unknown.content, str)
    assert unknown.content.startswith("Unknown tool name: 'missing'")


async def test_tool_manager_handle_call_returns_the_tools_result():
    results: list[Any] = []
    agent = Agent(scripted(call('outer', {}), text('done')))

    @agent.tool_plain
    def double(n: int) -> int:
        return n * 2

    @agent.tool
    async def outer(ctx: RunContext[None]) -> str:
        assert ctx.tool_manager is not None
        results.append(await ctx.tool_manager.handle_call(ToolCallPart('double', {'n': 21})))
        return 'ok'

    await agent.run('go')

    assert results == [42]
