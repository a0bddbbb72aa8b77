"""What a resumed run adds to a history: which request holds which results, in which order, and what is "new"."""

from __future__ import annotations

from typing import Any

from agent import (
    Agent,
    ApprovalRequired,
    CallDeferred,
    DeferredToolRequests,
    DeferredToolResults,
    RunContext,
    ToolDenied,
)
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models.function import AgentInfo, FunctionModel


def _shape(messages: list[ModelMessage]) -> list[tuple[str, list[Any]]]:
    """Each message as its kind and its parts' tool call ids (or content, for parts without one)."""
    return [
        (m.kind, [getattr(p, 'tool_call_id', None) or getattr(p, 'content', None) for p in m.parts]) for m in messages
    ]


def _warehouse_agent(seen: list[list[ModelMessage]]) -> Agent[None, str | DeferredToolRequests]:
    """Six calls in one response: two plain tools, two needing approval, one external, one asking for approval."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        if len(messages) == 1:
            return ModelResponse(
                parts=[
                    ToolCallPart('count_stock', {'sku': 'A'}, 'count-a'),
                    ToolCallPart('discard', {'sku': 'B'}, 'discard-b'),
                    ToolCallPart('ask_supplier', {'sku': 'C'}, 'supplier-c'),
                    ToolCallPart('discard', {'sku': 'D'}, 'discard-d'),
                    ToolCallPart('count_stock', {'sku': 'E'}, 'count-e'),
                    ToolCallPart('reorder', {'sku': 'F'}, 'reorder-f'),
                ]
            )
        return ModelResponse(parts=[TextPart('stock handled')])

    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(respond), output_type=[str, DeferredToolRequests]
    )

    @agent.tool_plain
    def count_stock(sku: str) -> str:
        return f'{sku}: 3 left'

    @agent.tool_plain(requires_approval=True)
    def discard(sku: str) -> str:
        return f'{sku} discarded'

    @agent.tool_plain
    def ask_supplier(sku: str) -> str:
        raise CallDeferred

    @agent.tool
    def reorder(ctx: RunContext[None], sku: str) -> str:
        if not ctx.tool_call_approved:
            raise ApprovalRequired
        return f'{sku} reordered'

    return agent


async def test_approvals_list_tools_that_asked_while_running_before_tools_that_always_need_approval():
    agent = _warehouse_agent([])

    result = await agent.run('tidy the warehouse')

    requests = result.output
    assert isinstance(requests, DeferredToolRequests)
    assert [c.tool_call_id for c in requests.approvals] == ['reorder-f', 'discard-b', 'discard-d']
    assert [c.tool_call_id for c in requests.calls] == ['supplier-c']
    assert _shape(result.all_messages())[-1] == ('request', ['count-a', 'count-e'])


async def test_resumed_results_go_in_a_request_of_their_own_that_the_model_gets_merged_with_the_earlier_one():
    seen: list[list[ModelMessage]] = []
    agent = _warehouse_agent(seen)
    first = await agent.run('tidy the warehouse')
    results = DeferredToolResults(
        approvals={'discard-d': True, 'discard-b': ToolDenied('keep B'), 'reorder-f': True},
        calls={'supplier-c': 'C ships Monday'},
    )

    second = await agent.run('and report', message_history=first.all_messages(), deferred_tool_results=results)

    assert second.output == 'stock handled'
    # The first run's request is kept as it was; this run's request holds the new results, function tools' first
    # (the external call and the tool that asked for approval while running), then the approvals, then the prompt.
    assert second.all_messages()[: len(first.all_messages())] == first.all_messages()
    assert _shape(second.new_messages()) == [
        ('request', ['supplier-c', 'reorder-f', 'discard-b', 'discard-d', 'and report']),
        ('response', ['stock handled']),
    ]
    # The model gets the two requests as one, the results before the prompt.
    assert _shape(seen[-1])[-1] == (
        'request',
        ['count-a', 'count-e', 'supplier-c', 'reorder-f', 'discard-b', 'discard-d', 'and report'],
    )
    assert len(seen[-1]) == 3


def _history_ending_in_tool_results() -> list[ModelMessage]:
    return [
        ModelRequest(parts=[UserPromptPart('how many apples?')], run_id='earlier-run'),
        ModelResponse(parts=[ToolCallPart('count', {}, 'count-1')], run_id='earlier-run'),
        ModelRequest(parts=[ToolReturnPart('count', 7, 'count-1')], run_id='earlier-run'),
    ]


async def test_a_new_prompt_after_trailing_tool_results_never_repeats_them_in_the_new_messages():
    seen: list[list[ModelMessage]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        return ModelResponse(parts=[TextPart('seven, and pears next')])

    agent = Agent(FunctionModel(respond))
    history = _history_ending_in_tool_results()

    result = await agent.run('and pears?', message_history=history)

    assert _shape(result.new_messages()) == [('request', ['and pears?']), ('response', ['seven, and pears next'])]
    stored = [*history, *result.new_messages()]
    call_ids = [
        p.tool_call_id for m in stored if isinstance(m, ModelRequest) for p in m.parts if p.part_kind == 'tool-return'
    ]
    assert call_ids == ['count-1']
    assert result.all_messages() == stored
    # The model gets the tool result and the new prompt as one request, the result first.
    assert _shape(seen[0]) == [
        ('request', ['how many apples?']),
        ('response', ['count-1']),
        ('request', ['count-1', 'and pears?']),
    ]


async def test_resuming_from_trailing_tool_results_without_a_prompt_counts_only_the_answer_as_new():
    agent = Agent(FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart('seven')])))
    history = _history_ending_in_tool_results()

    result = await agent.run(message_history=history)

    assert _shape(result.new_messages()) == [('response', ['seven'])]
    assert _shape(result.all_messages()) == [*_shape(history), ('response', ['seven'])]
