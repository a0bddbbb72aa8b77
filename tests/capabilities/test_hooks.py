"""The `Hooks` capability: functions registered per hook point, by decorator or constructor, inside real runs."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import replace
from typing import Any, cast

import pytest

from agent import (
    Agent,
    AgentRunResult,
    AgentStreamEvent,
    ModelRequestContext,
    RunContext,
    SkipModelRequest,
    ToolDefinition,
    UserError,
)
from agent.capabilities import (
    HOOK_NAMES,
    AgentNode,
    CombinedCapability,
    Hooks,
    NodeResult,
    WrapModelRequestHandler,
    WrapNodeRunHandler,
    WrapRunHandler,
    WrapToolExecuteHandler,
    run_with_model_request_hooks,
)
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    PartStartEvent,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from agent.models.function import AgentInfo, FunctionModel
from agent.usage import RunUsage


def make_ctx() -> RunContext[Any]:
    return RunContext(deps=None, model=cast(Any, None), usage=RunUsage())


def make_request_context() -> ModelRequestContext:
    return ModelRequestContext(
        model=cast(Any, None), messages=[], model_settings=None, model_request_parameters=cast(Any, None)
    )


def calls_then_reports(*calls: ToolCallPart) -> FunctionModel:
    """Calls the given tools on the first request, then answers with the tool returns joined by `|`."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=list(calls))
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        returned = [f'{p.tool_name}={p.content}' for p in last.parts if isinstance(p, ToolReturnPart)]
        return ModelResponse(parts=[TextPart('|'.join(returned))])

    return FunctionModel(respond)


def file_agent(hooks: Hooks[Any], *, dangerous_metadata: bool = False) -> Agent[None, str]:
    """An agent whose model calls `delete_file` and `read_file` once each."""
    model = calls_then_reports(ToolCallPart('delete_file', {'path': 'a'}), ToolCallPart('read_file', {'path': 'b'}))
    agent = Agent(model, capabilities=[hooks])

    @agent.tool_plain(metadata={'dangerous': True} if dangerous_metadata else None)
    def delete_file(path: str) -> str:
        return f'deleted {path}'

    @agent.tool_plain
    def read_file(path: str) -> str:
        return f'contents of {path}'

    return agent


def test_seed_example_logs_the_agent_name_and_message_count(capsys: pytest.CaptureFixture[str]) -> None:
    hooks = Hooks()

    @hooks.on.before_model_request
    async def log_request(ctx: RunContext[None], request_context: ModelRequestContext) -> ModelRequestContext:
        agent_name = ctx.agent.name if ctx.agent else 'unknown'
        print(f'[{agent_name}] Sending {len(request_context.messages)} messages')
        return request_context

    agent = Agent('test', name='my_agent', capabilities=[hooks])
    result = agent.run_sync('hi')

    assert capsys.readouterr().out == '[my_agent] Sending 1 messages\n'
    assert result.output == 'success (no tool calls)'


def test_decorators_return_the_function_unchanged_bare_and_with_options() -> None:
    hooks = Hooks()

    async def hook(ctx: RunContext[None], **kwargs: Any) -> None:
        return None

    assert hooks.on.before_run(hook) is hook
    assert hooks.on.before_model_request(timeout=1.0)(hook) is hook
    assert hooks.on.after_tool_execute(tools=['x'], timeout=1.0)(hook) is hook
    assert hooks.hook_names() == {'before_run', 'before_model_request', 'after_tool_execute'}


def test_constructor_registers_a_function_or_a_list_per_hook_point() -> None:
    log: list[str] = []

    async def count_request(ctx: RunContext[None], request_context: ModelRequestContext) -> None:
        log.append(f'request with {len(request_context.messages)} messages')

    def shout(ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, result: str) -> str:
        return result.upper()

    async def exclaim(ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, result: str):
        return result + '!'

    hooks = Hooks(before_model_request=count_request, after_tool_execute=[shout, exclaim])
    result = file_agent(hooks).run_sync('go')

    # after_* hooks run in registration order: upper-cased first, then the exclamation mark.
    assert result.output == 'delete_file=DELETED A!|read_file=CONTENTS OF B!'
    assert log == ['request with 1 messages', 'request with 3 messages']
    assert hooks.hook_names() == {'before_model_request', 'after_tool_execute'}


def test_sync_hooks_run_in_a_worker_thread_and_async_hooks_on_the_event_loop() -> None:
    threads: dict[str, int] = {}

    def sync_hook(ctx: RunContext[None], request_context: ModelRequestContext) -> None:
        threads['sync'] = threading.get_ident()

    async def async_hook(ctx: RunContext[None], request_context: ModelRequestContext) -> None:
        threads['async'] = threading.get_ident()

    Agent('test', capabilities=[Hooks(before_model_request=[sync_hook, async_hook])]).run_sync('hi')

    assert threads['async'] == threading.get_ident()
    assert threads['sync'] != threads['async']


def test_returning_none_from_before_and_after_hooks_leaves_the_value_unchanged() -> None:
    hooks = Hooks()
    seen: list[Any] = []

    @hooks.on.before_tool_execute
    async def change_path(ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any):
        return {'path': args['path'] + '2'}

    @hooks.on.before_tool_execute
    async def observe_args(ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any):
        seen.append(args)

    @hooks.on.after_model_request
    def observe_response(ctx: RunContext[None], *, request_context: ModelRequestContext, response: ModelResponse):
        seen.append(type(response).__name__)

    result = file_agent(hooks).run_sync('go')

    assert result.output == 'delete_file=deleted a2|read_file=contents of b2'
    assert seen == ['ModelResponse', {'path': 'a2'}, {'path': 'b2'}, 'ModelResponse']


def test_wrap_hooks_nest_with_the_first_registered_outermost() -> None:
    hooks = Hooks()
    log: list[str] = []

    @hooks.on.wrap_model_request
    async def outer(ctx: RunContext[None], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler):
        log.append('outer>')
        response = await handler(request_context)
        log.append('outer<')
        return response

    @hooks.on.wrap_model_request
    async def inner(ctx: RunContext[None], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler):
        log.append('inner>')
        response = await handler(request_context)
        log.append('inner<')
        return replace(response, parts=[TextPart(f'{response.text} (wrapped)')])

    result = Agent('test', capabilities=[hooks]).run_sync('hi')

    assert log == ['outer>', 'inner>', 'inner<', 'outer<']
    assert result.output == 'success (no tool calls) (wrapped)'


async def test_a_skip_raised_by_an_inner_wrap_hook_is_the_result_of_the_outer_handler() -> None:
    seen: list[str] = []

    async def outer(ctx: RunContext[None], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler):
        response = await handler(request_context)
        seen.append(response.text or '')
        return response

    async def inner(ctx: RunContext[None], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler):
        raise SkipModelRequest(ModelResponse(parts=[TextPart('cached')]))

    async def unreachable(request_context: ModelRequestContext) -> ModelResponse:
        raise AssertionError('the model must not be called')

    hooks = Hooks[Any](wrap_model_request=[outer, inner])
    response = await run_with_model_request_hooks(hooks, make_ctx(), make_request_context(), unreachable)

    assert response.text == 'cached'
    assert seen == ['cached']


def test_run_and_node_hooks_see_the_whole_run_and_every_node() -> None:
    hooks = Hooks()
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

    @hooks.on.wrap_node_run
    async def node_names(ctx: RunContext[None], *, node: AgentNode[None], handler: WrapNodeRunHandler[None]):
        log.append(type(node).__name__)
        return await handler(node)

    @hooks.on.after_run
    async def finished(ctx: RunContext[None], *, result: AgentRunResult[Any]) -> AgentRunResult[Any]:
        return replace(result, output=f'{result.output}, checked')

    result = Agent('test', capabilities=[hooks]).run_sync('hi')

    assert log == ['wrap_run>', 'before_run', 'UserPromptNode', 'ModelRequestNode', 'CallToolsNode', 'wrap_run<']
    assert result.output == 'success (no tool calls), checked'


def test_tool_hooks_filtered_by_name_only_run_for_the_named_tools() -> None:
    hooks = Hooks()
    seen: list[str] = []

    @hooks.on.before_tool_execute(tools=['delete_file'])
    async def guard(ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any) -> Any:
        seen.append(tool_def.name)
        return {'path': 'safe'}

    @hooks.on.wrap_tool_execute(tools=['delete_file'])
    async def mark(
        ctx: RunContext[None],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: Any,
        handler: WrapToolExecuteHandler,
    ) -> Any:
        return f'[{await handler(args)}]'

    result = file_agent(hooks).run_sync('go')

    assert seen == ['delete_file']
    assert result.output == 'delete_file=[deleted safe]|read_file=contents of b'


def test_tool_hooks_filtered_by_metadata_only_run_for_tools_carrying_it() -> None:
    hooks = Hooks()

    @hooks.on.after_tool_execute(tools={'dangerous': True})
    async def flag(ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, result: Any):
        return f'{result} (audited)'

    result = file_agent(hooks, dangerous_metadata=True).run_sync('go')

    assert result.output == 'delete_file=deleted a (audited)|read_file=contents of b'


def test_tool_hooks_filtered_by_predicate_only_run_for_tools_it_accepts() -> None:
    hooks = Hooks()

    def is_reader(ctx: RunContext[None], tool_def: ToolDefinition) -> bool:
        return tool_def.name.startswith('read_')

    @hooks.on.before_tool_validate(tools=is_reader)
    async def redirect(ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any) -> Any:
        return {'path': 'elsewhere'}

    result = file_agent(hooks).run_sync('go')

    assert result.output == 'delete_file=deleted a|read_file=contents of elsewhere'


def test_a_hook_exceeding_its_timeout_raises_timeout_error_naming_it() -> None:
    hooks = Hooks()

    @hooks.on.before_model_request(timeout=0.01)
    async def stuck(ctx: RunContext[None], request_context: ModelRequestContext) -> None:
        await asyncio.Event().wait()

    with pytest.raises(TimeoutError, match=r"'stuck' for 'before_model_request' did not finish within 0.01 seconds"):
        Agent('test', capabilities=[hooks]).run_sync('hi')


async def test_a_timeout_error_raised_by_the_hook_itself_is_not_reported_as_a_timeout() -> None:
    async def refuses(ctx: RunContext[None]) -> None:
        raise TimeoutError('upstream gave up')

    hooks = Hooks[Any]()
    hooks.on.before_run(timeout=5.0)(refuses)

    with pytest.raises(TimeoutError, match=r'^upstream gave up$'):
        await hooks.before_run(make_ctx())


def test_error_hooks_pass_the_error_along_until_one_recovers() -> None:
    hooks = Hooks()
    seen: list[str] = []

    @hooks.on.on_tool_execute_error
    async def log_only(
        ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, error: Exception
    ):
        seen.append(f'log: {error!r}')

    @hooks.on.on_tool_execute_error
    async def translate(
        ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, error: Exception
    ) -> Any:
        seen.append(f'translate: {error!r}')
        raise LookupError(f'no such file: {args["path"]}') from error

    @hooks.on.on_tool_execute_error
    async def fallback(
        ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, error: Exception
    ) -> Any:
        seen.append(f'fallback: {error!r}')
        return f'recovered from {error}'

    @hooks.on.on_tool_execute_error
    async def never_reached(
        ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, error: Exception
    ) -> Any:
        raise AssertionError('a recovered error is not handed on')

    agent = Agent(calls_then_reports(ToolCallPart('open_file', {'path': 'x'})), capabilities=[hooks])

    @agent.tool_plain
    def open_file(path: str) -> str:
        raise FileNotFoundError(path)

    result = agent.run_sync('go')

    assert result.output == 'open_file=recovered from no such file: x'
    assert seen == [
        "log: FileNotFoundError('x')",
        "translate: FileNotFoundError('x')",
        "fallback: LookupError('no such file: x')",
    ]


def test_an_error_hook_recovering_from_a_failed_model_request_supplies_the_response() -> None:
    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise ConnectionError('provider down')

    async def fallback(ctx: RunContext[None], *, request_context: ModelRequestContext, error: Exception):
        return ModelResponse(parts=[TextPart(f'fallback after {type(error).__name__}')])

    result = Agent(FunctionModel(broken), capabilities=[Hooks(on_model_request_error=fallback)]).run_sync('hi')

    assert result.output == 'fallback after ConnectionError'


def test_unhandled_errors_propagate_unchanged_when_every_error_hook_returns_none() -> None:
    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise ConnectionError('provider down')

    seen: list[str] = []

    def log_only(ctx: RunContext[None], *, request_context: ModelRequestContext, error: Exception) -> None:
        seen.append(str(error))

    with pytest.raises(ConnectionError, match='provider down'):
        Agent(FunctionModel(broken), capabilities=[Hooks(on_model_request_error=log_only)]).run_sync('hi')
    assert seen == ['provider down']


def test_tool_validation_error_hooks_recover_with_validated_arguments() -> None:
    hooks = Hooks()

    @hooks.on.on_tool_validate_error(tools=['read_file'])
    async def default_path(
        ctx: RunContext[None], *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, error: Exception
    ) -> Any:
        return {'path': 'default'}

    agent = Agent(calls_then_reports(ToolCallPart('read_file', {'path': 42})), capabilities=[hooks])

    @agent.tool_plain
    def read_file(path: str) -> str:
        return f'contents of {path}'

    assert agent.run_sync('go').output == 'read_file=contents of default'


async def test_wrap_run_event_stream_hooks_observe_and_transform_streamed_events() -> None:
    hooks = Hooks()
    observed: list[str] = []

    @hooks.on.wrap_run_event_stream
    async def record(ctx: RunContext[None], *, stream: AsyncIterable[AgentStreamEvent]):
        async for event in stream:
            observed.append(type(event).__name__)
            yield event

    async def starts_only(stream: AsyncIterable[AgentStreamEvent]) -> AsyncIterator[AgentStreamEvent]:
        async for event in stream:
            if isinstance(event, PartStartEvent):
                yield event

    @hooks.on.wrap_run_event_stream
    async def keep_part_starts(ctx: RunContext[None], *, stream: AsyncIterable[AgentStreamEvent]):
        # An async function returning a stream, rather than an async generator, works too.
        return starts_only(stream)

    agent = Agent('test', capabilities=[hooks])
    async with agent.run_stream_events('hi') as events:
        received = [type(event).__name__ async for event in events]

    # `record` is outermost, so it sees what `keep_part_starts` let through.
    assert received == ['PartStartEvent', 'AgentRunResultEvent']
    assert observed == ['PartStartEvent']


def test_a_prepare_tools_hook_hides_a_tool_from_the_model() -> None:
    hooks = Hooks()
    offered: list[list[str]] = []

    @hooks.on.prepare_tools
    def hide_deletes(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [td for td in tool_defs if not td.name.startswith('delete_')]

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append([td.name for td in info.function_tools])
        return ModelResponse(parts=[TextPart('done')])

    agent = Agent(FunctionModel(respond), capabilities=[hooks])

    @agent.tool_plain
    def delete_file(path: str) -> str:
        return f'deleted {path}'  # pragma: no cover

    @agent.tool_plain
    def read_file(path: str) -> str:
        return f'contents of {path}'  # pragma: no cover

    agent.run_sync('hello')

    assert offered == [['read_file']]


def test_unknown_hook_names_are_rejected_with_the_valid_ones_listed() -> None:
    async def hook(ctx: RunContext[None]) -> None:
        return None  # pragma: no cover

    with pytest.raises(UserError, match="Unknown hook point 'befor_run'"):
        Hooks(befor_run=hook)
    with pytest.raises(AttributeError, match="'befor_run' is not a hook point; valid hook points are: before_run, "):
        Hooks().on.befor_run  # noqa: B018
    assert set(HOOK_NAMES) <= set(dir(Hooks().on))


def test_hooks_that_cannot_work_are_rejected_when_registered() -> None:
    def sync_wrap(ctx: RunContext[None], *, handler: WrapRunHandler) -> Any:
        return None  # pragma: no cover

    async def stream_hook(ctx: RunContext[None], *, stream: AsyncIterable[AgentStreamEvent]) -> Any:
        return stream  # pragma: no cover

    with pytest.raises(UserError, match="'wrap_run' hooks must be async functions"):
        Hooks(wrap_run=sync_wrap)
    with pytest.raises(UserError, match=r"Invalid timeout 1\.0 for 'wrap_run_event_stream'"):
        Hooks().on.wrap_run_event_stream(timeout=1.0)(stream_hook)
    with pytest.raises(UserError, match="Invalid timeout 0 for 'before_run'"):
        Hooks().on.before_run(timeout=0)(stream_hook)
    with pytest.raises(UserError, match="A 'before_run' hook must be a function"):
        Hooks(before_run=cast(Any, ['not a function']))


def test_hook_names_lists_only_the_points_with_registered_functions() -> None:
    hooks = Hooks()
    assert hooks.hook_names() == frozenset()
    assert Hooks.overridden_hooks() == set(HOOK_NAMES)

    @hooks.on.wrap_node_run
    async def passthrough(ctx: RunContext[None], *, node: AgentNode[None], handler: WrapNodeRunHandler[None]):
        return await handler(node)  # pragma: no cover

    @hooks.on.prepare_tools
    def keep(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> None:
        return None  # pragma: no cover

    assert hooks.hook_names() == {'wrap_node_run', 'prepare_tools'}
    assert CombinedCapability([hooks, Hooks()]).hook_names() == {'wrap_node_run', 'prepare_tools'}


def test_hooks_cannot_be_loaded_from_a_spec_and_repr_counts_registered_functions() -> None:
    async def audit(ctx: RunContext[None], **kwargs: Any) -> NodeResult[None]:
        return kwargs['result']  # pragma: no cover

    assert Hooks.get_serialization_name() is None
    assert repr(Hooks()) == 'Hooks({})'
    assert repr(Hooks(after_node_run=[audit, audit])) == "Hooks({'after_node_run': 2})"
