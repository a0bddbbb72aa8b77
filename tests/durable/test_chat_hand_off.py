"""A chat page's conversation handed off to another served agent stays the page's conversation: the page's next
message is answered by the new agent, streamed as any turn, and the page's history is one list across both agents."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from temporalio.client import Client

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, UserPromptPart
from agent.models.function import AgentInfo, FunctionModel
from agent.ui.web import create_chat_app
from doors.chat import DurableChatBackend, TurnEvent, TurnEventHub, TurnEventPublisher, chat_workflow_id
from worker import build_worker
from workflows import AgentRunOutput, ConversationMessage, DurableAgent

from .test_durable_chat import ALICE, BOUND, owner_by_header, shown, streamed_text, user_body

pytestmark = pytest.mark.asyncio(loop_scope='session')


class HubPublisher(TurnEventPublisher):
    """Publishes the workers' turn events to the chat server's hub (both in this process)."""

    def __init__(self, hub: TurnEventHub) -> None:
        self.hub = hub

    def _send(self, record: TurnEvent) -> None:
        self.hub.ingest(record)


def streams_as(name: str) -> FunctionModel:
    """Streams which agent answers, and every user prompt of the history it was given."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        requests = [m for m in messages if isinstance(m, ModelRequest)]
        prompts = [str(p.content) for m in requests for p in m.parts if isinstance(p, UserPromptPart)]
        yield f'{name}: {" / ".join(prompts)}'

    return FunctionModel(stream_function=stream)


async def test_a_chat_conversation_handed_off_is_answered_by_the_new_agent_on_the_same_page(
    client: Client, task_queue: str
) -> None:
    hub = TurnEventHub()
    publisher = HubPublisher(hub)
    agents: dict[str, Any] = {
        name: DurableAgent(Agent(streams_as(name), name=name), event_stream_handler=publisher)
        for name in ('triage', 'billing')
    }
    # The page offers triage only: billing answers the conversations handed to it.
    backend = DurableChatBackend(client, agents=['triage'], task_queue=task_queue, hub=hub)
    transport = httpx2.ASGITransport(app=create_chat_app(backend, auth=owner_by_header))
    chat_id = f'c-{uuid.uuid4().hex[:12]}'
    async with (
        build_worker(client, agents, task_queue=task_queue),
        httpx2.AsyncClient(transport=transport, base_url='http://127.0.0.1:8000', timeout=BOUND) as http,
    ):
        try:
            first = await http.post('/api/chat', json=user_body(chat_id, 'charged twice'), headers=ALICE)
            # The hand-off, sent by application code to the page's conversation (its workflow id is `chat-<id>`).
            handed = await client.get_workflow_handle(chat_workflow_id(chat_id)).execute_update(
                'send_message',
                ConversationMessage('Please answer the customer.', hand_off_to='billing'),
                result_type=AgentRunOutput,
            )
            after = await http.post('/api/chat', json=user_body(chat_id, 'thanks'), headers=ALICE)
            messages = (await http.get(f'/api/chat/{chat_id}/messages', headers=ALICE)).json()
        finally:
            backend.close()
    assert streamed_text(first.text) == 'triage: charged twice'
    assert handed.output == 'billing: charged twice / Please answer the customer.'
    assert streamed_text(after.text) == 'billing: charged twice / Please answer the customer. / thanks'
    assert shown(messages) == [
        ('user', ['charged twice']),
        ('assistant', ['triage: charged twice']),
        ('user', ['Please answer the customer.']),
        ('assistant', ['billing: charged twice / Please answer the customer.']),
        ('user', ['thanks']),
        ('assistant', ['billing: charged twice / Please answer the customer. / thanks']),
    ]
