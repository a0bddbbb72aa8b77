"""Runs record their agent, owner, state and pending approvals as search attributes (the approvals inbox)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from datetime import timedelta
from typing import Any

import pytest
from google.protobuf.duration_pb2 import Duration
from temporalio.api.enums.v1 import EventType
from temporalio.api.workflowservice.v1 import RegisterNamespaceRequest
from temporalio.client import Client, WorkflowExecution, WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import decode_typed_search_attributes
from temporalio.service import RPCError

from worker import build_replayer, build_worker
from workflows import AgentRunInput, AgentWorkflow
from workflows._search_attributes import AGENT_NAME, AGENT_OWNER, AGENT_STATE, PENDING_APPROVALS

from .test_agent_workflow import AGENTS, wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope='session')


async def _find(client: Client, query: str) -> list[WorkflowExecution]:
    """The runs `query` finds once visibility has caught up (it is eventually consistent), within 10 s."""
    async with asyncio.timeout(10):
        while True:
            found = [execution async for execution in client.list_workflows(query)]
            if found:
                return found
            await asyncio.sleep(0.1)


async def _recorded(handle: WorkflowHandle[Any, Any]) -> list[tuple[str | None, int | None]]:
    """The (AgentState, PendingApprovals) of each upsert of the runs' attributes in the history, in order.

    Upserts of neither are left out: taking a patch upserts Temporal's own `TemporalChangeVersion`.
    """
    history = await handle.fetch_history()
    recorded: list[tuple[str | None, int | None]] = []
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
            attributes = decode_typed_search_attributes(
                event.upsert_workflow_search_attributes_event_attributes.search_attributes
            )
            values = (attributes.get(AGENT_STATE), attributes.get(PENDING_APPROVALS))
            if values != (None, None):
                recorded.append(values)
    return recorded


async def _upserted_names(handle: WorkflowHandle[Any, Any]) -> set[str]:
    """The names of the search attributes the run upserted."""
    history = await handle.fetch_history()
    return {
        name
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES
        for name in event.upsert_workflow_search_attributes_event_attributes.search_attributes.indexed_fields
    }


async def test_a_conversation_waiting_on_an_approval_is_found_by_state_and_owner(
    client: Client, task_queue: str
) -> None:
    owner = f'alice-{uuid.uuid4().hex[:8]}'
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='approval_agent', prompt='clean up', conversation=True, owner=owner),
            id=f'inbox-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        waiting = await _find(client, f"AgentState = 'awaiting_deferred_tools' AND AgentOwner = '{owner}'")
        await handle.execute_update(AgentWorkflow.resolve_deferred_tools, {'approvals': {'del-a': True}})
        await handle.execute_update(AgentWorkflow.resolve_deferred_tools, {'approvals': {'del-b': False}})
        idle = await _find(client, f"AgentState = 'awaiting_message' AND AgentOwner = '{owner}'")
        await handle.signal(AgentWorkflow.close_conversation)
        await handle.result()
    assert [execution.id for execution in waiting] == [handle.id]
    attributes = waiting[0].typed_search_attributes
    assert (attributes.get(AGENT_NAME), attributes.get(PENDING_APPROVALS)) == ('approval_agent', 2)
    assert [execution.id for execution in idle] == [handle.id]
    assert idle[0].typed_search_attributes.get(PENDING_APPROVALS) == 0
    # One upsert per change, none per step: the first records the run, then each change of state or count.
    assert await _recorded(handle) == [
        ('running', 0),
        ('awaiting_deferred_tools', 2),
        (None, 1),
        ('running', 0),
        ('awaiting_message', None),
        ('completed', None),
    ]
    final = (await handle.describe()).typed_search_attributes
    assert (final.get(AGENT_OWNER), final.get(AGENT_STATE)) == (owner, 'completed')


async def test_a_run_that_recorded_search_attributes_replays(client: Client, task_queue: str) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='approval_agent', prompt='clean up', owner='bob'),
            id=f'inbox-replay-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        await wait_for_status(handle, 'awaiting_deferred_tools')
        await handle.execute_update(AgentWorkflow.resolve_deferred_tools, {'approvals': {'del-a': True, 'del-b': True}})
        await handle.result()
    history = await handle.fetch_history()
    assert any(e.event_type == EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES for e in history.events)
    # The replayer knows nothing of the namespace: the patch marker in the history decides for it.
    result = await build_replayer(AGENTS).replay_workflow(history, raise_on_replay_failure=True)
    assert result.replay_failure is None


async def _namespace_without_attributes(client: Client) -> Client:
    """A fresh namespace on the test server (the dev server registers the attributes only on its own)."""
    name = f'bare-{uuid.uuid4().hex[:8]}'
    await client.workflow_service.register_namespace(
        RegisterNamespaceRequest(namespace=name, workflow_execution_retention_period=Duration(seconds=86400))
    )
    bare = await Client.connect(
        client.service_client.config.target_host, namespace=name, data_converter=pydantic_data_converter
    )
    async with asyncio.timeout(30):  # the server takes a moment to serve a new namespace
        while True:
            try:
                [_ async for _ in bare.list_workflows(page_size=1)]
                return bare
            except RPCError:
                await asyncio.sleep(0.2)


async def test_a_worker_on_a_namespace_without_the_attributes_runs_and_says_how_to_register_them(
    client: Client, task_queue: str, caplog: pytest.LogCaptureFixture
) -> None:
    bare = await _namespace_without_attributes(client)
    with caplog.at_level(logging.WARNING, logger='workflows.search_attributes'):
        async with build_worker(bare, AGENTS, task_queue=task_queue):
            handle = await bare.start_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='approval_agent', prompt='clean up', owner='carol'),
                id=f'bare-{uuid.uuid4()}',
                task_queue=task_queue,
                execution_timeout=timedelta(seconds=30),
            )
            await wait_for_status(handle, 'awaiting_deferred_tools')
            await handle.execute_update(AgentWorkflow.resolve_deferred_tools, {'approvals': {'del-a': True}})
            await handle.signal(AgentWorkflow.submit_deferred_tool_results, {'approvals': {'del-b': True}})
            result = await handle.result()
    assert result.output == 'delete_file=deleted a.txt; delete_file=deleted b.txt'
    history = await handle.fetch_history()
    assert not [e for e in history.events if e.event_type == EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES]
    lines = [record.getMessage() for record in caplog.records if record.name == 'workflows.search_attributes']
    assert len(lines) == 1
    assert f"namespace '{bare.namespace}' lacks AgentName, AgentState, PendingApprovals, AgentOwner" in lines[0]
    assert f'python -m deploy.search_attributes --namespace {bare.namespace}' in lines[0]


async def test_a_worker_told_not_to_record_search_attributes_records_none(client: Client, task_queue: str) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue, search_attributes=False):
        handle = await client.start_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='lookup_agent', prompt='What is my balance?', deps={'owner': 'ada'}),
            id=f'quiet-{uuid.uuid4()}',
            task_queue=task_queue,
        )
        await handle.result()
    assert await _recorded(handle) == []
