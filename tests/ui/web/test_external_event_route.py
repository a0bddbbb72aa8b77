"""`POST /api/external-events/{token}` over the in-process backend: a turn waiting in `RequestInput` goes on once the
page's caller resolves the token (the durable backend's route is tested in `tests/durable/test_external_event_doors`).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from agent import Agent, DeferredToolRequests, RunContext
from agent.capabilities import RequestInput
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from agent.ui.web import InProcessChatBackend, bearer_token_auth, create_chat_app

from .test_app import AUTH, TOKEN, client_for, streamed_text, user_body

WAIT = 5.0


def deletes_then_reports(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    last = messages[-1]
    returns = [p for p in last.parts if isinstance(p, ToolReturnPart)] if isinstance(last, ModelRequest) else []
    if not returns:
        return ModelResponse(parts=[ToolCallPart('delete_file', {'path': 'a.txt'}, 'del-1')])
    return ModelResponse(parts=[TextPart(f'{returns[0].outcome}: {returns[0].content}')])


class Tokens:
    """An `ask` that keeps the token and answers nothing: the page's caller resolves it."""

    def __init__(self) -> None:
        self.tokens: list[str] = []
        self.asked = threading.Event()

    def __call__(self, ctx: RunContext[Any], requests: DeferredToolRequests, token: str) -> None:
        self.tokens.append(token)
        self.asked.set()

    async def token(self) -> str:
        assert await asyncio.to_thread(self.asked.wait, WAIT)
        return self.tokens[-1]


def waiting_agent(ask: Tokens) -> Agent[None, str]:
    agent = Agent(FunctionModel(deletes_then_reports), capabilities=[RequestInput(ask)])

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        return f'deleted {path}'

    return agent


async def test_the_route_resolves_an_in_process_token_and_the_turn_goes_on() -> None:
    ask = Tokens()
    app = create_chat_app(InProcessChatBackend({'assistant': waiting_agent(ask)}), auth=bearer_token_auth(TOKEN))
    async with client_for(app) as http:
        turn = asyncio.create_task(http.post('/api/chat', json=user_body('c1', 'delete a.txt'), headers=AUTH))
        token = await ask.token()

        assert (await http.post(f'/api/external-events/{token}', json={'results': {}})).status_code == 401
        for body, status, detail in (
            ({'fail': ''}, 400, '"fail" must be the reason'),
            ({'results': {'approvals': {'del-9': True}}}, 409, "'del-9'"),
        ):
            refused = await http.post(f'/api/external-events/{token}', json=body, headers=AUTH)
            assert refused.status_code == status, refused.text
            assert detail in refused.json()['detail']
        unknown = await http.post('/api/external-events/no-such-token', json={'results': {}}, headers=AUTH)
        assert unknown.status_code == 404

        resolved = await http.post(
            f'/api/external-events/{token}', json={'results': {'approvals': {'del-1': True}}}, headers=AUTH
        )
        assert (resolved.status_code, resolved.json()) == (200, {'resolved': True, 'failed': False})
        response = await asyncio.wait_for(turn, WAIT)

        again = await http.post(f'/api/external-events/{token}', json={'fail': 'late'}, headers=AUTH)
        assert again.status_code == 404

    assert streamed_text(response.text) == 'success: deleted a.txt'


async def test_a_failed_token_denies_the_call_with_the_reason() -> None:
    ask = Tokens()
    app = create_chat_app(InProcessChatBackend({'assistant': waiting_agent(ask)}), auth=bearer_token_auth(TOKEN))
    async with client_for(app) as http:
        turn = asyncio.create_task(http.post('/api/chat', json=user_body('c1', 'delete a.txt'), headers=AUTH))
        failed = await http.post(f'/api/external-events/{await ask.token()}', json={'fail': 'Not now.'}, headers=AUTH)
        assert (failed.status_code, failed.json()) == (200, {'resolved': False, 'failed': True})
        response = await asyncio.wait_for(turn, WAIT)

    assert streamed_text(response.text) == 'denied: No decision on this tool call arrived: Not now.'
