"""Capability hooks inside real runs: ordering across capabilities, skips, error recovery, per-run isolation."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from typing import Any

import pytest

from agent import (
    Agent,
    AgentRunResult,
    ModelRequestContext,
    RunContext,
    SkipModelRequest,
    SkipToolExecution,
    SkipToolValidation,
    ToolDefinition,
)
from agent.capabilities import (
    AbstractCapability,
    AgentNode,
    NodeResult,
    WrapModelRequestHandler,
    WrapNodeRunHandler,
    WrapRunHandler,
    WrapToolExecuteHandler,
    WrapToolValidateHandler,
)
from agent.graph import End
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel


@dataclass
class Tracer(AbstractCapability[Any]):
    """Records every hook it sees, tagged with its own name."""

    name: str
    log: list[str]

    def _add(self, entry: str) -> None:
        self.log.append(f'{self.name}.{entry}')

    async def before_run(self, ctx: RunContext[Any]) -> None:
        self._add('before_run')

    async def after_run(self, ctx: RunContext[Any], *, result: AgentRunResult[Any]) -> AgentRunResult[Any]:
        self._add('after_run')
        return result

    async def wrap_run(self, ctx: RunContext[Any], *, handler: WrapRunHandler) -> AgentRunResult[Any]:
        self._add('wrap_run>')
        result = await handler()
        self._add('wrap_run<')
        return result

    async def wrap_node_run(
        self, ctx: RunContext[Any], *, node: AgentNode[Any], handler: WrapNodeRunHandler[Any]
    ) -> NodeResult[Any]:
        self._add(f'wrap_node>{type(node).__name__}')
        return await handler(node)

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self._add('before_model')
        return request_context

    async def wrap_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler
    ) -> ModelResponse:
        self._add('wrap_model>')
        response = await handler(request_context)
        self._add('wrap_model<')
        return response

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        self._add('after_model')
        return response

    async def before_tool_validate(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any
    ) -> Any:
        self._add('before_validate')
        return args

    async def wrap_tool_validate(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: Any,
        handler: WrapToolValidateHandler,
    ) -> dict[str, Any]:
        self._add('wrap_validate>')
        validated = await handler(args)
        self._add('wrap_validate<')
        return validated

    async def after_tool_validate(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: dict[str, Any]
    ) -> dict[str, Any]:
        self._add('after_validate')
        return args

    async def before_tool_execute(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: dict[str, Any]
    ) -> dict[str, Any]:
        self._add('before_execute')
        return args

    async def wrap_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: dict[str, Any],
        handler: WrapToolExecuteHandler,
    ) -> Any:
        self._add('wrap_execute>')
        result = await handler(args)
        self._add('wrap_execute<')
        return f'{result}+{self.name}'

    async def after_tool_execute(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: dict[str, Any], result: Any
    ) -> Any:
        self._add('after_execute')
        return result


def one_tool_then_text() -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('ping', {'n': 1})])
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        returned = [p.content for p in last.parts if isinstance(p, ToolReturnPart)]
        return ModelResponse(parts=[TextPart(f'got {returned[0]}')])

    return FunctionModel(respond)


def test_hooks_of_three_capabilities_fire_in_order_and_nest() -> None:
    log: list[str] = []
    agent = Agent(one_tool_then_text(), capabilities=[Tracer('c1', log), Tracer('c2', log), Tracer('c3', log)])

    @agent.tool_plain
    def ping(n: int) -> str:
        log.append('TOOL')
        return 'pong'

    result = agent.run_sync('go')
    # wrap_tool_execute of c1 is outermost, so its suffix is added last.
    assert result.output == 'got pong+c3+c2+c1'

    def section(start: str, end: str) -> list[str]:
        i = log.index(start)
        return log[i : log.index(end, i) + 1]

    assert log[:6] == [
        'c1.wrap_run>',
        'c2.wrap_run>',
        'c3.wrap_run>',
        'c1.before_run',
        'c2.before_run',
        'c3.before_run',
    ]
    assert log[-6:] == ['c3.wrap_run<', 'c2.wrap_run<', 'c1.wrap_run<', 'c3.after_run', 'c2.after_run', 'c1.after_run']
    assert section('c1.before_model', 'c1.after_model') == [
        'c1.before_model', 'c2.before_model', 'c3.before_model',
        'c1.wrap_model>', 'c2.wrap_model>', 'c3.wrap_model>',
        'c3.wrap_model<', 'c2.wrap_model<', 'c1.wrap_model<',
        'c3.after_model', 'c2.after_model', 'c1.after_model',
    ]  # fmt: skip
    assert section('c1.before_validate', 'c1.after_validate') == [
        'c1.before_validate', 'c2.before_validate', 'c3.before_validate',
        'c1.wrap_validate>', 'c2.wrap_validate>', 'c3.wrap_validate>',
        'c3.wrap_validate<', 'c2.wrap_validate<', 'c1.wrap_validate<',
        'c3.after_validate', 'c2.after_validate', 'c1.after_validate',
    ]  # fmt: skip
    assert section('c1.before_execute', 'c1.after_execute') == [
        'c1.before_execute', 'c2.before_execute', 'c3.before_execute',
        'c1.wrap_execute>', 'c2.wrap_execute>', 'c3.wrap_execute>',
        'TOOL',
        'c3.wrap_execute<', 'c2.wrap_execute<', 'c1.wrap_execute<',
        'c3.after_execute', 'c2.after_execute', 'c1.after_execute',
    ]  # fmt: skip
    node_entries = [e for e in log if e.startswith('c1.wrap_node>')]
    assert node_entries == [
        'c1.wrap_node>UserPromptNode',
        'c1.wrap_node>ModelRequestNode',
        'c1.wrap_node>CallToolsNode',
        'c1.wrap_node>ModelRequestNode',
        'c1.wrap_node>CallToolsNode',
    ]


async def test_bare_iteration_skips_node_hooks_with_a_warning_but_next_fires_them() -> None:
    log: list[str] = []
    agent = Agent('test', capabilities=[Tracer('c1', log)])
    async with agent.iter('hi') as run:
        with pytest.warns(UserWarning, match='without the capabilities. `wrap_node_run` hooks'):
            nodes = [type(node).__name__ async for node in run]
    assert nodes == ['UserPromptNode', 'ModelRequestNode', 'CallToolsNode', 'End']
    assert not [e for e in log if 'wrap_node' in e]
    assert 'c1.wrap_run<' in log  # run hooks still see the whole run

    log.clear()
    async with agent.iter('hi') as run:
        node = run.next_node
        while not isinstance(node, End):
            node = await run.next(node)
    assert [e for e in log if 'wrap_node' in e] == [
        'c1.wrap_node>UserPromptNode',
        'c1.wrap_node>ModelRequestNode',
        'c1.wrap_node>CallToolsNode',
    ]
    assert run.result is not None


def test_skip_model_request_uses_the_given_response_and_after_hooks_see_it() -> None:
    seen: list[str] = []

    @dataclass
    class Cache(AbstractCapability[Any]):
        async def before_model_request(
            self, ctx: RunContext[Any], request_context: ModelRequestContext
        ) -> ModelRequestContext:
            raise SkipModelRequest(ModelResponse(parts=[TextPart('cached answer')]))

        async def after_model_request(
            self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
        ) -> ModelResponse:
            seen.append(response.text or '')
            return response

    def unreachable(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise AssertionError('the model must not be called')

    result = Agent(FunctionModel(unreachable), capabilities=[Cache()]).run_sync('hi')
    assert result.output == 'cached answer'
    assert seen == ['cached answer']


def test_skip_tool_validation_and_execution_supply_args_and_results() -> None:
    executed: list[int] = []

    @dataclass
    class Override(AbstractCapability[Any]):
        async def before_tool_validate(
            self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any
        ) -> Any:
            raise SkipToolValidation({'n': 41})

        async def wrap_tool_execute(
            self,
            ctx: RunContext[Any],
            *,
            call: ToolCallPart,
            tool_def: ToolDefinition,
            args: dict[str, Any],
            handler: WrapToolExecuteHandler,
        ) -> Any:
            if args['n'] == 41:
                raise SkipToolExecution('short-circuited')
            return await handler(args)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('ping', '{not even json')])
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        return ModelResponse(parts=[TextPart(str(last.parts[0].content))])

    agent = Agent(FunctionModel(respond), capabilities=[Override()])

    @agent.tool_plain
    def ping(n: int) -> int:
        executed.append(n)
        return n

    assert agent.run_sync('go').output == 'short-circuited'
    assert executed == []


def test_wrap_run_recovers_from_a_failing_run_with_run_and_iter() -> None:
    @dataclass
    class Fallback(AbstractCapability[Any]):
        errors: list[str] = field(default_factory=list)

        async def wrap_run(self, ctx: RunContext[Any], *, handler: WrapRunHandler) -> AgentRunResult[Any]:
            try:
                return await handler()
            except RuntimeError as exc:
                self.errors.append(str(exc))
                return AgentRunResult('fallback output')

    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise RuntimeError('model exploded')

    fallback = Fallback()
    agent = Agent(FunctionModel(broken), capabilities=[fallback])
    assert agent.run_sync('hi').output == 'fallback output'

    async def drive() -> Any:
        async with agent.iter('hi') as run:
            node = run.next_node
            while not isinstance(node, End):
                node = await run.next(node)
        return run.result

    import asyncio

    result = asyncio.run(drive())
    assert result is not None
    assert result.output == 'fallback output'
    assert fallback.errors == ['model exploded', 'model exploded']


def test_on_run_error_transforms_and_on_node_run_error_recovers() -> None:
    class Transform(AbstractCapability[Any]):
        async def on_run_error(self, ctx: RunContext[Any], *, error: BaseException) -> AgentRunResult[Any]:
            raise ValueError(f'wrapped: {error}') from error

    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise RuntimeError('boom')

    with pytest.raises(ValueError, match='wrapped: boom'):
        Agent(FunctionModel(broken), capabilities=[Transform()]).run_sync('hi')

    class RecoverNode(AbstractCapability[Any]):
        async def on_node_run_error(
            self, ctx: RunContext[Any], *, node: AgentNode[Any], error: BaseException
        ) -> NodeResult[Any]:
            from agent.result import FinalResult

            return End(FinalResult(f'recovered from {error}'))

    assert Agent(FunctionModel(broken), capabilities=[RecoverNode()]).run_sync('hi').output == 'recovered from boom'


def test_tool_error_hooks_recover_or_fall_back_to_retry_flow() -> None:
    class Recover(AbstractCapability[Any]):
        async def on_tool_execute_error(
            self,
            ctx: RunContext[Any],
            *,
            call: ToolCallPart,
            tool_def: ToolDefinition,
            args: dict[str, Any],
            error: Exception,
        ) -> Any:
            return f'recovered: {error}'

        async def on_tool_validate_error(
            self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, error: Exception
        ) -> dict[str, Any]:
            return {'n': -1}

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('ping', {'n': 'not a number'})])
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        return ModelResponse(parts=[TextPart(str(last.parts[0].content))])

    agent = Agent(FunctionModel(respond), capabilities=[Recover()])

    @agent.tool_plain
    def ping(n: int) -> str:
        raise LookupError(f'no pong for {n}')

    assert agent.run_sync('go').output == 'recovered: no pong for -1'


def test_for_run_gives_each_run_its_own_capability_state() -> None:
    @dataclass
    class Counter(AbstractCapability[Any]):
        requests: int = 0
        totals: list[int] = field(default_factory=list)

        async def for_run(self, ctx: RunContext[Any]) -> Counter:
            return Counter(totals=self.totals)

        async def before_model_request(
            self, ctx: RunContext[Any], request_context: ModelRequestContext
        ) -> ModelRequestContext:
            self.requests += 1
            return request_context

        async def after_run(self, ctx: RunContext[Any], *, result: AgentRunResult[Any]) -> AgentRunResult[Any]:
            self.totals.append(self.requests)
            return result

    shared = Counter()
    agent = Agent('test', capabilities=[shared])

    @agent.tool_plain
    def noop() -> str:
        return 'ok'

    agent.run_sync('one')
    agent.run_sync('two')
    assert shared.requests == 0
    assert shared.totals == [2, 2]


_request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar('_request_id', default=None)


@pytest.mark.parametrize('driven_by', ['run', 'iter'])
async def test_context_variables_set_by_wrap_run_reach_node_hooks_tools_and_after_run(driven_by: str) -> None:
    seen: list[tuple[str, str | None]] = []

    @dataclass
    class RequestScope(AbstractCapability[Any]):
        async def wrap_run(self, ctx: RunContext[Any], *, handler: Any) -> Any:
            token = _request_id.set('req-42')
            try:
                return await handler()
            finally:
                _request_id.reset(token)

    @dataclass
    class Observer(AbstractCapability[Any]):
        async def before_node_run(self, ctx: RunContext[Any], *, node: Any) -> Any:
            seen.append(('before_node_run', _request_id.get()))
            return node

        async def after_run(self, ctx: RunContext[Any], *, result: Any) -> Any:
            seen.append(('after_run', _request_id.get()))
            return result

    agent = Agent(TestModel(), capabilities=[RequestScope(), Observer()])

    @agent.tool_plain
    def lookup() -> str:
        seen.append(('tool', _request_id.get()))
        return 'found'

    if driven_by == 'run':
        await agent.run('go')
    else:
        async with agent.iter('go') as run:
            node = run.next_node
            while not Agent.is_end_node(node):
                node = await run.next(node)
    assert {name for name, _ in seen} == {'before_node_run', 'tool', 'after_run'}
    assert all(value == 'req-42' for _, value in seen), seen
    assert _request_id.get() is None  # nothing leaks to the caller


async def test_on_run_error_sees_context_variables_wrap_run_set_for_the_run() -> None:
    recovered_with: list[str | None] = []

    @dataclass
    class Recover(AbstractCapability[Any]):
        async def wrap_run(self, ctx: RunContext[Any], *, handler: Any) -> Any:
            token = _request_id.set('from-wrap-run')
            try:
                return await handler()
            finally:
                _request_id.reset(token)

        async def on_run_error(self, ctx: RunContext[Any], *, error: BaseException) -> Any:
            recovered_with.append(_request_id.get())
            return AgentRunResult(output='recovered')

    def explode(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise RuntimeError('model down')

    result = await Agent(FunctionModel(explode), capabilities=[Recover()]).run('go')
    assert result.output == 'recovered'
    assert recovered_with == ['from-wrap-run']


async def test_iterating_a_run_that_wrap_run_answered_by_itself_yields_no_nodes() -> None:
    @dataclass
    class Cached(AbstractCapability[Any]):
        async def wrap_run(self, ctx: RunContext[Any], *, handler: Any) -> Any:
            return AgentRunResult(output='from cache')

    agent = Agent(TestModel(), capabilities=[Cached()])
    async with agent.iter('go') as run:
        nodes = [node async for node in run]
    assert nodes == []
    assert run.result is not None
    assert run.result.output == 'from cache'
