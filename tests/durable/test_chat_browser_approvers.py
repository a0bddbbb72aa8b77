"""Approval rules on the chat page in a real browser: the signed-in user is the approver, and the page says who decided.

The chat server and a worker share one event loop in a thread (the worker publishes its events to the server's hub
in memory); each person signs in with a token of their own. The agent's tools are under approval rules: `delete_file`
takes alice, `wipe_disk` only bob, `transfer` both of them.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest
import uvicorn
from playwright.sync_api import Browser, Page, expect, sync_playwright
from starlette.requests import Request
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart
from agent.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from agent.ui.web import create_chat_app
from agent.ui.web._auth import unauthorized
from doors.chat import DurableChatBackend, InMemoryPublisher, TurnEventHub, chat_workflow_id
from tests.ui.web.test_browser import CHROMIUM, CHROMIUM_ARGS, Pages, send
from worker import build_worker, connect
from workflows import AgentWorkflow, ApprovalRule, DurableAgent
from workflows.client import AgentClient

T = TypeVar('T')

BOUND = 30.0  # seconds the server and its worker may take to start or stop on a busy machine, and a call on its loop
USERS = {'alice-token': 'alice', 'bob-token': 'bob'}
RULES = {
    'delete_file': ApprovalRule(approvers={'alice'}),
    'wipe_disk': ApprovalRule(approvers={'bob'}),
    'transfer': ApprovalRule(approvers={'alice', 'bob'}, required_approvals=2),
}
# A turn's first words reach the page within seconds, and later than Playwright's default 5 s on a busy machine.
expect.set_options(timeout=20_000)


async def _stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    last = messages[-1]
    returns = [p for p in last.parts if isinstance(p, ToolReturnPart)] if isinstance(last, ModelRequest) else []
    if returns:
        result = returns[0]
        yield f'{"Not done" if result.outcome == "denied" else "Done"}: {result.model_response_str()}'
        return
    prompt = next(
        (p.content for p in last.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)), ''
    ) if isinstance(last, ModelRequest) else ''  # fmt: skip
    for word, tool, args in (
        ('delete', 'delete_file', '{"path": "/tmp/report.txt"}'),
        ('wipe', 'wipe_disk', '{"disk": "sda"}'),
        ('transfer', 'transfer', '{"amount": 900}'),
    ):
        if word in prompt:
            yield {0: DeltaToolCall(name=tool, json_args=args, tool_call_id=f'{tool}-1')}
            return
    yield f'You said: {prompt}'


def ruled_agent() -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(stream_function=_stream), name='assistant')

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        """Delete a file."""
        return f'{path} is gone'

    @agent.tool_plain(requires_approval=True)
    def wipe_disk(disk: str) -> str:
        """Wipe a disk."""
        return f'{disk} is blank'

    @agent.tool_plain(requires_approval=True)
    def transfer(amount: int) -> str:
        """Send money."""
        return f'sent {amount}'

    return agent


def user_by_token(request: Request) -> str:
    """Each person's bearer token names them."""
    scheme, _, token = request.headers.get('authorization', '').partition(' ')
    user = USERS.get(token) if scheme.lower() == 'bearer' else None
    if user is None:
        raise unauthorized()
    return user


@dataclass
class Served:
    """The chat server's address, and a way to run a coroutine with its client on its loop."""

    url: str
    loop: asyncio.AbstractEventLoop
    client: Client
    task_queue: str

    def run(self, make: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(make, self.loop).result(BOUND)


def ruled_agents(hub: TurnEventHub) -> dict[str, DurableAgent]:
    """The page's agent under `RULES`, publishing its events to `hub`."""
    return {'assistant': DurableAgent(ruled_agent(), event_stream_handler=InMemoryPublisher(hub), approval_rules=RULES)}


@contextmanager
def chat_with_worker(
    address: str, task_queue: str, agents: Callable[[TurnEventHub], dict[str, DurableAgent]] = ruled_agents
) -> Iterator[Served]:
    """Serve the durable chat app (its agent: `assistant`) and a worker of `task_queue` serving `agents(hub)` in a
    thread; yields once the server listens."""
    listener = socket.create_server(('127.0.0.1', 0))
    port = listener.getsockname()[1]
    started: list[tuple[uvicorn.Server, asyncio.AbstractEventLoop, Client]] = []
    failures: list[BaseException] = []

    async def serve() -> None:
        client = await connect(address)
        hub = TurnEventHub()
        backend = DurableChatBackend(client, agents=['assistant'], task_queue=task_queue, hub=hub)
        app = create_chat_app(backend, auth=user_by_token)
        server = uvicorn.Server(uvicorn.Config(app, log_level='warning', lifespan='off', timeout_graceful_shutdown=1))
        started.append((server, asyncio.get_running_loop(), client))
        try:
            async with build_worker(client, agents(hub), task_queue=task_queue):
                await server.serve(sockets=[listener])
        finally:
            backend.close()

    def run() -> None:
        try:
            asyncio.run(serve())
        except BaseException as exc:
            failures.append(exc)

    thread = threading.Thread(target=run, name='chat-server', daemon=True)
    thread.start()
    deadline = time.monotonic() + BOUND
    while not (started and started[0][0].started):  # bounded: the server is up when uvicorn says so
        if failures or not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f'The chat server did not start: {failures!r}')
        time.sleep(0.01)
    server, loop, client = started[0]
    try:
        yield Served(f'http://127.0.0.1:{port}', loop, client, task_queue)
    finally:
        server.should_exit = True
        thread.join(BOUND * 3)  # the worker's shutdown follows the server's
        listener.close()


@pytest.fixture(scope='module')
def served(temporal_env: WorkflowEnvironment) -> Iterator[Served]:
    address = temporal_env.client.service_client.config.target_host
    with chat_with_worker(address, f'chat-approvers-{uuid.uuid4().hex[:8]}') as served:
        yield served


@pytest.fixture(scope='module')
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: the browser tests need Debian's Chromium (`apt-get install chromium`).")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def pages(browser: Browser, served: Served) -> Iterator[Pages]:
    pages = Pages(browser, served.url)
    yield pages
    pages.context.close()
    assert pages.errors == []


def signed_in(pages: Pages, user: str) -> Page:
    token = next(token for token, name in USERS.items() if name == user)
    return pages.open(f'#token={token}')


def chat_id(page: Page) -> str:
    return page.url.rsplit('/', 1)[-1]


def test_a_user_the_rule_allows_approves_and_the_page_says_who_approved(pages: Pages):
    page = signed_in(pages, 'alice')
    send(page, 'please delete the report')
    page.get_by_role('button', name='Approve').click()

    expect(page.get_by_text('Done: /tmp/report.txt is gone')).to_be_visible()
    expect(page.get_by_text('Approved by alice')).to_be_visible()
    # A reload restores who decided along with the conversation.
    page.reload()
    expect(page.get_by_text('Done: /tmp/report.txt is gone')).to_be_visible()
    expect(page.get_by_text('Approved by alice')).to_be_visible()


def test_a_user_the_rule_does_not_allow_is_told_why_in_one_line_and_the_approval_stays_open(pages: Pages):
    page = signed_in(pages, 'alice')
    send(page, 'wipe the disk')
    page.get_by_role('button', name='Approve').click()

    refusal = "Something went wrong: 'alice' may not approve calls of 'wipe_disk'."
    expect(page.get_by_role('alert')).to_have_text(refusal)
    expect(page.get_by_role('button', name='Approve')).to_be_visible()
    expect(page.get_by_text('Done:')).to_have_count(0)
    # The browser reports the refused request itself; nothing else may go wrong.
    refused = [error for error in pages.errors if '409 (Conflict)' in error]
    assert len(refused) == 1, pages.errors
    pages.errors.remove(refused[0])


def test_a_call_needing_two_approvers_shows_the_first_then_both(pages: Pages, served: Served):
    page = signed_in(pages, 'alice')
    send(page, 'transfer the money')
    page.get_by_role('button', name='Approve').click()

    expect(page.get_by_text('1 of 2 approvals (alice)')).to_be_visible()
    # Bob approves from elsewhere (here, Python; the `agents approve` command alike); once the turn is over, the page
    # (reloaded) shows its end and who approved.
    agents = AgentClient(served.client, task_queue=served.task_queue)
    workflow_id = chat_workflow_id(chat_id(page))
    served.run(agents.approve(workflow_id, approvals={'transfer-1': True}, caller='bob'))
    served.run(turn_over(served.client, workflow_id))
    page.reload()

    expect(page.get_by_text('Done: sent 900')).to_be_visible()
    expect(page.get_by_text('Approved by alice, bob')).to_be_visible()


async def turn_over(client: Client, workflow_id: str) -> None:
    """Return once the conversation's turn has ended (it waits for the next message)."""
    handle = client.get_workflow_handle(workflow_id)
    async with asyncio.timeout(BOUND - 1):
        while (await handle.query(AgentWorkflow.status)).state != 'awaiting_message':  # noqa: ASYNC110
            await asyncio.sleep(0.1)
