"""Conversations and long runs under steady traffic with large tool results: they continue as new, never wedge.

Each turn's tool returns ~480 KB that barely compresses, and each message is sent the moment the previous turn
answers: the hand-over to the next run must not depend on a quiet moment, no activity input may approach
Temporal's payload limit, and no run's history may hold the same messages twice.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import random
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from activities import _agent_activities as agent_activities
from activities._carried_contents import CARRIED_CONTENT_BUDGET
from activities._history_recovery import recover_from_history
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
from agent.usage import RequestUsage, UsageLimits
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow, conversation_workflow_id
from workflows._request_size import REQUEST_TOO_LARGE
from workflows.client import AgentClient

pytestmark = [pytest.mark.asyncio(loop_scope='session'), pytest.mark.timeout(300)]

RESULT_CHARS = 480_000
TURNS = 20
TURNS_PER_RUN = 5
MB = 1024 * 1024


def bulky(seed: str) -> str:
    """480 KB of text that zlib cannot shrink much (base64 of a hash chain), the same for the same seed."""
    block = hashlib.sha512(seed.encode()).digest()
    chunks = []
    while len(chunks) * 64 < RESULT_CHARS * 3 // 4:
        block = hashlib.sha512(block).digest()
        chunks.append(block)
    return base64.b64encode(b''.join(chunks)).decode()[:RESULT_CHARS]


def records(seed: str) -> str:
    """480 KB of log-like lines, the kind of text a tool returns (it deflates to about a third)."""
    rng = random.Random(seed)
    lines: list[str] = []
    size = 0
    while size < RESULT_CHARS:
        index = len(lines)
        line = f'{index:06d} {rng.getrandbits(64):016x} status=ok size={rng.randrange(100_000)} part={index % 97}\n'
        lines.append(line)
        size += len(line)
    return ''.join(lines)[:RESULT_CHARS]


def fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


# The functions report usage as a provider does: FunctionModel's own estimate reads every word of the conversation
# on every request, which for megabytes of results would cost more than everything measured here.
USAGE = RequestUsage(input_tokens=1, output_tokens=1)


def reads_then_answers(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Fetches once per user message, then answers with how many results it has seen and the last one's hash."""
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    results = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if not any(isinstance(p, ToolReturnPart) for p in last.parts):
        return ModelResponse(
            parts=[ToolCallPart('fetch', {'seed': f'r{len(results)}'}, f'f-{len(results)}')], usage=USAGE
        )
    # Every result the conversation holds reached the model whole.
    assert all(isinstance(r.content, str) and len(r.content) == RESULT_CHARS for r in results)
    answer = f'{len(results)} results, last {fingerprint(str(results[-1].content))}'
    return ModelResponse(parts=[TextPart(answer)], usage=USAGE)


def steps_then_answers(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Fetches as many times as the prompt says, one call a step, then answers as `reads_then_answers`."""
    first = messages[0]
    assert isinstance(first, ModelRequest)
    steps = int(str(first.parts[-1].content))
    results = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if len(results) < steps:
        return ModelResponse(
            parts=[ToolCallPart('fetch', {'seed': f'r{len(results)}'}, f'f-{len(results)}')], usage=USAGE
        )
    assert all(isinstance(r.content, str) and len(r.content) == RESULT_CHARS for r in results)
    answer = f'{len(results)} results, last {fingerprint(str(results[-1].content))}'
    return ModelResponse(parts=[TextPart(answer)], usage=USAGE)


reader = Agent(FunctionModel(reads_then_answers), name='reader')
stepper = Agent(FunctionModel(steps_then_answers), name='stepper')


@reader.tool_plain
def fetch(seed: str) -> str:
    """Fetch a large document."""
    return bulky(seed)


@stepper.tool_plain(name='fetch')
def fetch_step(seed: str) -> str:
    """Fetch a large log."""
    return records(seed)


AGENTS = {'reader': reader, 'stepper': stepper}


@dataclass
class RunRecord:
    """What one workflow run of a chain wrote into its history."""

    run_id: str
    history_bytes: int = 0
    turns: int = 0
    model_requests: int = 0
    activity_inputs: list[int] = field(default_factory=list[int])
    loaded_bytes: int = 0
    """Bytes of the pages it read back of the conversation it took over."""

    @property
    def own_bytes(self) -> int:
        """Bytes of its history beyond the conversation it took over."""
        return self.history_bytes - self.loaded_bytes


async def chain_of(client: Client, workflow_id: str) -> list[RunRecord]:
    """Every run of the workflow, first to last, following continue-as-new links back from the latest."""
    records: list[RunRecord] = []
    run_id: str | None = (await client.get_workflow_handle(workflow_id).describe()).run_id
    while run_id:
        history = await client.get_workflow_handle(workflow_id, run_id=run_id).fetch_history()
        record = RunRecord(run_id, history_bytes=sum(event.ByteSize() for event in history.events))
        previous = ''
        loads: set[int] = set()
        for event in history.events:
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
                previous = event.workflow_execution_started_event_attributes.continued_execution_run_id
            elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
                if event.workflow_execution_update_accepted_event_attributes.accepted_request.input.name == (
                    'send_message'
                ):
                    record.turns += 1
            elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
                attributes = event.activity_task_scheduled_event_attributes
                record.activity_inputs.append(sum(p.ByteSize() for p in attributes.input.payloads))
                record.model_requests += attributes.activity_type.name.endswith('.model_request')
                if attributes.activity_type.name.endswith('.history.load'):
                    loads.add(event.event_id)
            elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
                attributes = event.activity_task_completed_event_attributes
                if attributes.scheduled_event_id in loads:
                    record.loaded_bytes += event.ByteSize()
        records.append(record)
        run_id = previous or None
    return records[::-1]


@pytest.mark.slow(36)
async def test_back_to_back_messages_with_480kb_tool_results_never_wedge_a_conversation(
    client: Client, task_queue: str
) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    conversation = f'traffic-{uuid.uuid4()}'
    answers: list[str] = []
    async with build_worker(client, AGENTS, task_queue=task_queue):
        for turn in range(TURNS):
            out = await agents.send_message(
                'reader', conversation_id=conversation, prompt=f'read #{turn}', max_turns_per_run=TURNS_PER_RUN
            )
            answers.append(str(out.output))
        chain = await chain_of(client, conversation_workflow_id('reader', conversation))
        await agents.close_conversation('reader', conversation)
    # Every turn was answered, and saw every earlier result whole.
    assert answers == [f'{i + 1} results, last {fingerprint(bulky(f"r{i}"))}' for i in range(TURNS)]
    # The conversation continued as new at least every `max_turns_per_run` turns (sooner when its history grew
    # large), though each message came at once.
    assert sum(run.turns for run in chain) == TURNS
    assert all(1 <= run.turns <= TURNS_PER_RUN for run in chain), [run.turns for run in chain]
    # No activity input came near the payload limit (the conversation was ~9 MB by the end).
    assert max(size for run in chain for size in run.activity_inputs) < MB
    # Each run's history holds the conversation it took over once, and each of its own turns at a constant cost
    # (the tool's result, the turn's answer and the page the next run reads: ~1.2 MB here): never the square.
    turns_before = 0
    for run in chain:
        assert run.own_bytes < run.turns * 1.5 * MB, (run.turns, run.own_bytes)
        assert run.loaded_bytes <= turns_before * 0.5 * MB, (turns_before, run.loaded_bytes)
        turns_before += run.turns


@pytest.mark.slow(110)
async def test_a_200_step_run_with_480kb_results_continues_as_new_with_small_inputs(
    client: Client, task_queue: str
) -> None:
    steps = 200
    workflow_id = f'steps-{uuid.uuid4()}'
    async with build_worker(client, AGENTS, task_queue=task_queue):
        result: AgentRunOutput = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(
                agent='stepper', prompt=str(steps), usage_limits=UsageLimits(request_limit=None), max_steps_per_run=20
            ),
            id=workflow_id,
            task_queue=task_queue,
        )
        chain = await chain_of(client, workflow_id)
    assert result.output == f'{steps} results, last {fingerprint(records(f"r{steps - 1}"))}'
    # It continued as new at least every 20 steps (sooner as its history grew), and no input came near the limit.
    assert all(run.model_requests <= 21 for run in chain), [run.model_requests for run in chain]
    assert len(chain) >= steps // 20
    assert max(size for run in chain for size in run.activity_inputs) < MB
    # Each run read back at most the budget of results carried whole (the ~96 MB of results went by reference
    # once past it), and each step of its own cost it the same: history grows linearly with the steps.
    for run in chain:
        assert run.loaded_bytes < CARRIED_CONTENT_BUDGET, run.loaded_bytes
        assert run.own_bytes < run.model_requests * 1.5 * MB, (run.model_requests, run.own_bytes)


unreadable_history: list[bool] = []


def reads_or_forgets(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """As `reads_then_answers`, but a user message saying `forget` makes it call `forget` instead of `fetch`."""
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    if any(isinstance(p, UserPromptPart) and p.content == 'forget' for p in last.parts):
        return ModelResponse(parts=[ToolCallPart('forget', {}, 'forget-1')], usage=USAGE)
    if any(isinstance(p, ToolReturnPart) and p.tool_name == 'forget' for p in last.parts):
        return ModelResponse(parts=[TextPart('forgotten')], usage=USAGE)
    return reads_then_answers(messages, info)


amnesiac = Agent(FunctionModel(reads_or_forgets), name='amnesiac')
amnesiac.tool_plain(fetch)


@amnesiac.tool_plain
def forget() -> str:
    """Lose the worker's copy of the conversation, and the way to rebuild it."""
    worker_store.clear()
    unreadable_history.append(True)
    return 'forgot'


async def test_a_request_too_large_to_send_fails_its_turn_and_the_conversation_goes_on(
    client: Client, task_queue: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def recover_unless_unreadable(store: Any, apply_input: Any) -> bool:
        return False if unreadable_history else await recover_from_history(store, apply_input)

    # A worker that lost the conversation and cannot read the run's history either (say it lacks the rights):
    # the workflow's only way left is to send the whole conversation, here ~2.5 MB after compression.
    monkeypatch.setattr(agent_activities, 'recover_from_history', recover_unless_unreadable)
    agents = AgentClient(client, task_queue=task_queue)
    conversation = f'too-large-{uuid.uuid4()}'

    async def send(prompt: str) -> AgentRunOutput:
        return await asyncio.wait_for(
            agents.send_message('amnesiac', conversation_id=conversation, prompt=prompt, max_turns_per_run=50), 120
        )

    async with build_worker(client, {'amnesiac': amnesiac}, task_queue=task_queue):
        for turn in range(7):
            assert (await send(f'read #{turn}')).output == f'{turn + 1} results, last {fingerprint(bulky(f"r{turn}"))}'
        with pytest.raises(WorkflowUpdateFailedError) as failed:
            await send('forget')
        unreadable_history.clear()
        after = await send('read on')
        await agents.close_conversation('amnesiac', conversation)
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == REQUEST_TOO_LARGE
    assert 'more than the 1.4 MB one Temporal payload may take' in cause.message
    # The conversation kept its seven turns, dropped the failed one, and answered the next message.
    assert after.output == f'8 results, last {fingerprint(bulky("r7"))}'
