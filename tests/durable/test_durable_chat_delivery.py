"""The durable chat backend delivers a turn whatever the live events do: AG-UI, no publisher, rejections, resumes."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

import httpx2
import pytest
from temporalio.client import Client

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ToolReturnPart
from agent.models.function import (
    AgentInfo,
    DeltaThinkingCalls,
    DeltaThinkingPart,
    DeltaToolCall,
    DeltaToolCalls,
    FunctionModel,
)
from agent.ui.web import create_chat_app
from doors.chat import DurableChatBackend, TurnEventHub, chat_workflow_id
from tests.durable.test_durable_chat import (
    ALICE,
    approval_body,
    durable_chat,
    first_word,
    owner_by_header,
    shown,
    streamed_text,
    user_body,
)
from tests.ui._ag_ui import client_check
from tests.ui._node import run_node
from tests.ui.web._agents import chat_agent
from worker import build_worker
from workflows import DurableAgent

pytestmark = pytest.mark.asyncio(loop_scope='session')


def approving_agent(gate: asyncio.Event) -> Agent[None, str]:
    """Thinks and asks to delete a file (needs approval); once it ran, streams `Deleted` and, after `gate`, ` it.`."""

    async def stream(
        messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls | DeltaThinkingCalls]:
        last = messages[-1]
        if isinstance(last, ModelRequest) and any(isinstance(p, ToolReturnPart) for p in last.parts):
            yield 'Deleted'
            await gate.wait()
            yield ' it.'
            return
        yield {0: DeltaThinkingPart(content='A deletion.')}
        yield {1: DeltaToolCall(name='delete_file', json_args='{"path": "/tmp/a"}', tool_call_id='del1')}

    agent: Agent[None, str] = Agent(FunctionModel(stream_function=stream), name='assistant')

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        """Delete a file."""
        return 'gone'

    return agent


async def drop(ctx: Any, events: AsyncIterable[Any]) -> None:
    """A worker's event handler that sends its events nowhere: the chat server never hears of them."""
    async for _ in events:
        pass


def ag_ui_body(thread_id: str, messages: list[dict[str, Any]], resume: list[dict[str, Any]] | None = None) -> str:
    body: dict[str, Any] = {'threadId': thread_id, 'runId': uuid.uuid4().hex, 'messages': messages}
    body |= {'state': {}, 'tools': [], 'context': [], 'forwardedProps': {}}
    if resume is not None:
        body['resume'] = resume
    return json.dumps(body)


async def test_an_ag_ui_run_and_its_approval_resume_drive_the_durable_conversation(client: Client, task_queue: str):
    async with durable_chat(client, task_queue, chat_agent()) as chat:
        headers = {**ALICE, 'content-type': 'application/json'}
        prompt = {'id': 'u1', 'role': 'user', 'content': 'delete the report'}
        asked = await chat.http.post('/api/ag-ui', content=ag_ui_body(chat.chat_id, [prompt]), headers=headers)
        checked = client_check(asked.text)
        resume = [{'interruptId': 'approval:del1', 'status': 'resolved', 'payload': {'approved': True}}]
        held = [prompt, *checked['agent']['messages'][1:]]
        answered = await chat.http.post('/api/ag-ui', content=ag_ui_body(chat.chat_id, held, resume), headers=headers)

    assert checked['error'] is None
    assert [i['id'] for i in checked['agent']['outcome']['interrupts']] == ['approval:del1']
    continued = client_check(answered.text)
    assert continued['error'] is None
    assert continued['agent']['messages'][-1]['content'] == 'Deleted: /tmp/report.txt is gone'


async def test_the_answer_streams_even_when_the_worker_publishes_no_events(client: Client, task_queue: str):
    hub = TurnEventHub()
    backend = DurableChatBackend(client, agents=['assistant'], task_queue=task_queue, hub=hub)
    app = create_chat_app(backend, auth=owner_by_header)
    chat_id = f'c-{uuid.uuid4().hex[:12]}'
    quiet = DurableAgent(chat_agent(), event_stream_handler=drop)
    async with (
        build_worker(client, {'assistant': quiet}, task_queue=task_queue),
        httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url='http://127.0.0.1:8000') as http,
    ):
        answered = await http.post('/api/chat', json=user_body(chat_id, 'hello there'), headers=ALICE)
        asked = await http.post('/api/chat', json=user_body(f'{chat_id}-2', 'delete it'), headers=ALICE)
        backend.close()

    assert hub.buffered(chat_workflow_id(chat_id)) == []
    checked = run_node('vercel_ai_check.mjs', answered.text)
    assert checked['invalid'] == []
    assert [(p['type'], p.get('text')) for p in checked['message']['parts'] if p['type'] in ('text', 'reasoning')] == [
        ('reasoning', 'The user wrote something.'),
        ('text', 'You said: hello there'),
    ]
    waiting = run_node('vercel_ai_check.mjs', asked.text)
    assert waiting['invalid'] == []
    assert [p['state'] for p in waiting['message']['parts'] if p['type'] == 'tool-delete_file'] == [
        'approval-requested'
    ]


async def test_a_message_the_workflow_turns_away_is_refused_before_it_streams(
    client: Client, task_queue: str, monkeypatch: pytest.MonkeyPatch
):
    gate = asyncio.Event()
    async with durable_chat(client, task_queue, chat_agent(gate=gate)) as chat:
        reader = chat.hub.subscribe(chat_workflow_id(chat.chat_id))
        running = asyncio.create_task(chat.http.post('/api/chat', json=user_body(chat.chat_id, 'slow'), headers=ALICE))
        await first_word(reader)
        await client.get_workflow_handle(chat_workflow_id(chat.chat_id)).signal('close_conversation')

        async def found_nothing(workflow_id: str, owner: str) -> Any:
            return None  # as when the conversation's start raced this request: only the workflow can refuse it

        monkeypatch.setattr(chat.backend, '_describe', found_nothing)
        refused = await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'one more'), headers=ALICE)
        monkeypatch.undo()
        gate.set()
        await running

    assert refused.status_code == 409
    assert refused.json() == {'detail': 'The conversation is closing and takes no more messages.'}


async def test_a_resume_during_an_approved_continuation_shows_the_whole_message_once(client: Client, task_queue: str):
    gate = asyncio.Event()
    async with durable_chat(client, task_queue, approving_agent(gate)) as chat:
        asked = await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'delete a'), headers=ALICE)
        message = run_node('vercel_ai_check.mjs', asked.text)['message']
        reader = chat.hub.subscribe(chat_workflow_id(chat.chat_id))
        answered = asyncio.create_task(
            chat.http.post('/api/chat', json=approval_body(chat.chat_id, message, approved=True), headers=ALICE)
        )
        await first_word(reader, 'Deleted')
        # The page reloads: the history, then the running turn's stream.
        during = (await chat.http.get(f'/api/chat/{chat.chat_id}/messages', headers=ALICE)).json()
        resumed = asyncio.create_task(chat.http.get(f'/api/chat/{chat.chat_id}/stream', headers=ALICE))
        gate.set()
        await answered
        replay = await resumed

    assert shown(during) == [('user', ['delete a'])]
    rebuilt = run_node('vercel_ai_check.mjs', replay.text)
    assert rebuilt['invalid'] == []
    parts = [(p['type'], p.get('text')) for p in rebuilt['message']['parts'] if p['type'] != 'step-start']
    assert parts == [('reasoning', 'A deletion.'), ('tool-delete_file', None), ('text', 'Deleted it.')]
    assert streamed_text(replay.text) == 'Deleted it.'


async def test_a_chat_conversation_is_labelled_by_its_first_message_in_the_web_ui(client: Client, task_queue: str):
    async with durable_chat(client, task_queue, chat_agent()) as chat:
        await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'hello there'), headers=ALICE)
        description = await client.get_workflow_handle(chat_workflow_id(chat.chat_id)).describe()

    assert await description.static_summary() == 'assistant: hello there'
    details = await description.static_details()
    assert details is not None
    assert f'- Conversation: {chat.chat_id}' in details
