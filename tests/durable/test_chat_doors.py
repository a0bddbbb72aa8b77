"""Every door of the durable chat app answers in bounded time with a specific status, on a real dev server.

No worker: a request to a task queue nobody ever polled is answered 503 after the backend's `worker_timeout`, before
anything is sent; one whose worker went away is answered 503 after its call waits as long, saying whether the server
holds what was sent. A body that is not UTF-8, a conversation id too long for a workflow id and an empty message
are 400 before Temporal is asked anything.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import httpx2
import pytest
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from agent.ui.web import InProcessChatBackend, create_chat_app
from doors.chat import MAX_WORKFLOW_ID_BYTES, DurableChatBackend, InMemoryPublisher, TurnEventHub, chat_workflow_id
from tests.ui.web._agents import chat_agent
from worker import build_worker
from workflows import DurableAgent
from workflows._agent_workflow import AgentWorkflow
from workflows._encryption import with_encryption
from workflows._types import AgentRunInput

pytestmark = pytest.mark.asyncio(loop_scope='session')

AT_ONCE = 5.0
"""Seconds an answer that waits for nothing may take (a few RPCs on a busy machine)."""
WORKER_TIMEOUT = 0.2
"""The backend's wait for a worker of a task queue no worker ever polled: none can come, so it only sets how soon the
503 comes (a first look at the task queue that takes longer on a busy machine ends the same way)."""
WENT_AWAY_TIMEOUT = 1.0
"""The backend's wait for a worker of a task queue whose worker went away. The server still lists that worker, so the
backend sends the call and gives up after this long: the server must have taken an update by then, on a busy machine,
for the 503 to say it holds it."""
PATIENT = 60.0
"""The backend's wait for a worker where one runs: a busy machine may take a while to start its first run."""
BOUND = WENT_AWAY_TIMEOUT + AT_ONCE
"""Seconds a request that waits for a worker once may take without one."""
ECHO = chat_agent()
"""The agent of every worker here: one agent, as a worker restarted on the same task queue registers it again."""


@asynccontextmanager
async def chat_app(
    client: Client, task_queue: str, *, worker_timeout: float = WORKER_TIMEOUT
) -> AsyncIterator[httpx2.AsyncClient]:
    """The chat app over conversations on `task_queue` (every caller is the owner `local`); no worker of its own."""
    backend = DurableChatBackend(
        client, agents=['assistant'], task_queue=task_queue, hub=TurnEventHub(), worker_timeout=worker_timeout
    )
    transport = httpx2.ASGITransport(app=create_chat_app(backend))
    try:
        async with httpx2.AsyncClient(transport=transport, base_url='http://127.0.0.1:8000') as http:
            yield http
    finally:
        backend.close()


def serving(client: Client, task_queue: str) -> AbstractAsyncContextManager[Any]:
    """A worker of `task_queue` running the echoing `assistant` (its live events go to a hub nobody reads)."""
    agent = DurableAgent(ECHO, event_stream_handler=InMemoryPublisher(TurnEventHub()))
    return build_worker(client, {'assistant': agent}, task_queue=task_queue)


def user_body(chat_id: str, text: str) -> dict[str, Any]:
    message = {'id': f'u-{uuid.uuid4().hex[:8]}', 'role': 'user', 'parts': [{'type': 'text', 'text': text}]}
    return {'id': chat_id, 'trigger': 'submit-message', 'messages': [message]}


def ag_ui_body(thread_id: str, text: str) -> dict[str, Any]:
    return {
        'threadId': thread_id,
        'runId': f'run-{uuid.uuid4().hex[:8]}',
        'messages': [{'id': 'u1', 'role': 'user', 'content': text}],
        'state': {},
        'tools': [],
        'context': [],
        'forwardedProps': {},
    }


def new_id() -> str:
    return f'c-{uuid.uuid4().hex[:12]}'


async def within(seconds: float, request: Any) -> httpx2.Response:
    """The response, which must come within `seconds`."""
    async with asyncio.timeout(seconds):
        return await request


def refused(response: httpx2.Response, task_queue: str, *, admitted: bool) -> str:
    """The 503's detail, checked: it names the task queue and how to serve it, and says whether it was admitted."""
    assert response.status_code == 503, response.text
    body = response.json()
    assert set(body) == {'detail', 'admitted'}
    assert body['admitted'] is admitted
    assert repr(task_queue) in body['detail']
    assert f'`agents worker --agents module:agent --task-queue {task_queue}`' in body['detail']
    return body['detail']


async def absent(client: Client, chat_id: str) -> bool:
    """No workflow was started for the conversation."""
    try:
        await client.get_workflow_handle(chat_workflow_id(chat_id)).describe()
    except RPCError as exc:
        return exc.status == RPCStatusCode.NOT_FOUND
    return False


async def unserved_conversation(client: Client, task_queue: str) -> str:
    """A conversation of `local` whose workflow waits on `task_queue`, which no worker ever polled."""
    chat_id = new_id()
    await with_encryption(client).start_workflow(
        AgentWorkflow.run,
        AgentRunInput(agent='assistant', conversation=True, conversation_id=chat_id, owner='local'),
        id=chat_workflow_id(chat_id),
        task_queue=task_queue,
        memo={'agent': 'assistant', 'owner': 'local', 'title': 'hello'},
    )
    return chat_id


async def abandoned_conversation(client: Client, task_queue: str) -> str:
    """A conversation with one answered turn, whose worker has stopped since (the server still lists its poller).

    Its turn goes through an app that waits for the worker as long as it takes, not `WORKER_TIMEOUT`: a busy machine
    may take longer than that to start a worker's first run.
    """
    chat_id = new_id()
    async with chat_app(client, task_queue, worker_timeout=PATIENT) as http, serving(client, task_queue):
        answered = await http.post('/api/chat', json=user_body(chat_id, 'hello'))
    assert 'You said: hello' in ''.join(
        json.loads(line[6:]).get('delta', '') for line in answered.text.splitlines() if line.startswith('data: {')
    )
    return chat_id


async def answered(http: httpx2.AsyncClient, chat_id: str) -> list[dict[str, Any]]:
    """The conversation's history once its first turn is answered (polled, bounded: no event tells it here)."""
    history: list[dict[str, Any]] = []
    for _ in range(600):
        history = (await http.get(f'/api/chat/{chat_id}/messages')).json()
        if len(history) == 2:
            return history
        await asyncio.sleep(0.1)
    raise AssertionError(f'the message was not answered: {history}')


# No worker ever polled the task queue: refused after waiting for one, before anything is sent.


async def test_a_new_conversation_without_a_worker_is_refused_and_nothing_is_started(client: Client, task_queue: str):
    chat_id = new_id()
    async with chat_app(client, task_queue) as http:
        response = await within(BOUND, http.post('/api/chat', json=user_body(chat_id, 'hello')))

    detail = refused(response, task_queue, admitted=False)
    assert detail.startswith(f'No worker is serving task queue {task_queue!r}, so the message was not sent.')
    assert await absent(client, chat_id)


async def test_a_follow_up_message_without_a_worker_is_refused_and_nothing_is_sent(client: Client, task_queue: str):
    chat_id = await unserved_conversation(client, task_queue)
    async with chat_app(client, task_queue) as http:
        response = await within(BOUND, http.post('/api/chat', json=user_body(chat_id, 'are you there?')))

    assert 'so the message was not sent' in refused(response, task_queue, admitted=False)


async def test_the_history_without_a_worker_is_refused_and_nothing_is_sent(client: Client, task_queue: str):
    chat_id = await unserved_conversation(client, task_queue)
    async with chat_app(client, task_queue) as http:
        response = await within(BOUND, http.get(f'/api/chat/{chat_id}/messages'))

    assert 'so the conversation could not be read' in refused(response, task_queue, admitted=False)


async def test_stop_without_a_worker_is_refused_and_nothing_is_sent(client: Client, task_queue: str):
    chat_id = await unserved_conversation(client, task_queue)
    async with chat_app(client, task_queue) as http:
        response = await within(BOUND, http.post(f'/api/chat/{chat_id}/stop'))

    assert 'so the turn was not stopped' in refused(response, task_queue, admitted=False)


async def test_an_ag_ui_run_without_a_worker_is_refused_and_nothing_is_sent(client: Client, task_queue: str):
    thread_id = new_id()
    async with chat_app(client, task_queue) as http:
        response = await within(BOUND, http.post('/api/ag-ui', json=ag_ui_body(thread_id, 'hello')))

    refused(response, task_queue, admitted=False)
    assert await absent(client, thread_id)


# The worker went away: refused after the backend's bound, saying whether the server holds what was sent.


async def test_a_new_conversation_whose_worker_went_away_is_held_by_the_server_and_answered_when_one_comes(
    client: Client, task_queue: str
):
    await abandoned_conversation(client, task_queue)
    chat_id = new_id()
    async with chat_app(client, task_queue, worker_timeout=WENT_AWAY_TIMEOUT) as http:
        response = await within(BOUND, http.post('/api/chat', json=user_body(chat_id, 'anyone?')))

    detail = refused(response, task_queue, admitted=True)
    assert 'took the message within 1 s. The Temporal server holds it' in detail
    # What the 503 says holds: a worker that comes answers the message (polled: no event says it was answered).
    async with chat_app(client, task_queue, worker_timeout=PATIENT) as http, serving(client, task_queue):
        history = await answered(http, chat_id)

    assert [(m['role'], [p.get('text') for p in m['parts'] if p['type'] == 'text']) for m in history] == [
        ('user', ['anyone?']),
        ('assistant', ['You said: anyone?']),
    ]


async def test_a_follow_up_message_whose_worker_went_away_is_refused_after_the_bound(client: Client, task_queue: str):
    chat_id = await abandoned_conversation(client, task_queue)
    async with chat_app(client, task_queue, worker_timeout=WENT_AWAY_TIMEOUT) as http:
        response = await within(BOUND, http.post('/api/chat', json=user_body(chat_id, 'are you there?')))

    detail = refused(response, task_queue, admitted=False)
    assert detail.startswith(
        f'No worker of task queue {task_queue!r} answered within 1 s, so the message was not sent.'
    )


async def test_the_history_whose_worker_went_away_is_refused_after_the_bound(client: Client, task_queue: str):
    chat_id = await abandoned_conversation(client, task_queue)
    async with chat_app(client, task_queue, worker_timeout=WENT_AWAY_TIMEOUT) as http:
        response = await within(BOUND, http.get(f'/api/chat/{chat_id}/messages'))

    assert 'so the conversation could not be read' in refused(response, task_queue, admitted=False)


async def test_stop_whose_worker_went_away_is_held_by_the_server_after_the_bound(client: Client, task_queue: str):
    chat_id = await abandoned_conversation(client, task_queue)
    async with chat_app(client, task_queue, worker_timeout=WENT_AWAY_TIMEOUT) as http:
        response = await within(BOUND, http.post(f'/api/chat/{chat_id}/stop'))

    assert 'took the stop request within 1 s. The Temporal server holds it' in refused(
        response, task_queue, admitted=True
    )


# Requests no conversation can take: 400 before Temporal is asked anything (no worker here, so asking would be 503).


@pytest.mark.parametrize('path', ['/api/chat', '/api/ag-ui'])
@pytest.mark.parametrize('backend', ['durable', 'in-process'])
async def test_a_body_that_is_not_utf8_is_400(client: Client, task_queue: str, path: str, backend: str):
    body = b'{"id": "caf\xe9", "messages": []}'  # Latin-1, not UTF-8
    async with chat_app(client, task_queue) if backend == 'durable' else in_process_app() as http:
        response = await within(AT_ONCE, http.post(path, content=body, headers={'content-type': 'application/json'}))

    assert response.status_code == 400
    assert response.json() == {
        'detail': 'The request body is not valid UTF-8 (at byte 11): send the JSON encoded as UTF-8.'
    }


@asynccontextmanager
async def in_process_app() -> AsyncIterator[httpx2.AsyncClient]:
    transport = httpx2.ASGITransport(app=create_chat_app(InProcessChatBackend({'assistant': chat_agent()})))
    async with httpx2.AsyncClient(transport=transport, base_url='http://127.0.0.1:8000') as http:
        yield http


@pytest.mark.parametrize(
    'door',
    ['message', 'ag-ui', 'history', 'stop', 'stream'],
)
async def test_a_conversation_id_too_long_for_a_workflow_id_is_400(client: Client, task_queue: str, door: str):
    chat_id = 'x' * 5000
    async with chat_app(client, task_queue) as http:
        request = {
            'message': lambda: http.post('/api/chat', json=user_body(chat_id, 'hello')),
            'ag-ui': lambda: http.post('/api/ag-ui', json=ag_ui_body(chat_id, 'hello')),
            'history': lambda: http.get(f'/api/chat/{chat_id}/messages'),
            'stop': lambda: http.post(f'/api/chat/{chat_id}/stop'),
            'stream': lambda: http.get(f'/api/chat/{chat_id}/stream'),
        }[door]
        response = await within(AT_ONCE, request())

    assert response.status_code == 400
    assert response.json() == {
        'detail': f'The conversation id is too long: 5000 bytes (UTF-8), and at most {MAX_WORKFLOW_ID_BYTES - 5} fit '
        f"(Temporal takes workflow ids of up to {MAX_WORKFLOW_ID_BYTES} bytes, and a conversation's is 'chat-' "
        'followed by its id). Use a shorter id.'
    }


async def test_the_longest_conversation_id_is_taken_and_one_byte_more_is_not(client: Client, task_queue: str):
    longest = 'x' * (MAX_WORKFLOW_ID_BYTES - 5)
    over = 'é' * ((MAX_WORKFLOW_ID_BYTES - 4) // 2)  # as many characters, but two bytes each
    async with chat_app(client, task_queue) as http:
        taken = await within(BOUND, http.post('/api/chat', json=user_body(longest, 'hello')))
        too_long = await within(AT_ONCE, http.post('/api/chat', json=user_body(over, 'hello')))

    assert taken.status_code == 503  # past the id check: only the missing worker stops it
    assert too_long.status_code == 400
    assert f'{MAX_WORKFLOW_ID_BYTES - 4} bytes (UTF-8)' in too_long.json()['detail']


@pytest.mark.parametrize('text', ['', '   \n\t '])
@pytest.mark.parametrize('protocol', ['vercel-ai', 'ag-ui'])
async def test_an_empty_message_is_400_and_starts_nothing(client: Client, task_queue: str, text: str, protocol: str):
    chat_id = new_id()
    async with chat_app(client, task_queue) as http:
        if protocol == 'vercel-ai':
            request = http.post('/api/chat', json=user_body(chat_id, text))
        else:
            request = http.post('/api/ag-ui', json=ag_ui_body(chat_id, text))
        response = await within(AT_ONCE, request)

    assert response.status_code == 400
    assert response.json() == {'detail': 'The message is empty: write something (or attach a file) and send it again.'}
    assert await absent(client, chat_id)
