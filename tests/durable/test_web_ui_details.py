"""What the Temporal Web UI shows of a run, read through the server's API as the UI reads it.

Activity summaries are the `user_metadata.summary` of `ActivityTaskScheduled` events; the static summary and
details come from `describe()`; the current details are answered by the run itself, through the
`__temporal_workflow_metadata` query the UI sends (they are not stored on the server).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from typing import Any

import pytest
from temporalio.api.history.v1 import History
from temporalio.api.query.v1 import WorkflowQuery
from temporalio.api.sdk.v1 import WorkflowMetadata
from temporalio.api.workflowservice.v1 import QueryWorkflowRequest
from temporalio.client import Client, WorkflowHandle

from agent import Agent, ToolDenied
from agent.messages import ToolCallPart
from agent.models import Model
from worker import build_replayer, build_worker
from workflows import ApprovalRule, DurableAgent, EncryptionCodec, agent_fingerprint, with_encryption
from workflows.client import AgentClient

from .test_agent_workflow import AGENTS, scripted, wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope='session')

METADATA_QUERY = '__temporal_workflow_metadata'

PROMPT = 'File my notes, passphrase wombat-7713'
NOTE = 'dentist-4410 on Tuesday'

note_agent = Agent(scripted(ToolCallPart('file_note', {'text': NOTE}, 'note-1')), name='note_agent')


@note_agent.tool_plain(requires_approval=True)
def file_note(text: str) -> str:
    """Files a note (after a human approves)."""
    return f'filed {text}'


UI_AGENTS = {**AGENTS, 'note_agent': note_agent}


async def activity_summaries(client: Client, workflow_id: str) -> list[tuple[str, str]]:
    """`(activity type, summary)` of each activity the run scheduled, summaries decoded by `client`'s converter."""
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    summaries: list[tuple[str, str]] = []
    for event in history.events:
        if event.HasField('activity_task_scheduled_event_attributes'):
            [summary] = await client.data_converter.decode([event.user_metadata.summary], [str])
            summaries.append((event.activity_task_scheduled_event_attributes.activity_type.name, summary))
    return summaries


async def current_details(handle: WorkflowHandle[Any, Any]) -> str:
    metadata: WorkflowMetadata = await handle.query(METADATA_QUERY, result_type=WorkflowMetadata)
    return metadata.current_details


def version(agent: Agent[Any, Any] | DurableAgent) -> str:
    """The line of the current details that says which version of its agent the run started on."""
    return f'\n\nAgent version {agent_fingerprint(agent)}'


async def wait_for_details(handle: WorkflowHandle[Any, Any], expected: str) -> None:
    async with asyncio.timeout(5):
        while True:
            if await current_details(handle) == expected:
                return
            await asyncio.sleep(0.05)


async def test_each_activity_summary_names_its_tool_call_or_its_model_and_step(client: Client, task_queue: str) -> None:
    async with build_worker(client, UI_AGENTS, task_queue=task_queue):
        agents = AgentClient(client, task_queue=task_queue)
        handle = await agents.start('lookup_agent', 'What is my balance?', deps={'owner': 'ada'})
        await handle.result()
    model = AGENTS['lookup_agent'].model
    assert isinstance(model, Model)
    assert await activity_summaries(client, handle.id) == [
        ('agent.lookup_agent.model_request', f'{model.label} (step 1)'),
        ('agent.lookup_agent.call_tool', "lookup(key='balance')"),
        ('agent.lookup_agent.call_tool', 'owner()'),
        ('agent.lookup_agent.model_request', f'{model.label} (step 2)'),
    ]


async def test_a_history_with_summaries_replays_without_nondeterminism(client: Client, task_queue: str) -> None:
    async with build_worker(client, UI_AGENTS, task_queue=task_queue):
        handle = await AgentClient(client, task_queue=task_queue).start('approval_agent', 'clean up')
        await wait_for_status(handle, 'awaiting_deferred_tools')
        await AgentClient(client, task_queue=task_queue).approve(handle.id, approvals={'del-a': True, 'del-b': False})
        await handle.result()
    history = await handle.fetch_history()
    assert any(event.user_metadata.HasField('summary') for event in history.events)
    result = await build_replayer(UI_AGENTS).replay_workflow(history, raise_on_replay_failure=True)
    assert result.replay_failure is None


async def test_a_started_run_shows_its_agent_and_the_start_of_its_prompt(client: Client, task_queue: str) -> None:
    prompt = 'Please tidy up the shared drive: ' + 'old drafts, ' * 20
    async with build_worker(client, UI_AGENTS, task_queue=task_queue):
        handle = await AgentClient(client, task_queue=task_queue).start('lookup_agent', prompt, deps={'owner': 'ada'})
        await handle.result()
    description = await handle.describe()
    summary = await description.static_summary()
    assert summary is not None
    assert len(summary) == 80
    assert summary.startswith('lookup_agent: Please tidy up the shared drive: old drafts,')
    assert summary.endswith('…')
    details = await description.static_details()
    assert details is not None
    assert details.splitlines()[0] == '- Agent: lookup_agent'
    assert details.splitlines()[1].startswith('- Prompt: Please tidy up the shared drive: old drafts, old drafts,')


async def test_the_current_details_say_which_approvals_the_run_waits_for(client: Client, task_queue: str) -> None:
    async with build_worker(client, UI_AGENTS, task_queue=task_queue):
        agents = AgentClient(client, task_queue=task_queue)
        handle = await agents.start('approval_agent', 'clean up')
        await wait_for_status(handle, 'awaiting_deferred_tools')
        started_on = version(AGENTS['approval_agent'])
        assert await current_details(handle) == (
            "- Waiting for approval: delete_file(path='a.txt')\n- Waiting for approval: delete_file(path='b.txt')"
            + started_on
        )
        await agents.approve(handle.id, approvals={'del-a': True})
        await wait_for_details(handle, "Waiting for approval: delete_file(path='b.txt')" + started_on)
        await agents.approve(handle.id, approvals={'del-b': True})
        await handle.result()
        # Once decided, the approvals are listed under what the run is doing, each with who answered.
        assert await current_details(handle) == (
            f'Completed{started_on}\n\nDecisions:\n'
            f'- del-a delete_file: approved by {client.identity}\n- del-b delete_file: approved by {client.identity}'
        )


async def test_the_current_details_list_who_decided_each_call_under_the_approval_rules(
    client: Client, task_queue: str
) -> None:
    rules = {'delete_file': ApprovalRule(approvers={'alice', 'bob'}, required_approvals=2)}
    ruled = DurableAgent(AGENTS['approval_agent'], approval_rules=rules)
    async with build_worker(client, {'approval_agent': ruled}, task_queue=task_queue):
        agents = AgentClient(client, task_queue=task_queue)
        handle = await agents.start('approval_agent', 'clean up')
        await wait_for_status(handle, 'awaiting_deferred_tools')
        await agents.approve(handle.id, approvals={'del-a': True}, caller='alice')
        await agents.approve(handle.id, approvals={'del-b': ToolDenied('keep b.txt')}, caller='bob')
        # One of the two approvals del-a needs is no decision yet: the run still waits for it.
        await wait_for_details(handle, "Waiting for approval: delete_file(path='a.txt')" + version(ruled))
        await agents.approve(handle.id, approvals={'del-a': True}, caller='bob')
        await handle.result()
        assert await current_details(handle) == (
            f'Completed{version(ruled)}\n\nDecisions:\n'
            '- del-a delete_file: approved by alice, bob\n'
            '- del-b delete_file: denied by bob: keep b.txt'
        )


async def test_with_encryption_the_history_and_details_hold_no_argument_or_prompt_in_plain_text(
    client: Client, task_queue: str
) -> None:
    encrypted = with_encryption(client, EncryptionCodec({'ui': os.urandom(32)}))
    workflow_id = f'ui-encrypted-{uuid.uuid4()}'
    async with build_worker(encrypted, UI_AGENTS, task_queue=task_queue):
        agents = AgentClient(encrypted, task_queue=task_queue)
        handle = await agents.start('note_agent', PROMPT, workflow_id=workflow_id)
        await wait_for_status(handle, 'awaiting_deferred_tools')
        # An operator holding the key (the Web UI through the codec endpoint) reads what the run waits for ...
        assert await current_details(handle) == f"Waiting for approval: file_note(text='{NOTE}')" + version(note_agent)
        # ... while the server only ever relays ciphertext.
        answer = await client.workflow_service.query_workflow(
            QueryWorkflowRequest(
                namespace=client.namespace,
                execution=(await handle.describe()).raw_description.workflow_execution_info.execution,
                query=WorkflowQuery(query_type=METADATA_QUERY),
            )
        )
        assert NOTE.encode() not in answer.SerializeToString()
        await agents.approve(workflow_id, approvals={'note-1': True})
        await handle.result()
    stored = History(events=(await client.get_workflow_handle(workflow_id).fetch_history()).events)
    assert [secret for secret in (PROMPT, NOTE) if secret.encode() in stored.SerializeToString()] == []
    summaries = await activity_summaries(encrypted, workflow_id)
    assert ('agent.note_agent.call_tool', f"file_note(text='{NOTE}')") in summaries
    description = await encrypted.get_workflow_handle(workflow_id).describe()
    assert await description.static_summary() == f'note_agent: {PROMPT}'
