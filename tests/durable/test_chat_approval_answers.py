"""Answers to approvals from the chat page are never lost when the worker goes away, on a real dev server.

A worker serves the conversation until its turn waits for approval, then stops: before the answer (no worker answers
the backend's questions), or as the answer's `resolve_deferred_tools` update is sent (the server admits it, and no
worker takes it). Either way the page is answered 503 within the backend's bound, with `admitted: true` and a detail
saying the answer is recorded; the run's history holds it (the `submit_deferred_tool_results` signal), and once a
worker is back the turn continues with the approval applied, once. The answer names the page's user (`local`) as who
answers whichever way it goes, so an approval rule that allows only that user takes it, and the record names them.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, Interceptor, OutboundInterceptor, StartWorkflowUpdateInput, WorkflowUpdateHandle

from agent.messages import ModelRequest, ToolReturnPart
from agent.ui.web import create_chat_app
from doors.chat import DurableChatBackend, InMemoryPublisher, TurnEventHub, chat_workflow_id
from tests.ui._node import run_node
from tests.ui.web._agents import chat_agent
from worker import build_worker
from workflows import ApprovalRule, DurableAgent
from workflows._agent_workflow import AgentWorkflow
from workflows._encryption import with_encryption
from workflows._types import MessagePage

from .test_durable_chat import approval_body, chunks, user_body

pytestmark = pytest.mark.asyncio(loop_scope='session')

WORKER_TIMEOUT = 2.0
"""The backend's wait for a worker: long enough for a worker to stop within it (the update-step case)."""
BOUND = WORKER_TIMEOUT * 3 + 5.0
"""Seconds the refused answer may take: the check, the questions and the update each wait `WORKER_TIMEOUT` at most,
and the signal and the describe are a few RPCs on a busy machine."""
PATIENT = 60.0
"""Seconds a restarted worker may take to pick the run up and finish the turn (the old worker's sticky queue)."""


class StopWorkerBeforeAnswer(Interceptor):
    """Runs `before` just before the backend sends an answer's `resolve_deferred_tools` update."""

    def __init__(self, before: Callable[[], Awaitable[None]]) -> None:
        self.before = before

    def intercept_client(self, next: OutboundInterceptor) -> OutboundInterceptor:
        return _BeforeAnswer(next, self.before)


class _BeforeAnswer(OutboundInterceptor):
    def __init__(self, next: OutboundInterceptor, before: Callable[[], Awaitable[None]]) -> None:
        super().__init__(next)
        self.before = before

    async def start_workflow_update(self, input: StartWorkflowUpdateInput) -> WorkflowUpdateHandle[Any]:
        if input.update == 'resolve_deferred_tools':
            await self.before()
        return await super().start_workflow_update(input)


@dataclass
class Served:
    """The chat app over a durable backend, with a worker of its task queue that the test stops and starts."""

    client: Client
    task_queue: str
    http: httpx2.AsyncClient
    agent: DurableAgent
    workers: AsyncExitStack
    chat_id: str

    async def start_worker(self) -> None:
        await self.workers.enter_async_context(
            build_worker(self.client, {'assistant': self.agent}, task_queue=self.task_queue)
        )

    async def stop_worker(self) -> None:
        await self.workers.aclose()


@asynccontextmanager
async def served(
    client: Client, task_queue: str, interceptors: list[Interceptor] | None = None
) -> AsyncIterator[Served]:
    """The app (every caller is `local`), its worker running; the worker is stopped whatever the test's outcome."""
    hub = TurnEventHub()
    backend_client = Client(**{**client.config(), 'interceptors': interceptors or []})
    backend = DurableChatBackend(
        backend_client, agents=['assistant'], task_queue=task_queue, hub=hub, worker_timeout=WORKER_TIMEOUT
    )
    # One agent for every worker: a worker restarted on the same task queue registers the same agent again.
    agent = DurableAgent(
        chat_agent(),
        event_stream_handler=InMemoryPublisher(hub),
        approval_rules={'delete_file': ApprovalRule(approvers={'local'})},
    )
    transport = httpx2.ASGITransport(app=create_chat_app(backend))
    async with (
        httpx2.AsyncClient(transport=transport, base_url='http://127.0.0.1:8000', timeout=PATIENT) as http,
        AsyncExitStack() as workers,
    ):
        chat = Served(client, task_queue, http, agent, workers, f'c-{uuid.uuid4().hex[:12]}')
        try:
            await chat.start_worker()
            yield chat
        finally:
            backend.close()
            await chat.stop_worker()


async def waiting_for_approval(chat: Served) -> dict[str, Any]:
    """Ask to delete the report; the page's assistant message, which asks for the approval of `del1`."""
    asked = await chat.http.post('/api/chat', json=user_body(chat.chat_id, 'please delete the report'))
    assert {'type': 'tool-approval-request', 'approvalId': 'del1', 'toolCallId': 'del1'} in chunks(asked.text)
    return run_node('vercel_ai_check.mjs', asked.text)['message']


async def answered_within_bound(chat: Served, message: dict[str, Any]) -> httpx2.Response:
    async with asyncio.timeout(BOUND):
        return await chat.http.post('/api/chat', json=approval_body(chat.chat_id, message, approved=True))


def check_recorded(response: httpx2.Response, task_queue: str) -> None:
    assert response.status_code == 503, response.text
    body = response.json()
    assert body['admitted'] is True
    assert repr(task_queue) in body['detail']
    assert (
        "The answers are recorded in the conversation's history and apply when a worker takes the run"
        in (body['detail'])
    )


async def signalled_answers(client: Client, chat_id: str) -> list[str]:
    """The signals in the conversation's history (what the server keeps, whatever happens to the worker)."""
    handle = client.get_workflow_handle(chat_workflow_id(chat_id))
    return [
        event.workflow_execution_signaled_event_attributes.signal_name
        async for event in handle.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
    ]


async def deleted_once(chat: Served) -> None:
    """Wait until the turn has ended with the file deleted; its tool ran once (polled: no event tells it here)."""
    handle = with_encryption(chat.client).get_workflow_handle(chat_workflow_id(chat.chat_id))
    async with asyncio.timeout(PATIENT):
        while True:
            shown = (await chat.http.get(f'/api/chat/{chat.chat_id}/messages')).json()
            texts = [part.get('text') for message in shown for part in message['parts']]
            if 'Deleted: /tmp/report.txt is gone' in texts:
                break
            await asyncio.sleep(0.1)
    page = await handle.query(AgentWorkflow.messages, MessagePage(limit=100))
    returns = [
        part
        for message in page.messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]
    assert [(part.tool_call_id, part.content) for part in returns] == [('del1', '/tmp/report.txt is gone')]
    status = await handle.query(AgentWorkflow.status)
    assert [(record.tool_call_id, record.decision, record.by) for record in status.decisions] == [
        ('del1', 'approve', ['local'])
    ]


async def test_an_answer_sent_after_the_worker_stopped_is_recorded_and_applies_when_a_worker_comes(
    client: Client, task_queue: str
):
    async with served(client, task_queue) as chat:
        message = await waiting_for_approval(chat)
        await chat.stop_worker()
        # The server still lists the worker as a poller: the backend asks the run, which no worker answers.
        refused = await answered_within_bound(chat, message)
        signals = await signalled_answers(client, chat.chat_id)
        await chat.start_worker()
        await deleted_once(chat)

    check_recorded(refused, task_queue)
    assert signals == ['submit_deferred_tool_results']


async def test_an_answer_whose_update_no_worker_takes_is_recorded_and_applies_when_a_worker_comes(
    client: Client, task_queue: str
):
    stopping: list[asyncio.Task[None]] = []

    async def stop_worker() -> None:
        # The worker answered the backend's questions; it goes away as the update is sent. Stopped in a task of its
        # own, so the backend's bound, if it passes first, does not cancel the worker's shutdown halfway.
        if not stopping:
            stopping.append(asyncio.ensure_future(chat.stop_worker()))
        await asyncio.shield(stopping[0])

    async with served(client, task_queue, [StopWorkerBeforeAnswer(stop_worker)]) as chat:
        message = await waiting_for_approval(chat)
        refused = await answered_within_bound(chat, message)
        await stopping[0]
        signals = await signalled_answers(client, chat.chat_id)
        await chat.start_worker()
        await deleted_once(chat)

    check_recorded(refused, task_queue)
    assert signals == ['submit_deferred_tool_results']
