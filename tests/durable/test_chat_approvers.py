"""The chat app's answers to approvals come from the signed-in user, whom the agent's approval rules check and the
decision records name; the page reads who decided each call from `GET /api/chat/{id}/decisions`.

Over HTTP (the app through the ASGI transport), on a real dev server, with a worker in this process.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ToolReturnPart
from agent.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from agent.ui.web import create_chat_app
from doors.chat import DurableChatBackend, InMemoryPublisher, TurnEventHub, TurnSubscription, chat_workflow_id
from tests.ui._node import run_node
from tests.ui.web._agents import chat_agent
from worker import build_worker
from workflows import AgentWorkflow, ApprovalRule, DurableAgent
from workflows.client import AgentClient

from .test_durable_chat import approval_body, chunks, owner_by_header, poll, streamed_text, user_body

pytestmark = pytest.mark.asyncio(loop_scope='session')

BOUND = 60.0
"""Seconds for a turn to end on a busy machine (the ASGI transport applies no timeout of its own)."""
DELETED = 'Deleted: /tmp/report.txt is gone'


@dataclass
class Chat:
    """The chat app (each request's `X-Owner` is its user) over an agent whose `delete_file` has an approval rule."""

    client: Client
    task_queue: str
    http: httpx2.AsyncClient

    async def ask(self, chat_id: str, owner: str) -> dict[str, Any]:
        """`owner` asks to delete the report; the assistant message asking for the approval of `del1`."""
        asked = await self.post(chat_id, owner, user_body(chat_id, 'please delete the report'))
        assert {'type': 'tool-approval-request', 'approvalId': 'del1', 'toolCallId': 'del1'} in chunks(asked.text)
        return run_node('vercel_ai_check.mjs', asked.text)['message']

    async def post(self, chat_id: str, owner: str, body: dict[str, Any]) -> httpx2.Response:
        return await self.http.post('/api/chat', json=body, headers={'X-Owner': owner})

    async def decisions(self, chat_id: str, owner: str) -> dict[str, Any]:
        response = await self.http.get(f'/api/chat/{chat_id}/decisions', headers={'X-Owner': owner})
        assert response.status_code == 200, response.text
        return response.json()


def gated_agent(gate: asyncio.Event) -> Agent[None, str]:
    """Asks to delete the report (`del1`, which needs approval); the deletion waits for `gate`, then it says so."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        last = messages[-1]
        if isinstance(last, ModelRequest) and any(isinstance(part, ToolReturnPart) for part in last.parts):
            yield DELETED
            return
        yield {0: DeltaToolCall(name='delete_file', json_args='{"path": "/tmp/report.txt"}', tool_call_id='del1')}

    agent: Agent[None, str] = Agent(FunctionModel(stream_function=stream), name='assistant')

    @agent.tool_plain(requires_approval=True)
    async def delete_file(path: str) -> str:
        """Delete a file."""
        await gate.wait()
        return f'{path} is gone'

    return agent


class NotingHub(TurnEventHub):
    """Sets `subscribed` whenever a reader subscribes to a turn's events (a stream of the page starts)."""

    def __init__(self) -> None:
        super().__init__()
        self.subscribed = asyncio.Event()

    def subscribe(self, workflow_id: str) -> TurnSubscription:
        self.subscribed.set()
        return super().subscribe(workflow_id)


@asynccontextmanager
async def chat_under(
    client: Client,
    task_queue: str,
    rule: ApprovalRule,
    agent: Agent[None, str] | None = None,
    hub: TurnEventHub | None = None,
) -> AsyncIterator[Chat]:
    hub = hub or TurnEventHub()
    backend = DurableChatBackend(client, agents=['assistant'], task_queue=task_queue, hub=hub)
    durable = DurableAgent(
        agent or chat_agent(), event_stream_handler=InMemoryPublisher(hub), approval_rules={'delete_file': rule}
    )
    transport = httpx2.ASGITransport(app=create_chat_app(backend, auth=owner_by_header))
    async with (
        build_worker(client, {'assistant': durable}, task_queue=task_queue),
        httpx2.AsyncClient(transport=transport, base_url='http://127.0.0.1:8000', timeout=BOUND) as http,
    ):
        try:
            yield Chat(client, task_queue, http)
        finally:
            backend.close()


def new_id(label: str) -> str:
    return f'{label}-{uuid.uuid4().hex[:8]}'


async def answer_updates(client: Client, chat_id: str) -> int:
    """How many `resolve_deferred_tools` updates the conversation's run accepted."""
    history = await client.get_workflow_handle(chat_workflow_id(chat_id)).fetch_history()
    return sum(
        event.workflow_execution_update_accepted_event_attributes.accepted_request.input.name
        == 'resolve_deferred_tools'
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED
    )


async def test_the_signed_in_user_approves_and_denies_and_the_page_reads_who_decided(client: Client, task_queue: str):
    yes, no = new_id('approve'), new_id('deny')
    async with chat_under(client, task_queue, ApprovalRule(approvers={'alice'})) as chat:
        approved = await chat.post(yes, 'alice', approval_body(yes, await chat.ask(yes, 'alice'), approved=True))
        denied_body = approval_body(no, await chat.ask(no, 'alice'), approved=False, reason='keep it')
        denied = await chat.post(no, 'alice', denied_body)
        approved_by = await chat.decisions(yes, 'alice')
        denied_by = await chat.decisions(no, 'alice')
        stranger = await chat.http.get(f'/api/chat/{yes}/decisions', headers={'X-Owner': 'mallory'})

    assert (approved.status_code, streamed_text(approved.text)) == (200, DELETED)
    assert approved_by == {
        'decisions': [
            {'tool_call_id': 'del1', 'tool_name': 'delete_file', 'decision': 'approve', 'by': ['alice'], 'reason': None}
        ],
        'open_approvals': [],
    }
    assert (denied.status_code, streamed_text(denied.text)) == (200, 'Not deleted, because: keep it')
    assert [(d['decision'], d['by'], d['reason']) for d in denied_by['decisions']] == [('deny', ['alice'], 'keep it')]
    assert stranger.status_code == 404


async def test_a_user_the_rule_does_not_allow_is_refused_409_with_the_reason_and_nothing_is_recorded(
    client: Client, task_queue: str
):
    chat_id = new_id('refused')
    async with chat_under(client, task_queue, ApprovalRule(approvers={'bob'})) as chat:
        message = await chat.ask(chat_id, 'alice')
        refused = await chat.post(chat_id, 'alice', approval_body(chat_id, message, approved=True))
        denial = await chat.post(chat_id, 'alice', approval_body(chat_id, message, approved=False))
        shown = await chat.decisions(chat_id, 'alice')
        status = await client.get_workflow_handle(chat_workflow_id(chat_id)).query(AgentWorkflow.status)
        updates = await answer_updates(client, chat_id)
        # The inbox lists only what the user may answer: nothing here, though the conversation waits (as the
        # namespace's unfiltered inbox shows, once visibility has caught up with the run).
        agents = AgentClient(client, task_queue=task_queue)

        async def listed() -> bool | None:
            return any(run.workflow_id == chat_workflow_id(chat_id) for run in await agents.inbox()) or None

        await poll(listed)
        inbox = await chat.http.get('/api/inbox', headers={'X-Owner': 'alice'})

    assert (refused.status_code, refused.json()) == (409, {'detail': "'alice' may not approve calls of 'delete_file'."})
    assert (denial.status_code, denial.json()) == (409, {'detail': "'alice' may not approve calls of 'delete_file'."})
    assert status.state == 'awaiting_deferred_tools'
    assert status.decisions == []
    assert shown == {
        'decisions': [],
        'open_approvals': [{'tool_call_id': 'del1', 'tool_name': 'delete_file', 'required': 1, 'approved_by': []}],
    }
    assert updates == 0
    assert inbox.status_code == 200, inbox.text
    assert chat_id not in inbox.text


async def test_a_call_needing_two_approvers_shows_the_first_then_both(client: Client, task_queue: str):
    chat_id = new_id('two')
    async with chat_under(client, task_queue, ApprovalRule(approvers={'alice', 'bob'}, required_approvals=2)) as chat:
        message = await chat.ask(chat_id, 'alice')
        first = await chat.post(chat_id, 'alice', approval_body(chat_id, message, approved=True))
        halfway = await chat.decisions(chat_id, 'alice')
        again = await chat.post(chat_id, 'alice', approval_body(chat_id, message, approved=True))
        # The second approver answers from elsewhere (here, Python; the `agents approve` command alike).
        agents = AgentClient(client, task_queue=chat.task_queue)
        assert await agents.approve(chat_workflow_id(chat_id), approvals={'del1': True}, caller='bob') is None

        async def decided_now() -> dict[str, Any] | None:
            shown = await chat.decisions(chat_id, 'alice')
            return shown if shown['decisions'] else None

        decided = await poll(decided_now)  # the turn goes on in the run: nothing here to wait on

    # The page's answer counts, and the turn waits again for the approval still missing.
    assert first.status_code == 200, first.text
    assert {'type': 'tool-approval-request', 'approvalId': 'del1', 'toolCallId': 'del1'} in chunks(first.text)
    assert halfway == {
        'decisions': [],
        'open_approvals': [
            {'tool_call_id': 'del1', 'tool_name': 'delete_file', 'required': 2, 'approved_by': ['alice']}
        ],
    }
    assert (again.status_code, again.json()) == (
        409,
        {'detail': "'alice' already approved tool call 'del1'; it needs 1 more approval(s) from someone else."},
    )
    assert [(d['decision'], d['by']) for d in decided['decisions']] == [('approve', ['alice', 'bob'])]
    assert decided['open_approvals'] == []


async def test_a_turn_another_approver_continued_is_followed_by_a_page_that_reloads(client: Client, task_queue: str):
    gate, hub = asyncio.Event(), NotingHub()
    rule = ApprovalRule(approvers={'alice', 'bob'}, required_approvals=2)
    chat_id = new_id('reload')
    async with chat_under(client, task_queue, rule, gated_agent(gate), hub) as chat:
        try:
            message = await chat.ask(chat_id, 'alice')
            first = await chat.post(chat_id, 'alice', approval_body(chat_id, message, approved=True))
            agents = AgentClient(client, task_queue=chat.task_queue)
            await agents.approve(chat_workflow_id(chat_id), approvals={'del1': True}, caller='bob')
            # The page reloads while the deletion runs: this server last saw the turn stop for approvals, and
            # follows it again from its start, as a server that never saw it would.
            hub.subscribed.clear()
            resumed = asyncio.ensure_future(chat.http.get(f'/api/chat/{chat_id}/stream', headers={'X-Owner': 'alice'}))
            # The deletion ends once the stream has started (or the server has answered that there is none).
            streaming = asyncio.ensure_future(hub.subscribed.wait())
            await asyncio.wait({resumed, streaming}, timeout=BOUND, return_when=asyncio.FIRST_COMPLETED)
            streaming.cancel()
            gate.set()
            async with asyncio.timeout(BOUND):
                followed = await resumed
        finally:
            gate.set()

    assert first.status_code == 200, first.text
    assert (followed.status_code, streamed_text(followed.text)) == (200, DELETED)
