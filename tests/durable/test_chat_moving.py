"""A chat message that arrives while its conversation hands over to its next workflow run is sent again, not refused.

The chat starts a conversation with no `max_turns_per_run` (the page cannot set one): it continues as new when its
history is large (Temporal suggests it, and the run has grown enough, see `workflows._history_limits`), and a history
over 512 KB is written into the ending run's history by stash activities while the turn that made the hand-over due
waits for its answer. Meanwhile the conversation refuses new messages as `ConversationMoving`.

Two clients of one new conversation, through the chat's HTTP routes: client B's message reaches the chat first, but
its update is held back (a client interceptor) while client A sends large messages, until A's turn makes the
hand-over due and its first stash activity starts (a worker interceptor). B's update then reaches the conversation
while it is moving, and the stash goes on once B was refused. Every message gets its answer, none is a 409, and the
conversation's next run holds all of them.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx2
import pytest
from temporalio import activity
from temporalio.client import (
    Client,
    Interceptor,
    OutboundInterceptor,
    StartWorkflowUpdateWithStartInput,
    WorkflowExecutionStatus,
    WorkflowUpdateFailedError,
    WorkflowUpdateHandle,
)
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput
from temporalio.worker import Interceptor as WorkerInterceptor

from agent.ui.web import create_chat_app
from doors.chat import DurableChatBackend, InMemoryPublisher, TurnEventHub, chat_workflow_id
from tests.ui.web._agents import chat_agent
from worker import build_worker
from workflows import DurableAgent
from workflows._moving import is_moving

from .test_durable_chat import chunks, user_body

pytestmark = pytest.mark.asyncio(loop_scope='session')

BOUND = 60.0
"""Seconds any one wait may take on a busy machine."""
PROMPT_BYTES = 300_000
"""Client A's messages: each turn adds about four times as much to the run's history (the message, the model's
echo of it, the turn's result), so a few turns pass the size at which Temporal suggests continuing as new."""
MAX_TURNS = 8
"""Client A's turns at most before the conversation must have handed over."""
B_TEXT = 'B: hello from the other tab'


@dataclass
class Interleaving:
    """What the two interceptors share: B's update is held until the hand-over writes; the writing waits for B."""

    stashing: asyncio.Event = field(default_factory=asyncio.Event)
    """A stash activity started: the conversation is moving."""
    refused: asyncio.Event = field(default_factory=asyncio.Event)
    """B's message was refused as moving."""
    b_held: asyncio.Event = field(default_factory=asyncio.Event)
    """B's first update reached the client (and waits for `stashing`)."""
    b_sends: int = 0
    """How many times B's message was sent."""


class HoldB(Interceptor):
    """On the chat server's client: B's first `send_message` waits for the hand-over; its refusal is noted."""

    def __init__(self, shared: Interleaving) -> None:
        self.shared = shared

    def intercept_client(self, next: OutboundInterceptor) -> OutboundInterceptor:
        return _HoldB(next, self.shared)


class _HoldB(OutboundInterceptor):
    def __init__(self, next: OutboundInterceptor, shared: Interleaving) -> None:
        super().__init__(next)
        self.shared = shared

    async def start_update_with_start_workflow(
        self, input: StartWorkflowUpdateWithStartInput
    ) -> WorkflowUpdateHandle[Any]:
        shared = self.shared
        message = input.update_workflow_input.args[0]
        if B_TEXT not in str(getattr(message, 'prompt', '')):
            return await super().start_update_with_start_workflow(input)
        shared.b_sends += 1
        if shared.b_sends == 1:
            shared.b_held.set()
            async with asyncio.timeout(BOUND):
                await shared.stashing.wait()
        try:
            update = await super().start_update_with_start_workflow(input)
            if update._known_outcome is not None:  # a rejection comes back as the update's outcome
                await update.result()
        except WorkflowUpdateFailedError as exc:
            if is_moving(exc):
                shared.refused.set()
            raise
        return update


class HoldStash(WorkerInterceptor):
    """On the worker: the first stash activity of a hand-over waits until B's message was refused as moving."""

    def __init__(self, shared: Interleaving) -> None:
        self.shared = shared

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _HoldStash(next, self.shared)


class _HoldStash(ActivityInboundInterceptor):
    def __init__(self, next: ActivityInboundInterceptor, shared: Interleaving) -> None:
        super().__init__(next)
        self.shared = shared

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        if activity.info().activity_type.endswith('.history.stash'):
            self.shared.stashing.set()
            # Bounded: without a refusal (the message got in before the hand-over) the test fails on its asserts.
            try:
                async with asyncio.timeout(BOUND):
                    await self.shared.refused.wait()
            except TimeoutError:
                pass
        return await super().execute_activity(input)


@asynccontextmanager
async def two_clients(client: Client, task_queue: str, shared: Interleaving) -> AsyncIterator[httpx2.AsyncClient]:
    """The chat app (every caller is `local`) over a backend whose client holds B back, and its worker."""
    hub = TurnEventHub()
    backend_client = Client(**{**client.config(), 'interceptors': [HoldB(shared)]})
    backend = DurableChatBackend(backend_client, agents=['assistant'], task_queue=task_queue, hub=hub)
    agent = DurableAgent(chat_agent(), event_stream_handler=InMemoryPublisher(hub))
    transport = httpx2.ASGITransport(app=create_chat_app(backend))
    async with (
        build_worker(client, {'assistant': agent}, task_queue=task_queue, interceptors=[HoldStash(shared)]),
        httpx2.AsyncClient(transport=transport, base_url='http://127.0.0.1:8000', timeout=BOUND) as http,
    ):
        try:
            yield http
        finally:
            backend.close()


def streamed_text(response: httpx2.Response) -> str:
    return ''.join(c['delta'] for c in chunks(response.text) if c['type'] == 'text-delta')


def texts(message: dict[str, Any]) -> str:
    return ''.join(part.get('text', '') for part in message['parts'] if part['type'] == 'text')


async def test_a_message_sent_while_the_conversation_hands_over_is_answered_by_its_next_run(
    client: Client, task_queue: str
):
    shared = Interleaving()
    chat_id = f'c-{uuid.uuid4().hex[:12]}'
    workflow_id = chat_workflow_id(chat_id)
    first_run_id = ''
    a_sent: list[str] = []
    a_answers: list[httpx2.Response] = []
    async with two_clients(client, task_queue, shared) as http:
        b_sending = asyncio.ensure_future(http.post('/api/chat', json=user_body(chat_id, B_TEXT)))
        try:
            async with asyncio.timeout(BOUND):
                await shared.b_held.wait()
            for turn in range(MAX_TURNS):
                text = f'A{turn} ' + 'x' * PROMPT_BYTES
                a_sent.append(text)
                a_answers.append(await http.post('/api/chat', json=user_body(chat_id, text)))
                if not turn:
                    first_run_id = (await client.get_workflow_handle(workflow_id).describe()).run_id
                if shared.stashing.is_set():
                    break
            async with asyncio.timeout(BOUND):
                b_answer = await b_sending
        finally:
            b_sending.cancel()
        history = await http.get(f'/api/chat/{chat_id}/messages')
    first_run = await client.get_workflow_handle(workflow_id, run_id=first_run_id).describe()

    assert shared.stashing.is_set(), f'the conversation never handed over in {MAX_TURNS} turns'
    assert shared.refused.is_set(), "B's message reached the conversation before it was moving"
    assert shared.b_sends >= 2, 'the refused message was not sent again'
    assert [(a.status_code, streamed_text(a)) for a in a_answers] == [(200, f'You said: {t}') for t in a_sent]
    assert (b_answer.status_code, streamed_text(b_answer)) == (200, f'You said: {B_TEXT}'), b_answer.text[:500]
    # None is lost: the conversation's next run holds every message and its answer, B's after A's last.
    assert first_run.status == WorkflowExecutionStatus.CONTINUED_AS_NEW
    shown = [(m['role'], texts(m)) for m in history.json()]
    expected = [pair for t in [*a_sent, B_TEXT] for pair in (('user', t), ('assistant', f'You said: {t}'))]
    assert shown == expected, json.dumps(shown)[:2000]
