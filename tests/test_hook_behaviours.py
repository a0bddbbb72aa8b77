"""Capability hooks in runs, where they must behave as Pydantic AI's: retries from hooks, nesting, cancellation."""

from __future__ import annotations

import asyncio
from typing import Any

import pydantic
import pytest

from agent import Agent, AgentRunResult, ModelRequestContext, ModelRetry, RunContext, ToolDefinition
from agent.capabilities import Hooks, WrapModelRequestHandler, WrapRunHandler
from agent.exceptions import UnexpectedModelBehavior
from agent.messages import ModelRequest, ModelResponse, RetryPromptPart, TextPart, ToolCallPart

from ._agent_helpers import call, calls, parts_of, scripted, text


async def test_model_retry_from_after_model_request_keeps_the_response_and_asks_again():
    hooks = Hooks[None]()

    @hooks.on.after_model_request
    def no_shouting(ctx: RunContext[None], *, request_context: ModelRequestContext, response: ModelResponse):
        if response.text and response.text.isupper():
            raise ModelRetry('Please do not shout.')
        return response

    agent = Agent(scripted(text('HELLO'), text('hello')), capabilities=[hooks])

    result = await agent.run('hi')

    assert result.output == 'hello'
    kinds = [type(m).__name__ for m in result.all_messages()]
    assert kinds == ['ModelRequest', 'ModelResponse', 'ModelRequest', 'ModelResponse']
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert retry.content == 'Please do not shout.'
    assert result.usage().requests == 2


async def test_model_retry_from_wrap_model_request_asks_again_without_the_error_hook():
    hooks = Hooks[None]()
    errors: list[BaseException] = []
    attempts: list[int] = []

    @hooks.on.wrap_model_request
    async def first_is_refused(
        ctx: RunContext[None], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler
    ) -> ModelResponse:
        attempts.append(1)
        if len(attempts) == 1:
            raise ModelRetry('not yet')
        return await handler(request_context)

    @hooks.on.on_model_request_error
    def record(ctx: RunContext[None], *, request_context: ModelRequestContext, error: Exception) -> None:
        errors.append(error)  # pragma: no cover

    agent = Agent(scripted(text('done')), capabilities=[hooks])

    result = await agent.run('hi')

    assert result.output == 'done'
    assert errors == []
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert retry.content == 'not yet'


async def test_model_retry_from_model_request_hooks_counts_against_output_retries():
    hooks = Hooks[None]()

    @hooks.on.after_model_request
    def always_refuse(ctx: RunContext[None], *, request_context: ModelRequestContext, response: ModelResponse):
        raise ModelRetry('again')

    agent = Agent(scripted(text('a'), text('b'), text('c')), capabilities=[hooks])

    with pytest.raises(UnexpectedModelBehavior, match='maximum output retries'):
        await agent.run('hi')


class Point(pydantic.BaseModel):
    x: int


async def test_validation_error_from_a_tool_execute_hook_becomes_a_retry_prompt():
    hooks = Hooks[None]()

    @hooks.on.before_tool_execute
    def strict(ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: dict[str, Any]):
        Point.model_validate({'x': args['value']})
        return args

    model = scripted(call('echo', {'value': 'nope'}, 'c1'), call('echo', {'value': '3'}, 'c2'), text('ok'))
    agent = Agent(model, capabilities=[hooks])

    @agent.tool_plain
    def echo(value: str) -> str:
        return value

    result = await agent.run('go')

    assert result.output == 'ok'
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert retry.tool_call_id == 'c1'
    assert isinstance(retry.content, list)
    assert retry.content[0]['loc'] == ('x',)


async def test_validation_error_from_a_tool_validate_hook_becomes_a_retry_prompt():
    hooks = Hooks[None]()

    @hooks.on.after_tool_validate
    def positive(ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: dict[str, Any]):
        pydantic.TypeAdapter(pydantic.PositiveInt).validate_python(args['n'])
        return args

    model = scripted(call('square', {'n': -1}, 'c1'), call('square', {'n': 2}, 'c2'), text('ok'))
    agent = Agent(model, capabilities=[hooks])

    @agent.tool_plain
    def square(n: int) -> int:
        return n * n

    result = await agent.run('go')

    assert result.output == 'ok'
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert retry.tool_call_id == 'c1'


async def test_wrap_run_encloses_before_run():
    hooks = Hooks[None]()
    log: list[str] = []

    @hooks.on.before_run
    def started(ctx: RunContext[None]) -> None:
        log.append('before_run')

    @hooks.on.wrap_run
    async def around(ctx: RunContext[None], *, handler: WrapRunHandler) -> AgentRunResult[Any]:
        log.append('wrap_run>')
        result = await handler()
        log.append('wrap_run<')
        return result

    await Agent(scripted(text('ok')), capabilities=[hooks]).run('hi')

    assert log == ['wrap_run>', 'before_run', 'wrap_run<']


async def test_a_failing_parallel_tool_cancels_its_siblings():
    started = asyncio.Event()
    cancelled: list[str] = []
    agent = Agent(scripted(calls(ToolCallPart('slow', {}, 's'), ToolCallPart('broken', {}, 'b'))))

    @agent.tool_plain
    async def slow() -> str:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append('slow')
            raise
        return 'finished'  # pragma: no cover

    @agent.tool_plain
    async def broken() -> str:
        await asyncio.wait_for(started.wait(), 5)
        raise RuntimeError('boom')

    with pytest.raises(RuntimeError, match='boom'):
        await asyncio.wait_for(agent.run('go'), 5)

    assert cancelled == ['slow']


async def test_model_request_hooks_see_the_request_sent_again_after_a_retry():
    hooks = Hooks[None]()
    seen: list[ModelRequest] = []

    @hooks.on.before_model_request
    def record(ctx: RunContext[None], request_context: ModelRequestContext) -> ModelRequestContext:
        last = request_context.messages[-1]
        assert isinstance(last, ModelRequest)
        seen.append(last)
        return request_context

    @hooks.on.after_model_request
    def refuse_once(ctx: RunContext[None], *, request_context: ModelRequestContext, response: ModelResponse):
        if len(seen) == 1:
            raise ModelRetry('once more')
        return response

    result = await Agent(scripted(text('a'), text('b')), capabilities=[hooks]).run('hi')

    assert result.output == 'b'
    assert isinstance(seen[1].parts[0], RetryPromptPart)
    assert not any(isinstance(p, TextPart) for p in seen[1].parts)
