"""The chat app over durable conversations: turns, approvals, ownership, resume and history on a real dev server."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, PartStartEvent, TextPart, ToolReturnPart
from agent.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from agent.ui.web import create_chat_app
from agent.ui.web._auth import unauthorized
from doors.chat import DurableChatBackend, TurnEvent, TurnEventHub, TurnEventPublisher, chat_workflow_id
from tests.ui._node import run_node
from tests.ui.web._agents import chat_agent
from worker import build_worker
from workflows import DeferredNotice, DurableAgent
from workflows._types import NOT_OWNER, AgentRunOutput, ConversationMessage

pytestmark = pytest.mark.asyncio(loop_scope='session')

BOUND = 10.0
TURN_BOUND = 60.0
"""Seconds for a streamed turn to end on a busy machine (the ASGI transport applies no timeout of its own)."""
ALICE = {'X-Owner': 'alice'}


def owner_by_header(request: Any) -> str:
    """Every `X-Owner` is a different caller."""
    owner = request.headers.get('x-owner')
    if not owner:
        raise unauthorized()
    return owner


class CurrentHubPublisher(TurnEventPublisher):
    """Publishes to whichever hub is current: a restarted chat server has a new one."""

    def __init__(self, hub: TurnEventHub) -> None:
        self.hub = hub

    def _send(self, record: TurnEvent) -> None:
        self.hub.ingest(record)


@dataclass
class Chat:
    """A chat app over a durable backend, with a worker on the same hub, and a fresh conversation id."""

    client: Client
    task_queue: str
    hub: TurnEventHub
    publisher: CurrentHubPublisher
    backend: DurableChatBackend
    http: httpx2.AsyncClient
    chat_id: str

    def restarted(self) -> DurableChatBackend:
        """A backend as a restarted chat server has it: nothing in memory, a new hub the worker publishes to."""
        self.hub = self.publisher.hub = TurnEventHub()
        return DurableChatBackend(self.client, agents=['assistant'], task_queue=self.task_queue, hub=self.hub)


@asynccontextmanager
async def durable_chat(
    client: Client, task_queue: str, agent: Agent[None, str], notifier: Any = None, gate: asyncio.Event | None = None
) -> AsyncIterator[Chat]:
    """A `Chat` over `agent`; its `gate` (which holds the agent's turns) is opened on the way out, whatever happened,
    so that a test failing mid-turn fails at once instead of leaving the worker to wait for the held turn."""
    hub = TurnEventHub()
    backend = DurableChatBackend(client, agents=['assistant'], task_queue=task_queue, hub=hub)
    publisher = CurrentHubPublisher(hub)
    durable = DurableAgent(agent, event_stream_handler=publisher, notifier=notifier)
    app = create_chat_app(backend, auth=owner_by_header)
    transport = httpx2.ASGITransport(app=app)
    async with (
        build_worker(client, {'assistant': durable}, task_queue=task_queue),
        httpx2.AsyncClient(transport=transport, base_url='http://127.0.0.1:8000', timeout=BOUND) as http,
    ):
        try:
            yield Chat(client, task_queue, hub, publisher, backend, http, f'c-{uuid.uuid4().hex[:12]}')
        finally:
            if gate is not None:
                gate.set()
            backend.close()


def user_body(chat_id: str, text: str) -> dict[str, Any]:
    message = {'id': f'u-{uuid.uuid4().hex[:8]}', 'role': 'user', 'parts': [{'type': 'text', 'text': text}]}
    return {'id': chat_id, 'trigger': 'submit-message', 'messages': [message]}


def approval_body(
    chat_id: str, message: dict[str, Any], *, approved: bool, reason: str | None = None
) -> dict[str, Any]:
    """The assistant message the page got, with its approval answered."""
    answered = json.loads(json.dumps(message))
    for part in answered['parts']:
        if part.get('state') == 'approval-requested':
            part['state'] = 'approval-responded'
            part['approval'] = {'id': part['approval']['id'], 'approved': approved}
            if reason:
                part['approval']['reason'] = reason
    return {'id': chat_id, 'trigger': 'submit-message', 'messages': [answered]}


def chunks(body: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in body.splitlines() if line.startswith('data: {')]


def streamed_text(body: str) -> str:
    return ''.join(c['delta'] for c in chunks(body) if c['type'] == 'text-delta')


def shown(messages: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """Each UI message's role and parts: a part's text, or its type."""
    return [
        (m['role'], [p.get('text') or p['type'] for p in m['parts'] if p['type'] != 'step-start']) for m in messages
    ]


async def poll(condition: Callable[[], Awaitable[Any]]) -> Any:
    """Ask `condition` until it answers something truthy (bounded: visibility cannot be awaited as an event)."""
    for _ in range(200):
        if answer := await condition():
            return answer
        await asyncio.sleep(0.05)
    raise AssertionError('the condition never held')


async def first_word(reader: AsyncIterator[Any], starting: str = '') -> None:
    """Wait until the turn `reader` follows has streamed the start of a text (one that starts with `starting`)."""
    async with asyncio.timeout(BOUND):
        async for event in reader:
            part = event.part if isinstance(event, PartStartEvent) else None
            if isinstance(part, TextPart) and part.content.startswith(starting):
                return


def looking_agent(gate: asyncio.Event) -> Agent[None, str]:
    """Says it will look, looks (a tool that needs no approval), then streams `Found it.`, waiting for `gate`."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        last = messages[-1]
        if isinstance(last, ModelRequest) and any(isinstance(p, ToolReturnPart) for p in last.parts):
            yield 'Found'
            await gate.wait()
            yield ' it.'
            return
        yield 'Let me look.'
        yield {1: DeltaToolCall(name='look', json_args='{}', tool_call_id='look1')}

    agent: Agent[None, str] = Agent(FunctionModel(stream_function=stream), name='assistant')

    @agent.tool_plain
    def look() -> str:
        """Look it up."""
        return 'it is here'

    return agent


async def test_a_message_streams_text_the_ai_sdk_client_accepts(client: Client, task_queue: str):
    async with durable_chat(client, task_queue, chat_agent()) as chat:
        response = await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'hello there'), headers=ALICE)
        second = await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'and again'), headers=ALICE)

    assert response.status_code == 200
    assert streamed_text(response.text) == 'You said: hello there'
    checked = run_node('vercel_ai_check.mjs', response.text)
    assert checked['done']
    assert checked['invalid'] == []
    assert [part['type'] for part in checked['message']['parts']][-1] == 'text'
    assert streamed_text(second.text) == 'You said: and again'


async def test_an_approval_waits_in_the_inbox_and_its_answer_continues_the_same_run(client: Client, task_queue: str):
    async with durable_chat(client, task_queue, chat_agent()) as chat:
        body = user_body(chat.chat_id, 'please delete the report')
        asked = await chat.http.post('/api/chat', json=body, headers=ALICE)
        message = run_node('vercel_ai_check.mjs', asked.text)['message']
        run_id = (await client.get_workflow_handle(chat_workflow_id(chat.chat_id)).describe()).run_id

        async def listed() -> list[dict[str, Any]]:
            return (await chat.http.get('/api/inbox', headers=ALICE)).json()

        inbox = await poll(listed)
        too_early = await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'anything else?'), headers=ALICE)
        answered = await chat.http.post(
            '/api/chat', json=approval_body(chat.chat_id, message, approved=True), headers=ALICE
        )
        after = await client.get_workflow_handle(chat_workflow_id(chat.chat_id)).describe()

    assert {'type': 'tool-approval-request', 'approvalId': 'del1', 'toolCallId': 'del1'} in chunks(asked.text)
    assert [(w['conversation_id'], w['title'], w['approvals']) for w in inbox] == [
        (
            chat.chat_id,
            'please delete the report',
            [{'tool_call_id': 'del1', 'tool_name': 'delete_file', 'args': {'path': '/tmp/report.txt'}}],
        )
    ]
    assert too_early.status_code == 409
    continued = run_node('vercel_ai_check.mjs', json.dumps({'message': message, 'body': answered.text}), 'continue')
    assert continued['invalid'] == []
    assert continued['errors'] == []
    assert streamed_text(answered.text) == 'Deleted: /tmp/report.txt is gone'
    assert after.run_id == run_id, 'the answer continues the run that asked'


async def test_a_denial_reason_reaches_the_model(client: Client, task_queue: str):
    async with durable_chat(client, task_queue, chat_agent()) as chat:
        asked = await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'delete it'), headers=ALICE)
        message = run_node('vercel_ai_check.mjs', asked.text)['message']
        denied = await chat.http.post(
            '/api/chat', json=approval_body(chat.chat_id, message, approved=False, reason='keep it'), headers=ALICE
        )

    assert {'type': 'tool-output-denied', 'toolCallId': 'del1'} in chunks(denied.text)
    assert streamed_text(denied.text) == 'Not deleted, because: keep it'


async def test_another_owner_reaches_none_of_a_conversation(client: Client, task_queue: str):
    async with durable_chat(client, task_queue, chat_agent()) as chat:
        bob = {'X-Owner': 'bob'}
        started = await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'delete it'), headers=ALICE)
        answers = [
            await chat.http.get(f'/api/chat/{chat.chat_id}/messages', headers=bob),
            await chat.http.get(f'/api/chat/{chat.chat_id}/stream', headers=bob),
            await chat.http.post(f'/api/chat/{chat.chat_id}/stop', headers=bob),
            await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'hi'), headers=bob),
            await chat.http.get('/api/chat/nope-not-a-chat/messages', headers=ALICE),
        ]
        bob_inbox = (await chat.http.get('/api/inbox', headers=bob)).json()

    assert started.status_code == 200
    assert [a.status_code for a in answers] == [404] * 5
    assert answers[0].json() == {'detail': f'Conversation {chat.chat_id!r} not found.'}
    assert bob_inbox == []


async def test_resume_while_a_turn_runs_replays_it_from_its_start(client: Client, task_queue: str):
    gate = asyncio.Event()
    async with durable_chat(client, task_queue, chat_agent(gate=gate), gate=gate) as chat:
        reader = chat.hub.subscribe(chat_workflow_id(chat.chat_id))
        started = asyncio.create_task(
            chat.http.post('/api/chat', json=user_body(chat.chat_id, 'slow words'), headers=ALICE)
        )

        await first_word(reader)
        during = (await chat.http.get(f'/api/chat/{chat.chat_id}/messages', headers=ALICE)).json()
        resumed = asyncio.create_task(chat.http.get(f'/api/chat/{chat.chat_id}/stream', headers=ALICE))
        gate.set()
        first, again = await asyncio.wait_for(asyncio.gather(started, resumed), TURN_BOUND)
        after = await chat.http.get(f'/api/chat/{chat.chat_id}/stream', headers=ALICE)

    assert [m['role'] for m in during] == ['user']
    assert streamed_text(first.text) == 'You said: slow words'
    assert again.status_code == 200
    assert streamed_text(again.text) == 'You said: slow words'
    # Just after the end, the hub still keeps the ended turn: a page reconnecting now rebuilds the same message.
    assert after.status_code == 200
    assert streamed_text(after.text) == 'You said: slow words'


async def test_the_history_survives_a_chat_server_restart(client: Client, task_queue: str):
    async with durable_chat(client, task_queue, chat_agent()) as chat:
        await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'first'), headers=ALICE)
        asked = await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'delete the report'), headers=ALICE)
        message = run_node('vercel_ai_check.mjs', asked.text)['message']
        restarted = chat.restarted()
        waiting = await restarted.history(chat.chat_id, 'alice')
        app = create_chat_app(restarted, auth=owner_by_header)
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url='http://127.0.0.1:8000') as http:
            answered = await http.post(
                '/api/chat', json=approval_body(chat.chat_id, message, approved=True), headers=ALICE
            )
            messages = (await http.get(f'/api/chat/{chat.chat_id}/messages', headers=ALICE)).json()
        restarted.close()

    assert waiting[-1].kind == 'response'
    assert streamed_text(answered.text) == 'Deleted: /tmp/report.txt is gone'
    assert shown(messages) == [
        ('user', ['first']),
        ('assistant', ['The user wrote something.', 'You said: first']),
        ('user', ['delete the report']),
        ('assistant', ['The user wrote something.', 'tool-delete_file', 'Deleted: /tmp/report.txt is gone']),
    ]


async def test_stop_cancels_the_running_turn(client: Client, task_queue: str):
    gate = asyncio.Event()
    async with durable_chat(client, task_queue, chat_agent(gate=gate), gate=gate) as chat:
        reader = chat.hub.subscribe(chat_workflow_id(chat.chat_id))
        started = asyncio.create_task(
            chat.http.post('/api/chat', json=user_body(chat.chat_id, 'never finished'), headers=ALICE)
        )

        await first_word(reader)
        stopped = await chat.http.post(f'/api/chat/{chat.chat_id}/stop', headers=ALICE)
        cut = await asyncio.wait_for(started, TURN_BOUND)
        after = await chat.http.get(f'/api/chat/{chat.chat_id}/stream', headers=ALICE)
        gate.set()

    assert stopped.json() == {'stopped': True}
    assert streamed_text(cut.text).startswith('You')
    assert after.status_code == 204


async def test_the_history_of_a_cancelled_turn_shows_the_steps_it_completed(client: Client, task_queue: str):
    gate = asyncio.Event()
    async with durable_chat(client, task_queue, looking_agent(gate), gate=gate) as chat:
        reader = chat.hub.subscribe(chat_workflow_id(chat.chat_id))
        started = asyncio.create_task(
            chat.http.post('/api/chat', json=user_body(chat.chat_id, 'where is it?'), headers=ALICE)
        )

        await first_word(reader, 'Found')
        stopped = await chat.http.post(f'/api/chat/{chat.chat_id}/stop', headers=ALICE)
        await asyncio.wait_for(started, TURN_BOUND)
        messages = (await chat.http.get(f'/api/chat/{chat.chat_id}/messages', headers=ALICE)).json()
        gate.set()

    assert stopped.json() == {'stopped': True}
    # The answer that was streaming when the turn stopped is gone; the step before it stays.
    assert shown(messages) == [('user', ['where is it?']), ('assistant', ['Let me look.', 'tool-look'])]
    assert messages[1]['parts'][-1]['output'] == 'it is here'


async def test_the_history_of_a_turn_waiting_for_approval_shows_what_the_model_said(client: Client, task_queue: str):
    async with durable_chat(client, task_queue, chat_agent()) as chat:
        await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'delete the report'), headers=ALICE)
        messages = (await chat.http.get(f'/api/chat/{chat.chat_id}/messages', headers=ALICE)).json()

    assert shown(messages) == [
        ('user', ['delete the report']),
        ('assistant', ['The user wrote something.', 'tool-delete_file']),
    ]
    assert messages[1]['parts'][-1]['state'] == 'approval-requested'


async def test_the_stream_ends_as_soon_as_the_turn_waits_for_approval(client: Client, task_queue: str):
    waits: list[float] = []

    async def notice(_: DeferredNotice) -> None:
        waits.append(time.monotonic())  # told in the workflow task that begins the wait (as an activity)

    async with durable_chat(client, task_queue, chat_agent(), notifier=notice) as chat:
        asked = await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'delete it'), headers=ALICE)
        ended = time.monotonic()

    assert {'type': 'tool-approval-request', 'approvalId': 'del1', 'toolCallId': 'del1'} in chunks(asked.text)
    [began] = waits
    # Well within a poll interval: the workflow's `wait_for_turn` update answers the moment the wait begins.
    assert ended - began < 0.1


async def test_another_owner_starting_the_same_conversation_is_turned_away_by_the_workflow(
    client: Client, task_queue: str, monkeypatch: pytest.MonkeyPatch
):
    async with durable_chat(client, task_queue, chat_agent()) as chat:
        await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'hello'), headers=ALICE)
        handle = client.get_workflow_handle(chat_workflow_id(chat.chat_id))
        with pytest.raises(WorkflowUpdateFailedError) as direct:
            await handle.execute_update(
                'send_message', ConversationMessage('mine now', owner='bob'), result_type=AgentRunOutput
            )
        # Two owners starting one new id at once both find no conversation before they send: bob's check passes.
        describe = chat.backend._describe
        checks = iter([None])

        async def found_nothing_first(workflow_id: str, owner: str) -> Any:
            return next(checks, None) or await describe(workflow_id, owner)

        monkeypatch.setattr(chat.backend, '_describe', found_nothing_first)
        raced = await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'mine now'), headers={'X-Owner': 'bob'})
        monkeypatch.undo()
        messages = (await chat.http.get(f'/api/chat/{chat.chat_id}/messages', headers=ALICE)).json()

    cause = direct.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == NOT_OWNER
    assert raced.status_code == 404
    assert shown(messages) == [('user', ['hello']), ('assistant', ['The user wrote something.', 'You said: hello'])]
