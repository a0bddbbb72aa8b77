"""`RequestInput`: deferred tool calls are answered by `ask` or through a resume token, and the same run goes on.

The agents here are written as Pydantic AI 2.x documents them, with `pydantic_ai` renamed to `agent`.
"""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta
from typing import Any

import pytest

from agent import Agent, CallDeferred, DeferredToolRequests, DeferredToolResults, RunContext, ToolDenied
from agent._durable_unit import durable_unit_scope
from agent._ports import RunPorts, use_ports
from agent.capabilities import HandleDeferredToolCalls, RequestInput
from agent.exceptions import UserError
from agent.external_events import fail_external_event, resolve_external_event, wait_for_external_event
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel
from agent.usage import RunUsage

WAIT = 5.0


def calls_then_reports(*calls: ToolCallPart) -> FunctionModel:
    """Calls the tools once, then answers with each result it got back: `name:outcome:content`."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        returns = [p for p in last.parts if isinstance(p, ToolReturnPart)]
        if not returns:
            return ModelResponse(parts=list(calls))
        return ModelResponse(parts=[TextPart('; '.join(f'{p.tool_name}:{p.outcome}:{p.content}' for p in returns))])

    return FunctionModel(respond)


def file_agent(request_input: RequestInput[None], *more: Any) -> Agent[None, str]:
    """An agent whose model deletes a file (needs approval) and charges a card (an external call)."""
    agent = Agent(
        calls_then_reports(ToolCallPart('delete_file', {'path': 'a.txt'}, 'del-1')),
        capabilities=[request_input, *more],
    )

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        return f'File {path!r} deleted'

    return agent


def charge_agent(request_input: RequestInput[None]) -> Agent[None, str]:
    agent = Agent(
        calls_then_reports(ToolCallPart('charge', {'amount': 5}, 'charge-1')),
        capabilities=[request_input],
    )

    @agent.tool_plain
    def charge(amount: int) -> str:
        raise CallDeferred()

    return agent


class Inbox:
    """An `ask` that posts the pending calls and their token somewhere (here, a list) and answers nothing."""

    def __init__(self) -> None:
        self.posted: list[tuple[DeferredToolRequests, str]] = []
        self._posted = threading.Event()

    def __call__(self, ctx: RunContext[None], requests: DeferredToolRequests, token: str) -> None:
        self.posted.append((requests, token))
        self._posted.set()

    async def next(self) -> tuple[DeferredToolRequests, str]:
        assert await asyncio.to_thread(self._posted.wait, WAIT)
        return self.posted[-1]


async def test_ask_answering_at_once_continues_the_run_with_the_approved_call() -> None:
    asked: list[tuple[list[str], str]] = []

    def ask(ctx: RunContext[None], requests: DeferredToolRequests, token: str) -> DeferredToolResults:
        asked.append(([c.tool_call_id for c in requests.approvals], requests.kind('del-1')))
        return requests.build_results(approve_all=True, answered_by={'del-1': 'policy'})

    result = await file_agent(RequestInput(ask)).run('Delete a.txt')

    assert result.output == "delete_file:success:File 'a.txt' deleted"
    assert asked == [(['del-1'], 'approval')]


async def test_an_async_ask_can_deny_with_a_message_the_model_reads() -> None:
    async def ask(ctx: RunContext[None], requests: DeferredToolRequests, token: str) -> DeferredToolResults:
        return requests.build_results({'del-1': ToolDenied('That file may not be deleted')})

    result = await file_agent(RequestInput(ask)).run('Delete a.txt')

    assert result.output == 'delete_file:denied:That file may not be deleted'


async def test_the_run_waits_until_another_task_resolves_the_token_with_the_json_answer() -> None:
    inbox = Inbox()
    run = asyncio.create_task(file_agent(RequestInput(inbox)).run('Delete a.txt'))
    requests, token = await inbox.next()
    assert [c.tool_call_id for c in requests.approvals] == ['del-1']
    assert not run.done()

    # What an approval endpoint receives and passes on, as Pydantic AI documents it.
    resolve_external_event(token, {'approvals': {'del-1': True}, 'answered_by': {'del-1': 'alice'}})

    result = await asyncio.wait_for(run, WAIT)
    assert result.output == "delete_file:success:File 'a.txt' deleted"


async def test_the_token_can_be_resolved_from_another_thread_with_deferred_tool_results() -> None:
    inbox = Inbox()
    run = asyncio.create_task(file_agent(RequestInput(inbox)).run('Delete a.txt'))
    requests, token = await inbox.next()
    answer = requests.build_results({'del-1': ToolDenied('Not today.')})

    resolver = threading.Thread(target=resolve_external_event, args=(token, answer))
    resolver.start()
    try:
        result = await asyncio.wait_for(run, WAIT)
    finally:
        resolver.join(WAIT)

    assert result.output == 'delete_file:denied:Not today.'


async def test_a_failed_token_denies_the_approval_and_tells_the_model_why() -> None:
    inbox = Inbox()
    run = asyncio.create_task(file_agent(RequestInput(inbox)).run('Delete a.txt'))
    _, token = await inbox.next()

    fail_external_event(token, 'The reviewer rejected the request form.')

    result = await asyncio.wait_for(run, WAIT)
    assert result.output == (
        'delete_file:denied:No decision on this tool call arrived: The reviewer rejected the request form.'
    )


async def test_a_timeout_fails_a_pending_external_call_with_a_message_to_the_model() -> None:
    inbox = Inbox()

    result = await charge_agent(RequestInput(inbox, timeout=timedelta(milliseconds=50))).run('Charge 5')

    assert (
        result.output
        == 'charge:failed:No decision on this tool call arrived: No resolution arrived within 0:00:00.050000.'
    )
    (_, token), *_ = inbox.posted
    with pytest.raises(UserError, match='No wait in this process has this token'):
        resolve_external_event(token, {'calls': {'charge-1': 'late'}})


async def test_the_results_say_who_answered_each_call() -> None:
    requests = DeferredToolRequests(
        approvals=[ToolCallPart('delete_file', {'path': 'a.txt'}, 'del-1')],
        calls=[ToolCallPart('charge', {'amount': 5}, 'charge-1')],
    )
    ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage())
    inbox = Inbox()
    handling = asyncio.create_task(RequestInput(inbox).handle_deferred_tool_calls(ctx, requests=requests))
    _, token = await inbox.next()

    resolve_external_event(
        token,
        {
            'approvals': {'del-1': True},
            'calls': {'charge-1': 'receipt 42'},
            'answered_by': {'del-1': 'alice', 'charge-1': 'billing-bot'},
        },
    )

    results = await asyncio.wait_for(handling, WAIT)
    assert results == DeferredToolResults(
        approvals={'del-1': True},
        calls={'charge-1': 'receipt 42'},
        answered_by={'del-1': 'alice', 'charge-1': 'billing-bot'},
    )


async def test_an_external_call_gets_its_result_through_the_token() -> None:
    inbox = Inbox()
    run = asyncio.create_task(charge_agent(RequestInput(inbox)).run('Charge 5'))
    requests, token = await inbox.next()
    assert requests.kind('charge-1') == 'external'

    resolve_external_event(token, {'calls': {'charge-1': 'receipt 42'}})

    assert (await asyncio.wait_for(run, WAIT)).output == 'charge:success:receipt 42'


async def test_resolving_the_token_twice_raises_user_error() -> None:
    inbox = Inbox()
    run = asyncio.create_task(file_agent(RequestInput(inbox)).run('Delete a.txt'))
    _, token = await inbox.next()
    resolve_external_event(token, {'approvals': {'del-1': True}})

    with pytest.raises(UserError, match='No wait in this process has this token'):
        resolve_external_event(token, {'approvals': {'del-1': False}})
    assert (await asyncio.wait_for(run, WAIT)).output == "delete_file:success:File 'a.txt' deleted"


@pytest.mark.parametrize(
    ('answer', 'error'),
    [
        ({'approvals': {'del-1': 'maybe'}}, 'approvals'),
        ('approve everything', 'DeferredToolResults'),
        ({'approvals': {'del-9': True}}, "'del-9'"),
        ({'approvals': {'del-1': True}, 'answered_by': {'del-9': 'mallory'}}, r"answered_by.*\['del-9'\]"),
    ],
)
async def test_an_invalid_answer_is_refused_when_it_is_sent_and_the_wait_goes_on(answer: Any, error: str) -> None:
    inbox = Inbox()
    run = asyncio.create_task(file_agent(RequestInput(inbox)).run('Delete a.txt'))
    _, token = await inbox.next()

    with pytest.raises(UserError, match=f'The payload does not fit the wait: .*{error}') as refused:
        resolve_external_event(token, answer)
    assert '\n' not in str(refused.value)

    resolve_external_event(token, {'approvals': {'del-1': True}})
    assert (await asyncio.wait_for(run, WAIT)).output == "delete_file:success:File 'a.txt' deleted"


async def test_an_invalid_answer_from_ask_fails_the_run_with_user_error() -> None:
    def ask(ctx: RunContext[None], requests: DeferredToolRequests, token: str) -> Any:
        return {'approvals': {'del-9': True}}

    invalid = r"(?s)The answer sent for the pending deferred tool calls is not valid: .*'del-9'"
    with pytest.raises(UserError, match=invalid):
        await file_agent(RequestInput(ask)).run('Delete a.txt')


async def test_a_resolver_that_names_itself_is_credited_for_the_calls_its_answer_names_no_one_for() -> None:
    requests = DeferredToolRequests(
        approvals=[ToolCallPart('delete_file', {'path': 'a.txt'}, 'del-1')],
        calls=[ToolCallPart('charge', {'amount': 5}, 'charge-1')],
    )
    ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage())
    inbox = Inbox()
    handling = asyncio.create_task(RequestInput(inbox).handle_deferred_tool_calls(ctx, requests=requests))
    _, token = await inbox.next()

    answer = {'approvals': {'del-1': True}, 'calls': {'charge-1': 'receipt 42'}, 'answered_by': {'charge-1': 'bot'}}
    resolve_external_event(token, answer, caller='alice')

    results = await asyncio.wait_for(handling, WAIT)
    assert results.answered_by == {'del-1': 'alice', 'charge-1': 'bot'}


async def test_handlers_that_answer_without_waiting_are_asked_first_whatever_the_order() -> None:
    inbox = Inbox()

    def approve(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return requests.build_results(approve_all=True)

    result = await file_agent(RequestInput(inbox), HandleDeferredToolCalls(approve)).run('Delete a.txt')

    assert result.output == "delete_file:success:File 'a.txt' deleted"
    assert inbox.posted == []
    assert RequestInput(inbox).get_ordering().position == 'innermost'


async def test_a_wait_inside_ask_is_refused() -> None:
    async def ask(ctx: RunContext[None], requests: DeferredToolRequests, token: str) -> None:
        await wait_for_external_event('nested', ask=lambda inner: None)

    with pytest.raises(UserError, match='called inside a durable unit'):
        await file_agent(RequestInput(ask)).run('Delete a.txt')


async def test_a_tool_that_waits_inside_a_durable_unit_is_told_to_use_request_input() -> None:
    agent = Agent(calls_then_reports(ToolCallPart('review', {}, 'rev-1')))

    @agent.tool_plain
    async def review() -> Any:
        # As a tool runs in a durable engine's activity.
        with durable_unit_scope():
            return await wait_for_external_event('review', ask=lambda token: None)

    with pytest.raises(UserError, match='`RequestInput`'):
        await agent.run('Review')


async def test_a_run_bound_elsewhere_refuses_the_wait_until_its_engine_installs_a_waiter() -> None:
    inbox = Inbox()

    with use_ports(RunPorts()), pytest.raises(UserError, match='not available in a durable run yet'):
        await file_agent(RequestInput(inbox)).run('Delete a.txt')
    assert inbox.posted == []


def test_a_timeout_that_is_not_positive_is_refused_at_construction() -> None:
    with pytest.raises(UserError, match='`timeout` must be positive'):
        RequestInput(Inbox(), timeout=timedelta(0))


def test_request_input_is_not_named_in_agent_specs() -> None:
    assert RequestInput.get_serialization_name() is None
    assert RequestInput(Inbox()).name == 'deferred_tool_calls'
