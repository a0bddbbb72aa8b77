"""The `run_with_*_hooks` drivers, run over three composed capabilities that record every hook they see."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from typing import Any, cast

import pytest

from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse, TextPart, ToolCallPart
from agent._run_context import RunContext
from agent._tool_def import ToolDefinition
from agent.capabilities import (
    AbstractCapability,
    AgentNode,
    CombinedCapability,
    NodeResult,
    RawToolArgs,
    ValidatedToolArgs,
    WrapModelRequestHandler,
    WrapNodeRunHandler,
    WrapRunHandler,
    WrapToolExecuteHandler,
    WrapToolValidateHandler,
    run_with_model_request_hooks,
    run_with_node_hooks,
    run_with_run_hooks,
    run_with_tool_execute_hooks,
    run_with_tool_validate_hooks,
)
from agent.exceptions import (
    ApprovalRequired,
    CallDeferred,
    ModelRetry,
    SkipModelRequest,
    SkipToolExecution,
    SkipToolValidation,
)
from agent.usage import RunUsage

NAMES = ('cap1', 'cap2', 'cap3')
CALL = ToolCallPart('add', {'a': 1})
TOOL_DEF = ToolDefinition(name='add')


def make_ctx() -> RunContext[Any]:
    return RunContext(deps=None, model=cast(Any, None), usage=RunUsage())


def make_request_context() -> ModelRequestContext:
    return ModelRequestContext(
        model=cast(Any, None), messages=[], model_settings=None, model_request_parameters=cast(Any, None)
    )


def text_of(response: ModelResponse) -> str:
    return '|'.join(part.content for part in response.parts if isinstance(part, TextPart))


@dataclass
class Recorder(AbstractCapability[Any]):
    """Logs every hook; `before_*`/`after_*` leave a mark on the value they pass on."""

    name: str
    log: list[str]
    recover: Any = None
    """Returned by every error hook when set."""
    transform_to: type[Exception] | None = None
    """Error hooks raise this instead of the error they got, when set."""
    before_raises: Exception | None = None
    """Raised by every `before_*` hook when set."""
    wrap_raises: Exception | None = None
    """Raised by every `wrap_*` hook (after logging its entry) when set."""

    def _enter(self, hook: str, value: Any = None) -> None:
        self.log.append(f'{hook} enter {self.name}' if value is None else f'{hook} enter {self.name} {value}')
        if self.wrap_raises is not None:
            raise self.wrap_raises

    def _before(self, hook: str) -> None:
        self.log.append(f'{hook} {self.name}')
        if self.before_raises is not None:
            raise self.before_raises

    def _error(self, hook: str, error: BaseException) -> Any:
        self.log.append(f'{hook} {self.name} {type(error).__name__}({error})')
        if self.recover is not None:
            return self.recover
        if self.transform_to is not None:
            raise self.transform_to(self.name) from error
        raise error

    async def before_run(self, ctx: RunContext[Any]) -> None:
        self._before('before_run')

    async def after_run(self, ctx: RunContext[Any], *, result: Any) -> Any:
        self.log.append(f'after_run {self.name}')
        return f'{result}>{self.name}'

    async def wrap_run(self, ctx: RunContext[Any], *, handler: WrapRunHandler) -> Any:
        self._enter('wrap_run')
        result = await handler()
        self.log.append(f'wrap_run exit {self.name} {result}')
        return result

    async def on_run_error(self, ctx: RunContext[Any], *, error: BaseException) -> Any:
        return self._error('on_run_error', error)

    async def before_node_run(self, ctx: RunContext[Any], *, node: AgentNode[Any]) -> AgentNode[Any]:
        self._before('before_node_run')
        return cast(Any, f'{node}+{self.name}')

    async def after_node_run(
        self, ctx: RunContext[Any], *, node: AgentNode[Any], result: NodeResult[Any]
    ) -> NodeResult[Any]:
        self.log.append(f'after_node_run {self.name} {node}')
        return cast(Any, f'{result}>{self.name}')

    async def wrap_node_run(
        self, ctx: RunContext[Any], *, node: AgentNode[Any], handler: WrapNodeRunHandler[Any]
    ) -> NodeResult[Any]:
        self._enter('wrap_node_run', node)
        result = await handler(node)
        self.log.append(f'wrap_node_run exit {self.name} {result}')
        return result

    async def on_node_run_error(
        self, ctx: RunContext[Any], *, node: AgentNode[Any], error: BaseException
    ) -> NodeResult[Any]:
        return self._error('on_node_run_error', error)

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self._before('before_model_request')
        return replace(request_context, messages=[*request_context.messages, cast(Any, self.name)])

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        self.log.append(f'after_model_request {self.name} {text_of(response)}')
        return ModelResponse(parts=[*response.parts, TextPart(self.name)])

    async def wrap_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler
    ) -> ModelResponse:
        self._enter('wrap_model_request')
        response = await handler(request_context)
        self.log.append(f'wrap_model_request exit {self.name} {text_of(response)}')
        return response

    async def on_model_request_error(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, error: Exception
    ) -> ModelResponse:
        return self._error('on_model_request_error', error)

    async def before_tool_validate(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: RawToolArgs
    ) -> RawToolArgs:
        self._before('before_tool_validate')
        return f'{args}+{self.name}'

    async def after_tool_validate(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: ValidatedToolArgs
    ) -> ValidatedToolArgs:
        self.log.append(f'after_tool_validate {self.name}')
        return {**args, 'trail': [*args.get('trail', []), self.name]}

    async def wrap_tool_validate(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: RawToolArgs,
        handler: WrapToolValidateHandler,
    ) -> ValidatedToolArgs:
        self._enter('wrap_tool_validate', args)
        validated = await handler(args)
        self.log.append(f'wrap_tool_validate exit {self.name}')
        return validated

    async def on_tool_validate_error(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: RawToolArgs, error: Exception
    ) -> ValidatedToolArgs:
        return self._error('on_tool_validate_error', error)

    async def before_tool_execute(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: ValidatedToolArgs
    ) -> ValidatedToolArgs:
        self._before('before_tool_execute')
        return {**args, 'seen_by': [*args.get('seen_by', []), self.name]}

    async def after_tool_execute(
        self, ctx: RunContext[Any], *, call: Any, tool_def: Any, args: ValidatedToolArgs, result: Any
    ) -> Any:
        self.log.append(f'after_tool_execute {self.name} {result}')
        return f'{result}>{self.name}'

    async def wrap_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        handler: WrapToolExecuteHandler,
    ) -> Any:
        self._enter('wrap_tool_execute')
        result = await handler(args)
        self.log.append(f'wrap_tool_execute exit {self.name} {result}')
        return result

    async def on_tool_execute_error(
        self, ctx: RunContext[Any], *, call: Any, tool_def: Any, args: ValidatedToolArgs, error: Exception
    ) -> Any:
        return self._error('on_tool_execute_error', error)


@dataclass
class Trio:
    """Three recorders sharing one log, composed in order."""

    log: list[str] = field(default_factory=list[str])
    caps: list[Recorder] = field(init=False)

    def __post_init__(self) -> None:
        self.caps = [Recorder(name, self.log) for name in NAMES]

    @property
    def combined(self) -> CombinedCapability[Any]:
        return CombinedCapability(self.caps)


# --- ordering and nesting -----------------------------------------------------------------------------------


async def test_run_hooks_fire_before_in_order_nest_wraps_and_fire_after_in_reverse() -> None:
    trio = Trio()

    async def run() -> Any:
        trio.log.append('run')
        return 'result'

    result = await run_with_run_hooks(trio.combined, make_ctx(), run)

    assert trio.log == [
        'before_run cap1',
        'before_run cap2',
        'before_run cap3',
        'wrap_run enter cap1',
        'wrap_run enter cap2',
        'wrap_run enter cap3',
        'run',
        'wrap_run exit cap3 result',
        'wrap_run exit cap2 result',
        'wrap_run exit cap1 result',
        'after_run cap3',
        'after_run cap2',
        'after_run cap1',
    ]
    assert result == 'result>cap3>cap2>cap1'


async def test_node_hooks_chain_node_replacements_and_run_the_final_node() -> None:
    trio = Trio()
    ran: list[Any] = []

    async def run_node(node: AgentNode[Any]) -> NodeResult[Any]:
        ran.append(node)
        return cast(Any, 'next')

    result = await run_with_node_hooks(trio.combined, make_ctx(), cast(Any, 'node'), run_node)

    assert ran == ['node+cap1+cap2+cap3']
    assert trio.log == [
        'before_node_run cap1',
        'before_node_run cap2',
        'before_node_run cap3',
        'wrap_node_run enter cap1 node+cap1+cap2+cap3',
        'wrap_node_run enter cap2 node+cap1+cap2+cap3',
        'wrap_node_run enter cap3 node+cap1+cap2+cap3',
        'wrap_node_run exit cap3 next',
        'wrap_node_run exit cap2 next',
        'wrap_node_run exit cap1 next',
        'after_node_run cap3 node+cap1+cap2+cap3',
        'after_node_run cap2 node+cap1+cap2+cap3',
        'after_node_run cap1 node+cap1+cap2+cap3',
    ]
    assert result == 'next>cap3>cap2>cap1'


async def test_model_request_hooks_pass_each_before_output_on_and_see_the_response_in_reverse() -> None:
    trio = Trio()
    sent: list[list[Any]] = []

    async def request(request_context: ModelRequestContext) -> ModelResponse:
        sent.append(list(request_context.messages))
        return ModelResponse(parts=[TextPart('model')])

    response = await run_with_model_request_hooks(trio.combined, make_ctx(), make_request_context(), request)

    assert sent == [['cap1', 'cap2', 'cap3']]
    assert trio.log == [
        'before_model_request cap1',
        'before_model_request cap2',
        'before_model_request cap3',
        'wrap_model_request enter cap1',
        'wrap_model_request enter cap2',
        'wrap_model_request enter cap3',
        'wrap_model_request exit cap3 model',
        'wrap_model_request exit cap2 model',
        'wrap_model_request exit cap1 model',
        'after_model_request cap3 model',
        'after_model_request cap2 model|cap3',
        'after_model_request cap1 model|cap3|cap2',
    ]
    assert text_of(response) == 'model|cap3|cap2|cap1'


async def test_tool_validate_hooks_modify_raw_args_in_order_and_validated_args_in_reverse() -> None:
    trio = Trio()

    async def validate(args: RawToolArgs) -> ValidatedToolArgs:
        trio.log.append(f'validate {args}')
        return {'raw': args}

    validated = await run_with_tool_validate_hooks(
        trio.combined, make_ctx(), call=CALL, tool_def=TOOL_DEF, args='{}', validate=validate
    )

    assert trio.log == [
        'before_tool_validate cap1',
        'before_tool_validate cap2',
        'before_tool_validate cap3',
        'wrap_tool_validate enter cap1 {}+cap1+cap2+cap3',
        'wrap_tool_validate enter cap2 {}+cap1+cap2+cap3',
        'wrap_tool_validate enter cap3 {}+cap1+cap2+cap3',
        'validate {}+cap1+cap2+cap3',
        'wrap_tool_validate exit cap3',
        'wrap_tool_validate exit cap2',
        'wrap_tool_validate exit cap1',
        'after_tool_validate cap3',
        'after_tool_validate cap2',
        'after_tool_validate cap1',
    ]
    assert validated == {'raw': '{}+cap1+cap2+cap3', 'trail': ['cap3', 'cap2', 'cap1']}


async def test_tool_execute_hooks_run_the_tool_with_args_from_every_before_hook() -> None:
    trio = Trio()
    executed: list[ValidatedToolArgs] = []

    async def execute(args: ValidatedToolArgs) -> Any:
        executed.append(args)
        trio.log.append('execute')
        return 'ok'

    result = await run_with_tool_execute_hooks(
        trio.combined, make_ctx(), call=CALL, tool_def=TOOL_DEF, args={'a': 1}, execute=execute
    )

    assert executed == [{'a': 1, 'seen_by': ['cap1', 'cap2', 'cap3']}]
    assert trio.log == [
        'before_tool_execute cap1',
        'before_tool_execute cap2',
        'before_tool_execute cap3',
        'wrap_tool_execute enter cap1',
        'wrap_tool_execute enter cap2',
        'wrap_tool_execute enter cap3',
        'execute',
        'wrap_tool_execute exit cap3 ok',
        'wrap_tool_execute exit cap2 ok',
        'wrap_tool_execute exit cap1 ok',
        'after_tool_execute cap3 ok',
        'after_tool_execute cap2 ok>cap3',
        'after_tool_execute cap1 ok>cap3>cap2',
    ]
    assert result == 'ok>cap3>cap2>cap1'


async def test_default_hooks_pass_values_through_unchanged() -> None:
    plain = CombinedCapability[Any]([AbstractCapability(), AbstractCapability()])
    response = ModelResponse(parts=[TextPart('hi')])

    async def request(request_context: ModelRequestContext) -> ModelResponse:
        return response

    async def execute(args: ValidatedToolArgs) -> Any:
        return args['a'] + 1

    assert await run_with_model_request_hooks(plain, make_ctx(), make_request_context(), request) is response
    assert (
        await run_with_tool_execute_hooks(
            plain, make_ctx(), call=CALL, tool_def=TOOL_DEF, args={'a': 1}, execute=execute
        )
        == 2
    )


# --- error hooks ------------------------------------------------------------------------------------------


async def failing_request(request_context: ModelRequestContext) -> ModelResponse:
    raise ValueError('boom')


async def test_error_propagates_through_every_error_hook_in_reverse_and_skips_after_hooks() -> None:
    trio = Trio()

    with pytest.raises(ValueError, match='boom'):
        await run_with_model_request_hooks(trio.combined, make_ctx(), make_request_context(), failing_request)

    assert trio.log[6:] == [
        'on_model_request_error cap3 ValueError(boom)',
        'on_model_request_error cap2 ValueError(boom)',
        'on_model_request_error cap1 ValueError(boom)',
    ]
    assert not any(entry.startswith(('after_', 'wrap_model_request exit')) for entry in trio.log)


async def test_returning_from_an_error_hook_recovers_skips_earlier_caps_hooks_and_runs_after_hooks() -> None:
    trio = Trio()
    trio.caps[1].recover = ModelResponse(parts=[TextPart('recovered')])

    response = await run_with_model_request_hooks(trio.combined, make_ctx(), make_request_context(), failing_request)

    assert trio.log[6:] == [
        'on_model_request_error cap3 ValueError(boom)',
        'on_model_request_error cap2 ValueError(boom)',
        'after_model_request cap3 recovered',
        'after_model_request cap2 recovered|cap3',
        'after_model_request cap1 recovered|cap3|cap2',
    ]
    assert text_of(response) == 'recovered|cap3|cap2|cap1'


async def test_an_error_hook_can_transform_the_error_for_the_hooks_after_it() -> None:
    trio = Trio()
    trio.caps[2].transform_to = KeyError

    with pytest.raises(KeyError) as raised:
        await run_with_model_request_hooks(trio.combined, make_ctx(), make_request_context(), failing_request)

    assert isinstance(raised.value.__cause__, ValueError)
    assert trio.log[6:] == [
        'on_model_request_error cap3 ValueError(boom)',
        "on_model_request_error cap2 KeyError('cap3')",
        "on_model_request_error cap1 KeyError('cap3')",
    ]


async def test_a_transformed_error_can_still_be_recovered_by_an_earlier_capability() -> None:
    trio = Trio()
    trio.caps[2].transform_to = KeyError
    trio.caps[0].recover = 'fallback'

    async def failing_run() -> Any:
        raise ValueError('boom')

    result = await run_with_run_hooks(trio.combined, make_ctx(), failing_run)

    assert result == 'fallback>cap3>cap2>cap1'
    assert "on_run_error cap1 KeyError('cap3')" in trio.log


async def test_node_error_hooks_can_recover_with_the_next_node() -> None:
    trio = Trio()
    trio.caps[2].recover = 'end'

    async def failing_node(node: AgentNode[Any]) -> NodeResult[Any]:
        raise RuntimeError('node failed')

    result = await run_with_node_hooks(trio.combined, make_ctx(), cast(Any, 'node'), failing_node)

    assert result == 'end>cap3>cap2>cap1'
    assert [entry for entry in trio.log if entry.startswith('on_')] == [
        'on_node_run_error cap3 RuntimeError(node failed)'
    ]


async def test_wrap_run_catching_the_handlers_error_recovers_without_error_hooks() -> None:
    log: list[str] = []

    @dataclass
    class Recovering(Recorder):
        async def wrap_run(self, ctx: RunContext[Any], *, handler: WrapRunHandler) -> Any:
            try:
                return await handler()
            except ValueError:
                return 'recovered in wrap'

    cap = CombinedCapability[Any]([Recorder('outer', log), Recovering('inner', log)])

    async def failing_run() -> Any:
        raise ValueError('boom')

    result = await run_with_run_hooks(cap, make_ctx(), failing_run)

    assert result == 'recovered in wrap>inner>outer'
    assert not any(entry.startswith('on_run_error') for entry in log)


async def test_errors_from_before_hooks_propagate_without_error_or_after_hooks() -> None:
    trio = Trio()
    trio.caps[1].before_raises = LookupError('bad input')

    with pytest.raises(LookupError):
        await run_with_tool_execute_hooks(
            trio.combined, make_ctx(), call=CALL, tool_def=TOOL_DEF, args={}, execute=cast(Any, None)
        )

    assert trio.log == ['before_tool_execute cap1', 'before_tool_execute cap2']


async def test_model_retry_reaches_tool_error_hooks_and_can_be_recovered_from() -> None:
    trio = Trio()
    trio.caps[0].recover = {'repaired': True}

    async def validate(args: RawToolArgs) -> ValidatedToolArgs:
        raise ModelRetry('fix your args')

    validated = await run_with_tool_validate_hooks(
        trio.combined, make_ctx(), call=CALL, tool_def=TOOL_DEF, args='{', validate=validate
    )

    assert validated == {'repaired': True, 'trail': ['cap3', 'cap2', 'cap1']}
    assert [entry for entry in trio.log if entry.startswith('on_')] == [
        f'on_tool_validate_error {name} ModelRetry(fix your args)' for name in reversed(NAMES)
    ]


async def test_model_retry_reraised_by_tool_execute_error_hooks_reaches_the_caller() -> None:
    trio = Trio()

    async def execute(args: ValidatedToolArgs) -> Any:
        raise ModelRetry('try again')

    with pytest.raises(ModelRetry, match='try again'):
        await run_with_tool_execute_hooks(
            trio.combined, make_ctx(), call=CALL, tool_def=TOOL_DEF, args={}, execute=execute
        )

    assert 'on_tool_execute_error cap1 ModelRetry(try again)' in trio.log


@pytest.mark.parametrize('signal', [ApprovalRequired(), CallDeferred()])
async def test_deferral_signals_from_a_tool_propagate_untouched_by_error_and_after_hooks(signal: Exception) -> None:
    trio = Trio()

    async def execute(args: ValidatedToolArgs) -> Any:
        raise signal

    with pytest.raises(type(signal)) as raised:
        await run_with_tool_execute_hooks(
            trio.combined, make_ctx(), call=CALL, tool_def=TOOL_DEF, args={}, execute=execute
        )

    assert raised.value is signal
    assert not any(entry.startswith(('on_', 'after_')) for entry in trio.log)


async def test_cancellation_is_never_seen_by_error_hooks() -> None:
    trio = Trio()
    trio.caps[0].recover = 'would hide the cancellation'

    async def cancelled_run() -> Any:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await run_with_run_hooks(trio.combined, make_ctx(), cancelled_run)

    assert not any(entry.startswith(('on_', 'after_')) for entry in trio.log)


# --- skip signals -----------------------------------------------------------------------------------------


async def unreachable_request(request_context: ModelRequestContext) -> ModelResponse:
    raise AssertionError('the model must not be called')


async def test_skip_model_request_from_before_skips_the_rest_and_runs_every_after_hook() -> None:
    trio = Trio()
    trio.caps[1].before_raises = SkipModelRequest(ModelResponse(parts=[TextPart('cached')]))

    response = await run_with_model_request_hooks(
        trio.combined, make_ctx(), make_request_context(), unreachable_request
    )

    assert trio.log == [
        'before_model_request cap1',
        'before_model_request cap2',
        'after_model_request cap3 cached',
        'after_model_request cap2 cached|cap3',
        'after_model_request cap1 cached|cap3|cap2',
    ]
    assert text_of(response) == 'cached|cap3|cap2|cap1'


async def test_skip_model_request_from_an_inner_wrap_reaches_outer_wraps_as_the_response() -> None:
    trio = Trio()
    trio.caps[1].wrap_raises = SkipModelRequest(ModelResponse(parts=[TextPart('cached')]))

    response = await run_with_model_request_hooks(
        trio.combined, make_ctx(), make_request_context(), unreachable_request
    )

    assert trio.log[3:] == [
        'wrap_model_request enter cap1',
        'wrap_model_request enter cap2',
        'wrap_model_request exit cap1 cached',
        'after_model_request cap3 cached',
        'after_model_request cap2 cached|cap3',
        'after_model_request cap1 cached|cap3|cap2',
    ]
    assert text_of(response) == 'cached|cap3|cap2|cap1'


async def test_skip_model_request_from_the_outermost_wrap_is_used_as_the_response() -> None:
    trio = Trio()
    trio.caps[0].wrap_raises = SkipModelRequest(ModelResponse(parts=[TextPart('cached')]))

    response = await run_with_model_request_hooks(
        trio.combined, make_ctx(), make_request_context(), unreachable_request
    )

    assert text_of(response) == 'cached|cap3|cap2|cap1'
    assert not any(entry.startswith('on_') for entry in trio.log)


async def test_skip_tool_validation_from_before_uses_the_given_args() -> None:
    trio = Trio()
    trio.caps[0].before_raises = SkipToolValidation({'pre': 'validated'})

    validated = await run_with_tool_validate_hooks(
        trio.combined, make_ctx(), call=CALL, tool_def=TOOL_DEF, args='{}', validate=cast(Any, None)
    )

    assert validated == {'pre': 'validated', 'trail': ['cap3', 'cap2', 'cap1']}
    assert not any(entry.startswith(('wrap_', 'on_')) for entry in trio.log)


async def test_skip_tool_validation_from_a_wrap_uses_the_given_args() -> None:
    trio = Trio()
    trio.caps[2].wrap_raises = SkipToolValidation({'pre': 'validated'})

    validated = await run_with_tool_validate_hooks(
        trio.combined, make_ctx(), call=CALL, tool_def=TOOL_DEF, args='{}', validate=cast(Any, None)
    )

    assert validated == {'pre': 'validated', 'trail': ['cap3', 'cap2', 'cap1']}
    assert 'wrap_tool_validate exit cap2' in trio.log
    assert not any(entry.startswith('on_') for entry in trio.log)


async def test_skip_tool_execution_from_before_uses_the_given_result() -> None:
    trio = Trio()
    trio.caps[2].before_raises = SkipToolExecution('stubbed')

    result = await run_with_tool_execute_hooks(
        trio.combined, make_ctx(), call=CALL, tool_def=TOOL_DEF, args={}, execute=cast(Any, None)
    )

    assert result == 'stubbed>cap3>cap2>cap1'
    assert not any(entry.startswith(('wrap_', 'on_')) for entry in trio.log)


async def test_skip_tool_execution_from_a_wrap_uses_the_given_result() -> None:
    trio = Trio()
    trio.caps[1].wrap_raises = SkipToolExecution('stubbed')

    result = await run_with_tool_execute_hooks(
        trio.combined, make_ctx(), call=CALL, tool_def=TOOL_DEF, args={}, execute=cast(Any, None)
    )

    assert result == 'stubbed>cap3>cap2>cap1'
    assert 'wrap_tool_execute exit cap1 stubbed' in trio.log
    assert not any(entry.startswith('on_') for entry in trio.log)
