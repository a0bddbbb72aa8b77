"""A sub-agent's approval on the chat page, in a real browser: the page's agent delegates to a researcher (a child
run), whose `publish` needs approval; the page shows the approval, the person answers it there, and the turn ends
with the researcher's answer."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from playwright.sync_api import expect
from temporalio.testing import WorkflowEnvironment

from agent import Agent, RunContext
from agent.messages import ModelMessage, ModelRequest, ToolCallPart, ToolReturnPart, UserPromptPart
from agent.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from doors.chat import InMemoryPublisher, TurnEventHub, chat_workflow_id
from tests.ui.web.test_browser import Pages, send
from workflows import DurableAgent
from workflows.client import AgentClient

from .delegation_agents import tools_then_text
from .test_chat_browser_approvers import Served, browser, chat_id, chat_with_worker, signed_in

__all__ = ('browser',)  # the fixture, shared with the approvers' browser tests

expect.set_options(timeout=20_000)  # a turn's first words, later than Playwright's 5 s on a busy machine


async def _stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    returns = [part for part in last.parts if isinstance(part, ToolReturnPart)]
    if returns:
        yield f'Researcher says: {returns[0].model_response_str()}'
        return
    asked = next(p.content for p in last.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str))
    yield {0: DeltaToolCall(name='ask_researcher', json_args=f'{{"question": "{asked}"}}', tool_call_id='ask-1')}


def delegating_agents(hub: TurnEventHub) -> dict[str, DurableAgent]:
    researcher = Agent(
        tools_then_text(ToolCallPart('lookup', {'topic': 'tides'}, 'r-1'), ToolCallPart('publish', {}, 'r-2')),
        name='researcher',
    )

    @researcher.tool_plain
    def lookup(topic: str) -> str:
        return f'{topic} follow the moon'

    @researcher.tool_plain(requires_approval=True)
    def publish() -> str:
        return 'published'

    assistant: Agent[None, str] = Agent(FunctionModel(stream_function=_stream), name='assistant')

    @assistant.tool
    async def ask_researcher(ctx: RunContext[None], question: str) -> str:
        """Ask the researcher."""
        return (await researcher.run(question, usage=ctx.usage)).output

    publisher = InMemoryPublisher(hub)
    return {
        'assistant': DurableAgent(assistant, event_stream_handler=publisher),
        'researcher': DurableAgent(researcher, event_stream_handler=publisher),
    }


@pytest.fixture(scope='module')
def served(temporal_env: WorkflowEnvironment) -> Iterator[Served]:
    address = temporal_env.client.service_client.config.target_host
    with chat_with_worker(address, f'chat-delegation-{uuid.uuid4().hex[:8]}', delegating_agents) as served:
        yield served


@pytest.fixture
def pages(browser: object, served: Served) -> Iterator[Pages]:
    pages = Pages(browser, served.url)  # type: ignore[arg-type]
    yield pages
    pages.context.close()
    assert pages.errors == []


def test_a_sub_agents_approval_is_answered_on_the_page(pages: Pages, served: Served) -> None:
    page = signed_in(pages, 'alice')
    send(page, 'why are there tides')
    approve = page.get_by_role('button', name='Approve')
    expect(approve).to_be_visible()
    # The researcher's call waits, under the path of the tool call that started the researcher.
    agents = AgentClient(served.client, task_queue=served.task_queue)
    pending = served.run(agents.pending(chat_workflow_id(chat_id(page))))
    assert pending is not None
    assert [(call.tool_call_id, call.tool_name) for call in pending.approvals] == [('ask-1/r-2', 'publish')]

    approve.click()

    expect(page.get_by_text('Researcher says: tides follow the moon + published')).to_be_visible()
