"""The `run_with_*_hooks` drivers over three composed recording capabilities: hook order and nesting."""

from __future__ import annotations

from typing import Any, cast

from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse, TextPart
from agent.capabilities import (
    AbstractCapability,
    AgentNode,
    CombinedCapability,
    NodeResult,
    RawToolArgs,
    ValidatedToolArgs,
    run_with_model_request_hooks,
    run_with_node_hooks,
    run_with_run_hooks,
    run_with_tool_execute_hooks,
    run_with_tool_validate_hooks,
)

from ._recorder import CALL, TOOL_DEF, Trio, make_ctx, make_request_context, text_of


async def test_run_hooks_fire_before_in_order_nest_wraps_and_fire_after_in_reverse() -> None:
    trio = Trio()

    async def run() -> Any:
        trio.log.append('run')
        return 'result'

    result = await run_with_run_hooks(trio.combined, make_ctx(), run)

    assert trio.log == [
        'wrap_run enter cap1',
        'wrap_run enter cap2',
        'wrap_run enter cap3',
        'before_run cap1',
        'before_run cap2',
        'before_run cap3',
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
