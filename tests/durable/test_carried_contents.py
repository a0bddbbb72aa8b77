"""Tool results a long conversation carries to its next run by reference reach the model whole."""

from __future__ import annotations

import asyncio
import hashlib
import uuid

import pytest
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.exceptions import ActivityError, ApplicationError

from activities import _carried_contents as carried_module
from activities._carried_contents import CARRIED_CONTENT_MISSING, CarriedContent, carried_reference
from activities._message_store import worker_store
from agent import Agent
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models.function import AgentInfo, FunctionModel
from agent.usage import RequestUsage
from worker import build_worker
from workflows import AgentRunOutput, AgentWorkflow, conversation_workflow_id
from workflows import _handoff as handoff_module
from workflows.client import AgentClient

pytestmark = pytest.mark.asyncio(loop_scope='session')

RESULT_CHARS = 60_000
USAGE = RequestUsage(input_tokens=1, output_tokens=1)


def document(seed: str) -> str:
    return (hashlib.sha256(seed.encode()).hexdigest() * (RESULT_CHARS // 64 + 1))[:RESULT_CHARS]


def archivist_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Fetches a document per message; answers with what it holds of all of them, as the model sees them."""
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    prompts = [p.content for p in last.parts if isinstance(p, UserPromptPart)]
    results = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    documents = [r for r in results if r.tool_name == 'fetch']
    if prompts == ['forget']:
        return ModelResponse(parts=[ToolCallPart('forget', {}, f'forget-{len(results)}')], usage=USAGE)
    if prompts:
        return ModelResponse(
            parts=[ToolCallPart('fetch', {'seed': f'd{len(documents)}'}, f'f-{len(results)}')], usage=USAGE
        )
    whole = [r.content == document(f'd{i}') for i, r in enumerate(documents)]
    return ModelResponse(parts=[TextPart(f'{sum(whole)} of {len(documents)} documents whole')], usage=USAGE)


archivist = Agent(FunctionModel(archivist_model), name='archivist')


@archivist.tool_plain
def fetch(seed: str) -> str:
    """Fetch a document."""
    return document(seed)


@archivist.tool_plain
def forget() -> str:
    """Lose everything this worker keeps, as a restarted worker would."""
    worker_store.clear()
    return 'forgot'


@pytest.fixture
def small_budgets(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every hand-over goes by reference and carries ~two documents whole: the rest go by reference.
    monkeypatch.setattr(handoff_module, 'PLAIN_HISTORY_BUDGET', 0)
    monkeypatch.setattr(carried_module, 'CARRIED_CONTENT_BUDGET', 150_000)
    monkeypatch.setattr(carried_module, 'MIN_CARRIED_BY_REFERENCE', 10_000)


def is_result(part: object) -> bool:
    return isinstance(part, ToolReturnPart)


async def converse(agents: AgentClient, conversation: str, prompt: str) -> AgentRunOutput:
    return await asyncio.wait_for(
        agents.send_message('archivist', conversation_id=conversation, prompt=prompt, max_turns_per_run=1), 60
    )


async def conversation_messages(client: Client, workflow_id: str) -> list[ModelMessage]:
    handle = client.get_workflow_handle(workflow_id)
    async with asyncio.timeout(30):
        while True:
            page = await handle.query(AgentWorkflow.messages)
            if page.history_from is None:
                return page.messages
            await asyncio.sleep(0.05)  # the latest run is still reading the conversation back


@pytest.mark.usefixtures('small_budgets')
async def test_results_carried_by_reference_reach_the_model_whole_from_a_worker_that_forgot_them(
    client: Client, task_queue: str
) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    conversation = f'archive-{uuid.uuid4()}'
    workflow_id = conversation_workflow_id('archivist', conversation)
    async with build_worker(client, {'archivist': archivist}, task_queue=task_queue):
        answers = [(await converse(agents, conversation, f'read {i}')).output for i in range(5)]
        messages = await conversation_messages(client, workflow_id)
        # A worker without any of it (restarted, or another one): it reads the results from the runs that hold them.
        await converse(agents, conversation, 'forget')
        after = (await converse(agents, conversation, 'read on')).output
        await agents.close_conversation('archivist', conversation)
    assert answers == [f'{i + 1} of {i + 1} documents whole' for i in range(5)]
    assert after == '6 of 6 documents whole'
    # The workflow holds the oldest results as references, each naming the run whose history holds it.
    contents = [
        p.content for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)
    ]
    references = [carried_reference(c) for c in contents]
    assert [r is not None for r in references] == [True, True, True, False, False]
    assert all(r.workflow_id == workflow_id and r.bytes == RESULT_CHARS + 2 for r in references if r is not None)
    assert contents[3:] == [document('d3'), document('d4')]


async def test_a_result_whose_run_is_gone_fails_the_turn_naming_the_run(client: Client, task_queue: str) -> None:
    # Messages copied from a conversation whose runs are past the namespace's retention: the run its oldest result
    # names no longer exists.
    workflow_id = conversation_workflow_id('archivist', 'long-gone')
    gone = CarriedContent('0' * 32, RESULT_CHARS + 2, workflow_id, str(uuid.uuid4()))
    copied: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('read 0')]),
        ModelResponse(parts=[ToolCallPart('fetch', {'seed': 'd0'}, 'f-0')]),
        ModelRequest(parts=[ToolReturnPart('fetch', gone.as_content(), 'f-0')]),
        ModelResponse(parts=[TextPart('1 of 1 documents whole')]),
    ]
    agents = AgentClient(client, task_queue=task_queue)
    conversation = f'archive-{uuid.uuid4()}'
    async with build_worker(client, {'archivist': archivist}, task_queue=task_queue):
        with pytest.raises(WorkflowUpdateFailedError) as failed:
            await asyncio.wait_for(
                agents.send_message(
                    'archivist', conversation_id=conversation, prompt='read on', message_history=copied
                ),
                60,
            )
        await agents.close_conversation('archivist', conversation)
    # The turn's failure is the model request's, which says what is missing and why first.
    cause = failed.value.cause
    assert isinstance(cause, ActivityError)
    assert isinstance(cause.cause, ApplicationError)
    assert cause.cause.type == CARRIED_CONTENT_MISSING
    assert cause.message.startswith('CarriedContentMissing: A tool result of 60002 bytes')
    assert gone.run_id in cause.message
    assert 'retention' in cause.message
