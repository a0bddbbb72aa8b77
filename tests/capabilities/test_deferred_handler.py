"""`HandleDeferredToolCalls` and the `handle_deferred_tool_calls` hook: deferred calls answered within the run."""

from __future__ import annotations

from typing import Any

from agent import Agent, DeferredToolRequests, DeferredToolResults, RunContext
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
