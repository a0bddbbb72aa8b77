"""Function tools in real agent runs: registration, RunContext, args validation, richer results, prepare, approval."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from agent import Agent, DeferredToolRequests, ModelRetry, RunContext, Tool, ToolReturn
from agent.messages import (
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel
from agent.tools import ToolDefinition

from ._agent_helpers import call, calls, parts_of, scripted, text

# ----- registration and RunContext -----


async def test_context_tool_sees_deps_call_id_retry_and_run_step():
    seen: list[tuple[Any, ...]] = []
    agent = Agent(scripted(call('lookup', {'key': 'colour'}, 'call-42'), text('done')), deps_type=str)

    @agent.tool
    def lookup(ctx: RunContext[str], key: str) -> str:
        seen.append((ctx.deps, ctx.tool_call_id, ctx.tool_name, ctx.retry, ctx.run_step))
        return f'{key} is blue'

    result = await agent.run('What colour?', deps='the-deps')

    assert seen == [('the-deps', 'call-42', 'lookup', 0, 1)]
    assert result.output == 'done'
    [tool_return] = parts_of(result.all_messages(), ToolReturnPart)
    assert (tool_return.tool_name, tool_return.content, tool_return.tool_call_id) == (
        'lookup',
        'colour is blue',
        'call-42',
    )


async def test_run_step_counts_model_requests_seen_by_tools():
    steps: list[int] = []
    agent = Agent(scripted(call('probe'), call('probe'), text('done')))

    @agent.tool
    async def probe(ctx: RunContext[None]) -> int:
        steps.append(ctx.run_step)
        return ctx.run_step

    await agent.run('go')

    assert steps == [1, 2]


async def test_plain_tool_result_goes_back_to_the_model():
    agent = Agent(TestModel())

    @agent.tool_plain
    def double(x: int) -> int:
        """Double a number."""
        return x * 2

    result = await agent.run('Double it')

    [tool_return] = parts_of(result.all_messages(), ToolReturnPart)
    assert (tool_return.tool_name, tool_return.content) == ('double', 0)
    assert result.output == '{"double":0}'


async def test_tools_passed_as_tool_objects_are_offered_and_called():
    offered: list[list[str]] = []

    def shout(word: str) -> str:
        """Shout a word."""
        return word.upper()

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append([t.name for t in info.function_tools])
        if len(messages) == 1:
            return call('yell', {'word': 'hey'})
        return text('ok')

    agent = Agent(FunctionModel(respond), tools=[Tool(shout, name='yell', description='Make it loud.')])

    result = await agent.run('Shout')

    assert offered == [['yell'], ['yell']]
    [tool_return] = parts_of(result.all_messages(), ToolReturnPart)
    assert tool_return.content == 'HEY'


async def test_plain_functions_in_tools_infer_whether_they_take_the_context():
    def with_ctx(ctx: RunContext[int], n: int) -> int:
        return ctx.deps + n

    def without_ctx(n: int) -> int:
        return -n

    agent = Agent(
        scripted(calls(ToolCallPart('with_ctx', {'n': 1}), ToolCallPart('without_ctx', {'n': 1})), text('ok')),
        deps_type=int,
        tools=[with_ctx, without_ctx],
    )

    result = await agent.run('go', deps=10)

    assert [p.content for p in parts_of(result.all_messages(), ToolReturnPart)] == [11, -1]


class Item(pydantic.BaseModel):
    sku: str
    quantity: int = 1


class Order(pydantic.BaseModel):
    customer: str
    items: list[Item]


async def test_tool_args_with_nested_models_are_validated_into_model_instances():
    received: list[Order] = []
    schemas: list[dict[str, Any]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            schemas.append(info.function_tools[0].parameters_json_schema)
            return call('place_order', '{"customer": "ann", "items": [{"sku": "A1", "quantity": "3"}]}')
        return text('placed')

    agent = Agent(FunctionModel(respond))

    @agent.tool_plain
    def place_order(order: Order) -> int:
        received.append(order)
        return sum(item.quantity for item in order.items)

    result = await agent.run('Order things')

    assert received == [Order(customer='ann', items=[Item(sku='A1', quantity=3)])]
    assert isinstance(received[0].items[0], Item)
    assert parts_of(result.all_messages(), ToolReturnPart)[0].content == 3
    # The only parameter is a model, so the tool takes the model's own fields.
    assert set(schemas[0]['properties']) == {'customer', 'items'}
    assert set(schemas[0]['$defs']) == {'Item'}


# ----- richer results -----


async def test_tool_return_with_content_adds_a_user_prompt_after_all_the_returns():
    image = ImageUrl('https://example.com/chart.png')
    agent = Agent(scripted(calls(ToolCallPart('chart', {}), ToolCallPart('note', {})), text('seen')))

    @agent.tool_plain
    def chart() -> ToolReturn:
        return ToolReturn(return_value='chart attached', content=['Here is the chart:', image], metadata={'px': 64})

    @agent.tool_plain
    def note() -> str:
        return 'noted'

    result = await agent.run('Draw')

    tool_results = result.all_messages()[2]
    assert isinstance(tool_results, ModelRequest)
    assert [type(p) for p in tool_results.parts] == [ToolReturnPart, ToolReturnPart, UserPromptPart]
    first, second, extra = tool_results.parts
    assert isinstance(first, ToolReturnPart)
    assert (first.content, first.metadata) == ('chart attached', {'px': 64})
    assert isinstance(second, ToolReturnPart)
    assert second.content == 'noted'
    assert isinstance(extra, UserPromptPart)
    assert extra.content == ['Here is the chart:', image]


async def test_args_validator_raising_model_retry_sends_a_retry_prompt_before_the_tool_runs():
    ran_with: list[int] = []
    validated: list[tuple[int, int]] = []

    def positive(ctx: RunContext[None], amount: int) -> None:
        validated.append((amount, ctx.retry))
        if amount <= 0:
            raise ModelRetry('amount must be positive')

    agent = Agent(scripted(call('pay', {'amount': -5}, 'c1'), call('pay', {'amount': 5}, 'c2'), text('paid')))

    @agent.tool_plain(args_validator=positive)
    def pay(amount: int) -> str:
        ran_with.append(amount)
        return f'paid {amount}'

    result = await agent.run('pay')

    assert ran_with == [5]
    assert validated == [(-5, 0), (5, 1)]
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert (retry.content, retry.tool_name, retry.tool_call_id) == ('amount must be positive', 'pay', 'c1')


async def test_prepare_returning_none_hides_the_tool_from_the_model():
    offered: list[list[str]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append(sorted(t.name for t in info.function_tools))
        return text('ok')

    agent = Agent(FunctionModel(respond), deps_type=bool)

    async def only_for_admins(ctx: RunContext[bool], tool_def: Any) -> Any:
        return tool_def if ctx.deps else None

    @agent.tool(prepare=only_for_admins)
    def delete_everything(ctx: RunContext[bool]) -> str:
        return 'deleted'

    @agent.tool_plain
    def read() -> str:
        return 'read'

    await agent.run('go', deps=False)
    await agent.run('go', deps=True)

    assert offered == [['read'], ['delete_everything', 'read']]


async def test_calling_a_tool_hidden_by_prepare_is_an_unknown_tool():
    agent = Agent(scripted(call('hidden', {}), text('ok')))

    @agent.tool(prepare=lambda ctx, tool_def: None)
    def hidden(ctx: RunContext[None]) -> str:
        raise AssertionError('a hidden tool must not run')

    result = await agent.run('go')

    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert 'Unknown tool name' in retry.content


async def test_prepare_can_change_the_tool_description():
    descriptions: list[str | None] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        descriptions.extend(t.description for t in info.function_tools)
        return text('ok')

    agent = Agent(FunctionModel(respond), deps_type=str)

    async def describe(ctx: RunContext[str], tool_def: Any) -> Any:
        from dataclasses import replace

        return replace(tool_def, description=f'Greets in {ctx.deps}.')

    @agent.tool(prepare=describe)
    def greet(ctx: RunContext[str]) -> str:
        """Greets."""
        return 'hi'

    await agent.run('go', deps='French')

    assert descriptions == ['Greets in French.']


# ----- approval -----


async def test_tool_requiring_approval_ends_the_run_with_deferred_tool_requests():
    executed: list[str] = []
    agent = Agent(
        scripted(
            calls(ToolCallPart('delete_file', {'path': '/tmp/x'}, 'c-del'), ToolCallPart('list_files', {}, 'c-ls'))
        ),
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        executed.append(f'delete {path}')
        return 'deleted'

    @agent.tool_plain
    def list_files() -> list[str]:
        executed.append('list')
        return ['x']

    result = await agent.run('Clean up')

    assert isinstance(result.output, DeferredToolRequests)
    assert [c.tool_call_id for c in result.output.approvals] == ['c-del']
    assert result.output.approvals[0].args == {'path': '/tmp/x'}
    assert result.output.calls == []
    assert executed == ['list']
    last = result.all_messages()[-1]
    assert isinstance(last, ModelRequest)
    assert [(p.tool_call_id, p.content) for p in last.parts if isinstance(p, ToolReturnPart)] == [('c-ls', ['x'])]


async def test_tool_requiring_approval_without_deferred_output_type_is_a_user_error():
    from agent.exceptions import UserError

    agent = Agent(scripted(call('delete_file', {'path': '/x'})))

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        return 'deleted'

    with pytest.raises(UserError, match='DeferredToolRequests'):
        await agent.run('go')


def test_prepare_and_instructions_see_the_request_about_to_be_sent_in_the_messages():
    seen: list[tuple[str, list[str]]] = []

    def kinds(ctx: RunContext[None]) -> list[str]:
        return [message.kind for message in ctx.messages]

    async def prepare(ctx: RunContext[None], tool_def: ToolDefinition) -> ToolDefinition | None:
        seen.append(('prepare', kinds(ctx)))
        return tool_def if len(ctx.messages) < 3 else None

    agent = Agent(FunctionModel(lambda messages, info: _call_until_hidden(info)))

    @agent.instructions
    def instructions(ctx: RunContext[None]) -> str:
        seen.append(('instructions', kinds(ctx)))
        return 'Be brief.'

    @agent.tool(prepare=prepare)
    def ping(ctx: RunContext[None]) -> str:
        return 'pong'

    result = agent.run_sync('go')

    assert result.output == 'done'
    assert seen == [
        ('prepare', ['request']),
        ('instructions', ['request']),
        ('prepare', ['request', 'response', 'request']),
        ('instructions', ['request', 'response', 'request']),
    ]
    # What was in the history while preparing is the request as sent, with its instructions.
    assert [getattr(message, 'instructions', None) for message in result.all_messages()] == [
        'Be brief.',
        None,
        'Be brief.',
        None,
    ]


def _call_until_hidden(info: AgentInfo) -> ModelResponse:
    if info.function_tools:
        return ModelResponse(parts=[ToolCallPart('ping', {})])
    return ModelResponse(parts=[TextPart('done')])


def test_a_list_holding_tool_returns_is_refused_since_each_answers_one_call():
    from agent import UserError

    def call_report(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('report', {})])
        return ModelResponse(parts=[TextPart('done')])

    agent = Agent(FunctionModel(call_report))

    @agent.tool_plain
    def report() -> list[object]:
        return [ToolReturn('first'), 'second']

    with pytest.raises(UserError, match=r"^The return value of tool 'report' contains invalid nested `ToolReturn`"):
        agent.run_sync('go')


def test_prepare_tools_hooks_see_the_steps_tools_in_the_run_context():
    from agent.capabilities import PrepareTools

    seen: list[set[str]] = []

    def note(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        seen.append(ctx.available_tool_names)
        return tool_defs

    def ping() -> str:
        return 'pong'

    agent = Agent(TestModel(), tools=[ping], capabilities=[PrepareTools(note)])
    agent.run_sync('go')

    assert seen == [{'ping'}, {'ping'}]
