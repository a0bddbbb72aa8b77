"""`HandleDeferredToolCalls` and the `handle_deferred_tool_calls` hook: deferred calls answered within the run."""

from __future__ import annotations

from typing import Any

from agent import Agent, ApprovalRequired, DeferredToolRequests, DeferredToolResults, RunContext
from agent.capabilities import HandleDeferredToolCalls, Hooks
from agent.messages import ToolCallPart, ToolReturnPart
from tests._agent_helpers import calls, parts_of, scripted, text


def approval_agent(*capabilities: Any, output_type: Any = str) -> Agent[None, Any]:
    agent = Agent(
        scripted(
            calls(ToolCallPart('delete', {'name': 'a'}, 'c1'), ToolCallPart('delete', {'name': 'b'}, 'c2')),
            text('deleted'),
        ),
        output_type=output_type,
        capabilities=list(capabilities),
    )

    @agent.tool_plain(requires_approval=True)
    def delete(name: str) -> str:
        return f'deleted {name}'

    return agent


async def test_a_handler_approving_every_call_lets_the_run_finish_without_deferred_output():
    asked: list[list[str]] = []

    def approve_all(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        asked.append([c.tool_call_id for c in requests.approvals])
        return requests.build_results(approve_all=True)

    result = await approval_agent(HandleDeferredToolCalls(approve_all)).run('clean up')

    assert result.output == 'deleted'
    assert asked == [['c1', 'c2']]
    assert [p.content for p in parts_of(result.new_messages(), ToolReturnPart)] == ['deleted a', 'deleted b']


async def test_calls_no_handler_resolves_end_the_run_as_deferred_requests():
    async def approve_a(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults | None:
        chosen: dict[str, Any] = {c.tool_call_id: True for c in requests.approvals if c.args_as_dict()['name'] == 'a'}
        return requests.build_results(approvals=chosen) if chosen else None

    def decline(ctx: RunContext[None], requests: DeferredToolRequests) -> None:
        return None

    agent = approval_agent(
        HandleDeferredToolCalls(decline), HandleDeferredToolCalls(approve_a), output_type=[str, DeferredToolRequests]
    )
    result = await agent.run('clean up')

    assert isinstance(result.output, DeferredToolRequests)
    assert [c.tool_call_id for c in result.output.approvals] == ['c2']
    assert [p.content for p in parts_of(result.all_messages(), ToolReturnPart)] == ['deleted a']


async def test_hooks_deferred_tool_calls_functions_each_see_what_the_previous_left():
    hooks = Hooks()
    seen: list[list[str]] = []

    @hooks.on.deferred_tool_calls
    def first(ctx: RunContext[None], *, requests: DeferredToolRequests) -> DeferredToolResults:
        seen.append([c.tool_call_id for c in requests.approvals])
        return requests.build_results(approvals={'c1': True})

    @hooks.on.handle_deferred_tool_calls
    def second(ctx: RunContext[None], *, requests: DeferredToolRequests) -> DeferredToolResults:
        seen.append([c.tool_call_id for c in requests.approvals])
        return requests.build_results(approvals={'c2': False})

    result = await approval_agent(hooks).run('clean up')

    assert result.output == 'deleted'
    assert seen == [['c1', 'c2'], ['c2']]
    returns = parts_of(result.new_messages(), ToolReturnPart)
    assert returns[0].content == 'deleted a'
    assert 'denied' in str(returns[1].content).lower()


async def test_calls_a_handler_leaves_unanswered_are_asked_about_once_then_end_the_run():
    asked: list[list[str]] = []

    def approve_a_only(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        asked.append([c.tool_call_id for c in requests.approvals])
        return requests.build_results(
            approvals={c.tool_call_id: True for c in requests.approvals if c.args_as_dict()['name'] == 'a'}
        )

    agent = approval_agent(HandleDeferredToolCalls(approve_a_only), output_type=[str, DeferredToolRequests])
    result = await agent.run('clean up')

    assert asked == [['c1', 'c2']]
    assert isinstance(result.output, DeferredToolRequests)
    assert [c.tool_call_id for c in result.output.approvals] == ['c2']
    assert [p.content for p in parts_of(result.all_messages(), ToolReturnPart)] == ['deleted a']


async def test_a_tool_that_defers_again_after_its_approval_ends_the_run_instead_of_being_approved_for_ever():
    asked: list[list[str]] = []

    def approve_all(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        asked.append([c.tool_call_id for c in requests.approvals])
        return requests.build_results(approve_all=True)

    agent = Agent(
        scripted(calls(ToolCallPart('publish', {}, 'p1')), text('published')),
        output_type=[str, DeferredToolRequests],
        capabilities=[HandleDeferredToolCalls(approve_all)],
    )

    @agent.tool_plain
    def publish() -> str:
        raise ApprovalRequired  # even once approved: a second sign-off is needed

    result = await agent.run('publish it')

    assert asked == [['p1']]
    assert isinstance(result.output, DeferredToolRequests)
    assert [c.tool_call_id for c in result.output.approvals] == ['p1']
