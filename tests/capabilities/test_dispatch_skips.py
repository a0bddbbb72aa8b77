"""The `run_with_*_hooks` drivers over three composed recording capabilities: `Skip*` signals short-circuit a step."""

from __future__ import annotations

from typing import Any, cast

from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse, TextPart
from agent.capabilities import run_with_model_request_hooks, run_with_tool_execute_hooks, run_with_tool_validate_hooks
from agent.exceptions import SkipModelRequest, SkipToolExecution, SkipToolValidation

from ._recorder import CALL, TOOL_DEF, Trio, make_ctx, make_request_context, text_of


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
