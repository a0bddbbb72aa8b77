"""The `messages` query, the `wait_for_turn` update and the owner check of conversation updates (real dev server)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError, WorkflowUpdateStage
from temporalio.exceptions import ApplicationError

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from agent.models.function import AgentInfo, FunctionModel
from doors.chat._conversation_messages import read_messages
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow, ConversationMessage, HistoryHandoff, MessagePage
from workflows import _handoff as handoff_module
from workflows._types import (
    NOT_OWNER,
    Caller,
    CancelTurn,
    CancelTurnResult,
    ConversationPage,
    WaitForTurn,
    WaitForTurnResult,
)

from .test_agent_workflow import wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope='session')

BOUND = 5.0
tool_started = asyncio.Event()
release_tool = asyncio.Event()


def _prompt(messages: list[ModelMessage]) -> str:
    return next(
        str(p.content)
        for m in reversed(messages)
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, UserPromptPart)
    )


def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """'slow': calls the slow tool; 'delete ...': says so and calls `delete_file`; else echoes the prompt."""
    last = messages[-1]
    if any(p.part_kind == 'tool-return' for p in last.parts):
        return ModelResponse(parts=[TextPart('done')])
    prompt = _prompt(messages)
    if prompt == 'slow':
        return ModelResponse(parts=[ToolCallPart('slow_tool', {}, 'slow-1')])
    if prompt.startswith('delete'):
        return ModelResponse(parts=[TextPart('Deleting.'), ToolCallPart('delete_file', {'path': 'a.txt'}, 'del-1')])
    return ModelResponse(parts=[TextPart(f'echo: {prompt}')])


talker = Agent(FunctionModel(respond), name='talker')


@talker.tool_plain
async def slow_tool() -> str:
    tool_started.set()
    await release_tool.wait()
    return 'finished'


@talker.tool_plain(requires_approval=True)
def delete_file(path: str) -> str:
    return f'deleted {path}'


AGENTS = {'talker': talker}


def shown(messages: list[ModelMessage]) -> list[tuple[str, list[str]]]:
    """Each message's kind and parts: a part's text or prompt, a tool call's name."""
    out: list[tuple[str, list[str]]] = []
    for message in messages:
        parts: list[str] = []
        for part in message.parts:
            if isinstance(part, TextPart | UserPromptPart):
                parts.append(str(part.content))
            elif isinstance(part, ToolCallPart):
                parts.append(f'call {part.tool_name}')
            else:
                parts.append(part.part_kind)
        out.append((message.kind, parts))
    return out


async def _conversation(client: Client, task_queue: str, **fields: Any) -> WorkflowHandle[Any, Any]:
    return await client.start_workflow(
        AgentWorkflow.run,
        AgentRunInput(agent='talker', conversation=True, **fields),
        id=f'handlers-{uuid.uuid4()}',
        task_queue=task_queue,
    )


async def _messages(handle: WorkflowHandle[Any, Any], page: MessagePage | None = None) -> ConversationPage:
    return await handle.query(AgentWorkflow.messages, page or MessagePage())


async def _wait(handle: WorkflowHandle[Any, Any], request: WaitForTurn | None = None) -> WaitForTurnResult:
    args = [request] if request is not None else []
    return await handle.execute_update('wait_for_turn', args=args, result_type=WaitForTurnResult)


async def _send(handle: WorkflowHandle[Any, Any], prompt: str, update_id: str, owner: str | None = None) -> Any:
    return await handle.start_update(
        'send_message',
        ConversationMessage(prompt, owner=owner),
        id=update_id,
        wait_for_stage=WorkflowUpdateStage.ACCEPTED,
        result_type=AgentRunOutput,
    )


async def _close(handle: WorkflowHandle[Any, Any]) -> None:
    await handle.signal(AgentWorkflow.close_conversation)
    await handle.result()


async def test_messages_show_the_completed_turns_then_the_running_turn_so_far(client: Client, task_queue: str):
    tool_started.clear()
    release_tool.clear()
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await _conversation(client, task_queue)
        await handle.execute_update('send_message', ConversationMessage('hi'), result_type=AgentRunOutput)
        running = await _send(handle, 'slow', 'turn-2')
        await asyncio.wait_for(tool_started.wait(), BOUND)
        during = await _messages(handle)
        release_tool.set()
        await running.result()
        after = await _messages(handle)
        await _close(handle)

    assert shown(during.messages) == [
        ('request', ['hi']),
        ('response', ['echo: hi']),
        ('request', ['slow']),
        ('response', ['call slow_tool']),
    ]
    assert during.total == 4
    assert during.turn is not None
    assert (during.turn.start, during.turn.update_id, during.turn.awaiting_deferred_tools) == (2, 'turn-2', False)
    assert shown(after.messages)[2:] == [
        ('request', ['slow']),
        ('response', ['call slow_tool']),
        ('request', ['tool-return']),
        ('response', ['done']),
    ]
    assert after.turn is None


async def test_messages_of_a_turn_waiting_for_approval_end_with_what_the_model_said(client: Client, task_queue: str):
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await _conversation(client, task_queue)
        await _send(handle, 'delete it', 'turn-1')
        await wait_for_status(handle, 'awaiting_deferred_tools')
        waiting = await _messages(handle)
        await handle.terminate()

    assert shown(waiting.messages) == [('request', ['delete it']), ('response', ['Deleting.', 'call delete_file'])]
    assert waiting.turn is not None
    assert (waiting.turn.start, waiting.turn.awaiting_deferred_tools) == (0, True)


async def test_messages_of_a_single_run_are_its_history_so_far(client: Client, task_queue: str):
    earlier: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('before')]),
        ModelResponse(parts=[TextPart('earlier answer')]),
    ]
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='talker', prompt='delete it', message_history=earlier),
            id=f'handlers-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        await wait_for_status(handle, 'awaiting_deferred_tools')
        waiting = await _messages(handle)
        await handle.terminate()

    assert shown(waiting.messages) == [
        ('request', ['before']),
        ('response', ['earlier answer']),
        ('request', ['delete it']),
        ('response', ['Deleting.', 'call delete_file']),
    ]
    assert waiting.turn is not None
    assert (waiting.turn.start, waiting.turn.update_id, waiting.turn.awaiting_deferred_tools) == (2, None, True)


async def test_messages_come_a_page_at_a_time(client: Client, task_queue: str):
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await _conversation(client, task_queue)
        for prompt in ('one', 'two', 'three'):
            await handle.execute_update('send_message', ConversationMessage(prompt), result_type=AgentRunOutput)
        page = await _messages(handle, MessagePage(offset=2, limit=2))
        beyond = await _messages(handle, MessagePage(offset=10))
        await _close(handle)

    assert shown(page.messages) == [('request', ['two']), ('response', ['echo: two'])]
    assert page.total == 6
    assert (beyond.messages, beyond.total) == ([], 6)


async def test_messages_name_the_earlier_run_until_its_handed_over_history_is_loaded(client: Client, task_queue: str):
    handed: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('long ago')]),
        ModelResponse(parts=[TextPart('an old answer')]),
    ]
    async with build_worker(client, AGENTS, task_queue=task_queue):
        earlier = await _conversation(client, task_queue, message_history=handed)
        await _close(earlier)
        run_id = (await earlier.describe()).run_id
    handoff = HistoryHandoff(earlier.id, run_id, len(handed))
    # A worker that takes no activities: the run cannot load the handed-over history, so it stays in its first moments.
    async with build_worker(client, AGENTS, task_queue=task_queue, no_remote_activities=True):
        later = await _conversation(
            client, task_queue, history_from=handoff, message_history=[ModelRequest(parts=[UserPromptPart('since')])]
        )
        held = await _messages(later)
        read = await read_messages(client, later.id)
        await later.terminate()

    assert shown(held.messages) == [('request', ['since'])]
    assert held.history_from == handoff
    assert shown(read.messages) == [('request', ['long ago']), ('response', ['an old answer']), ('request', ['since'])]


async def test_messages_include_the_history_handed_over_by_reference_at_continue_as_new(
    client: Client, task_queue: str, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(handoff_module, 'PLAIN_HISTORY_BUDGET', 0)  # every history travels by reference
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await _conversation(client, task_queue, max_turns_per_run=1)
        first_run = (await handle.describe()).run_id
        await handle.execute_update('send_message', ConversationMessage('one'), result_type=AgentRunOutput)
        async with asyncio.timeout(BOUND):
            while True:  # the run continues as new once the turn is over
                if (await handle.describe()).run_id != first_run:
                    break
                await asyncio.sleep(0.05)
        await handle.execute_update('send_message', ConversationMessage('two'), result_type=AgentRunOutput)
        async with asyncio.timeout(BOUND):
            # The run that answered `two` continued as new in the same task: the latest run reads the conversation
            # back first, and its messages name the earlier run until then.
            while True:
                now = await _messages(handle)
                if now.history_from is None:
                    break
                await asyncio.sleep(0.05)
        await _close(handle)

    assert shown(now.messages) == [
        ('request', ['one']),
        ('response', ['echo: one']),
        ('request', ['two']),
        ('response', ['echo: two']),
    ]
    assert now.history_from is None


async def test_wait_for_turn_returns_the_pending_calls_once_the_turn_waits_then_how_it_ended(
    client: Client, task_queue: str
):
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await _conversation(client, task_queue)
        turn = await _send(handle, 'delete it', 'turn-1')
        waiting = await _wait(handle)  # sent before the model answered: it returns once the wait begins
        status = await handle.query(AgentWorkflow.status)
        await handle.execute_update(AgentWorkflow.resolve_deferred_tools, {'approvals': {'del-1': True}})
        ended = await _wait(handle, WaitForTurn(update_id='turn-1'))
        result = await turn.result()
        await _close(handle)

    assert waiting.state == 'awaiting_deferred_tools'
    assert waiting.pending is not None
    assert waiting.pending.tool_call_ids == ['del-1']
    assert status.state == 'awaiting_deferred_tools'
    assert ended == WaitForTurnResult('completed')
    assert result.output == 'done'


async def test_wait_for_turn_says_a_cancelled_turn_was_cancelled(client: Client, task_queue: str):
    tool_started.clear()
    release_tool.clear()
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await _conversation(client, task_queue)
        await _send(handle, 'slow', 'turn-1')
        waiting = asyncio.create_task(_wait(handle, WaitForTurn(update_id='turn-1')))
        await asyncio.wait_for(tool_started.wait(), BOUND)
        cancelled = await handle.execute_update('cancel_turn', result_type=CancelTurnResult)
        outcome = await asyncio.wait_for(waiting, BOUND)
        await _close(handle)

    assert cancelled.cancelled
    assert outcome == WaitForTurnResult('cancelled')


async def test_wait_for_turn_without_a_turn_is_rejected(client: Client, task_queue: str):
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await _conversation(client, task_queue)
        with pytest.raises(WorkflowUpdateFailedError) as idle:
            await _wait(handle)
        with pytest.raises(WorkflowUpdateFailedError) as unknown:
            await _wait(handle, WaitForTurn(update_id='never-sent'))
        await _close(handle)

    assert 'No turn is running or queued' in str(idle.value.cause)
    assert "No turn of this run came by update 'never-sent'" in str(unknown.value.cause)


async def _accepted_updates(handle: WorkflowHandle[Any, Any]) -> list[str]:
    accepted = EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED
    events = [event async for event in handle.fetch_history_events()]
    return [e.workflow_execution_update_accepted_event_attributes.accepted_request.input.name
            for e in events if e.event_type == accepted]  # fmt: skip


async def test_updates_from_another_owner_are_rejected_before_they_reach_history(client: Client, task_queue: str):
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await _conversation(client, task_queue, owner='alice')
        await _send(handle, 'delete it', 'turn-1', owner='alice')
        await wait_for_status(handle, 'awaiting_deferred_tools')
        attempts = {
            'send_message': handle.execute_update(
                'send_message', ConversationMessage('mine now', owner='bob'), result_type=AgentRunOutput
            ),
            'wait_for_turn': _wait(handle, WaitForTurn(owner='bob')),
            'resolve_deferred_tools': handle.execute_update(
                AgentWorkflow.resolve_deferred_tools, args=[{'approvals': {'del-1': True}}, Caller('bob')]
            ),
            'cancel_turn': handle.execute_update('cancel_turn', CancelTurn(owner='bob'), result_type=CancelTurnResult),
        }
        causes: dict[str, Any] = {}
        for name, attempt in attempts.items():
            with pytest.raises(WorkflowUpdateFailedError) as rejected:
                await attempt
            causes[name] = rejected.value.cause
        waiting = await _wait(handle, WaitForTurn(owner='alice'))
        await handle.execute_update(
            AgentWorkflow.resolve_deferred_tools, args=[{'approvals': {'del-1': True}}, Caller('alice')]
        )
        await _wait(handle, WaitForTurn(update_id='turn-1'))  # no owner: operators' tools are not checked
        accepted = await _accepted_updates(handle)
        await _close(handle)

    for name, cause in causes.items():
        assert isinstance(cause, ApplicationError), name
        assert cause.type == NOT_OWNER, name
        assert "'bob' does not own this run" in cause.message
    assert waiting.state == 'awaiting_deferred_tools'
    assert accepted == ['send_message', 'wait_for_turn', 'resolve_deferred_tools', 'wait_for_turn']
