"""The `run_with_*_hooks` drivers over three recording capabilities: error hooks recover, transform or re-raise."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, cast

import pytest

from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse, TextPart
from agent._run_context import RunContext
from agent.capabilities import (
    AgentNode,
    CombinedCapability,
    NodeResult,
    RawToolArgs,
    ValidatedToolArgs,
    WrapRunHandler,
    run_with_model_request_hooks,
    run_with_node_hooks,
    run_with_run_hooks,
    run_with_tool_execute_hooks,
    run_with_tool_validate_hooks,
)
from agent.exceptions import ApprovalRequired, CallDeferred, ModelRetry

from ._recorder import CALL, NAMES, TOOL_DEF, Recorder, Trio, make_ctx, make_request_context, text_of


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
