"""`Hooks` answers to Pydantic AI's short names (`hooks.on.model_request`, `Hooks(tool_execute=...)`, `event`)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent import Agent, ModelRequestContext, RunContext
from agent.capabilities import Hooks, HookTimeoutError
from agent.exceptions import UserError
from agent.messages import ModelResponse, ToolCallPart
from agent.models.function import FunctionModel
from tests._agent_helpers import call, scripted, text


async def test_short_decorator_names_register_the_wrap_and_error_hooks():
    hooks = Hooks()
    log: list[str] = []

    @hooks.on.model_request
    async def around_request(ctx: RunContext[None], *, request_context: ModelRequestContext, handler: Any) -> Any:
        log.append('request')
        return await handler(request_context)

    @hooks.on.tool_execute(tools=['ping'])
    async def around_tool(ctx: RunContext[None], *, call: ToolCallPart, tool_def: Any, args: Any, handler: Any) -> Any:
        log.append(f'tool {call.tool_name}')
        return f'{await handler(args)}!'

    @hooks.on.event
    def count(ctx: RunContext[None], event: Any) -> None:
        log.append(event.event_kind)

    agent = Agent(scripted(call('ping', {}), text('done')), capabilities=[hooks])

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    result = await agent.run('go')

    assert result.output == 'done'
    assert log.count('request') == 2
    assert 'tool ping' in log
    assert 'function_tool_result' in log
    assert {'wrap_model_request', 'wrap_tool_execute', 'wrap_run_event_stream'} <= hooks.hook_names()


async def test_short_keyword_names_in_the_constructor_register_the_same_points():
    async def recover(ctx: RunContext[None], *, request_context: ModelRequestContext, error: Exception) -> Any:
        return text('recovered')

    def failing(messages: Any, info: Any) -> ModelResponse:
        raise ConnectionError('down')

    hooks = Hooks(model_request_error=recover, run=None)
    result = await Agent(FunctionModel(failing), capabilities=[hooks]).run('go')

    assert result.output == 'recovered'
    assert hooks.hook_names() == {'on_model_request_error'}
    with pytest.raises(UserError, match="Unknown hook point 'model_requests'"):
        Hooks(model_requests=recover)


async def test_a_hook_over_its_timeout_raises_hook_timeout_error():
    hooks = Hooks()

    @hooks.on.before_run(timeout=0.01)
    async def stuck(ctx: RunContext[None]) -> None:
        await asyncio.sleep(1)

    with pytest.raises(HookTimeoutError) as raised:
        await Agent(scripted(text('ok')), capabilities=[hooks]).run('go')
    assert (raised.value.hook_name, raised.value.func_name, raised.value.timeout) == ('before_run', 'stuck', 0.01)
    assert isinstance(raised.value, TimeoutError)
