"""A run records the version of its agent it started on: its status, `AgentVersion`, its details, `agents status`."""

from __future__ import annotations

import logging

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHistory

from agent import Agent
from agent.messages import ToolCallPart
from deploy.search_attributes import register_search_attributes
from worker import build_replayer, build_worker
from workflows import agent_fingerprint
from workflows._registry import set_records_agent_version, unregister
from workflows._search_attributes import AGENT_VERSION, INBOX_ATTRIBUTES
from workflows.client import AgentClient

from ._approvals import wait_for_approval
from ._cli_helpers import command
from ._replay_agents import REPLAY_AGENTS
from .test_agent_workflow import AGENTS, scripted
from .test_replay import HISTORIES, load
from .test_run_search_attributes import _find, _namespace_without_attributes, _upserted_names
from .test_web_ui_details import current_details

pytestmark = pytest.mark.asyncio(loop_scope='session')


def cleaner(instructions: str) -> Agent[None, str]:
    """The agent `cleaner`, which asks to delete a file (an approval); versions differ only in `instructions`."""
    agent = Agent(scripted(ToolCallPart('delete_file', {'path': 'a.txt'}, 'del-a')), instructions=instructions)

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        return f'deleted {path}'

    return agent


def upserted(history: WorkflowHistory) -> list[set[str]]:
    """The names each of the run's search attribute upserts set, in order."""
    return [
        set(event.upsert_workflow_search_attributes_event_attributes.search_attributes.indexed_fields)
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES
    ]


async def test_a_run_shows_the_version_of_its_agent_in_its_status_search_attribute_details_and_agents_status(
    client: Client, task_queue: str
) -> None:
    version = agent_fingerprint(AGENTS['approval_agent'])
    agents = AgentClient(client, task_queue=task_queue)
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await agents.start('approval_agent', 'clean up')
        await wait_for_approval(agents, handle.id)
        status = await agents.status(handle.id)
        details = await current_details(handle)
        shown = await command('status', handle.id, address=client.service_client.config.target_host,
                              task_queue=task_queue)  # fmt: skip
        runs = await _find(client, f"AgentVersion = '{version}' AND WorkflowId = '{handle.id}'")
        await agents.approve(handle.id, approvals={'del-a': True, 'del-b': False})
        await handle.result()
    assert status.agent_version == version
    assert f'\n\nAgent version {version}' in details
    assert shown.code == 0, shown
    assert f'  agent version: {version}' in shown.out.splitlines()
    assert runs[0].typed_search_attributes.get(AGENT_VERSION) == version


async def test_a_worker_with_a_changed_agent_shows_the_version_a_waiting_run_started_on(
    client: Client, task_queue: str
) -> None:
    old, new = cleaner('Delete what is asked.'), cleaner('Delete what is asked, carefully.')
    assert agent_fingerprint(old) != agent_fingerprint(new)
    agents = AgentClient(client, task_queue=task_queue)
    async with build_worker(client, {'cleaner': old}, task_queue=task_queue):
        handle = await agents.start('cleaner', 'clean up')
        await wait_for_approval(agents, handle.id)
    # A worker of the changed agent replays the run (a fresh worker has nothing cached), and finishes it.
    async with build_worker(client, {'cleaner': new}, task_queue=task_queue):
        replayed = await agents.status(handle.id)
        await agents.approve(handle.id, approvals={'del-a': True})
        await handle.result()
        ended = await agents.status(handle.id)
        later = await agents.start('cleaner', 'clean up')
        await wait_for_approval(agents, later.id)
        started_now = await agents.status(later.id)
        await agents.approve(later.id, approvals={'del-a': False})
        await later.result()
    assert (replayed.agent_version, ended.agent_version) == (agent_fingerprint(old),) * 2
    assert started_now.agent_version == agent_fingerprint(new)
    described = await handle.describe()
    assert described.typed_search_attributes.get(AGENT_VERSION) == agent_fingerprint(old)
    # The recorded history replays on the changed agent's code.
    history = await handle.fetch_history()
    try:
        result = await build_replayer({'cleaner': new}).replay_workflow(history, raise_on_replay_failure=True)
    finally:
        unregister('cleaner')
    assert result.replay_failure is None


@pytest.mark.parametrize('told', [None, True], ids=['asked', 'told to record'])
async def test_a_namespace_without_agent_version_keeps_its_inbox_and_runs_show_their_version(
    client: Client, task_queue: str, caplog: pytest.LogCaptureFixture, told: bool | None
) -> None:
    # Told to record the attributes (`search_attributes=True`), the worker still asks about AgentVersion alone: a
    # namespace registered before it existed would fail every run's workflow task that upserts it.
    bare = await _namespace_without_attributes(client)
    await register_search_attributes(bare, attributes=INBOX_ATTRIBUTES)
    agents = AgentClient(bare, task_queue=task_queue)
    with caplog.at_level(logging.WARNING, logger='workflows.search_attributes'):
        async with build_worker(bare, AGENTS, task_queue=task_queue, search_attributes=told):
            handle = await agents.start('approval_agent', 'clean up')
            await wait_for_approval(agents, handle.id)
            status = await agents.status(handle.id)
            await agents.approve(handle.id, approvals={'del-a': True, 'del-b': True})
            await handle.result()
    assert status.agent_version == agent_fingerprint(AGENTS['approval_agent'])
    upserted = await _upserted_names(handle)
    assert {'AgentName', 'AgentState', 'PendingApprovals'} <= upserted  # the inbox (the run names no owner)
    assert AGENT_VERSION.name not in upserted
    lines = [record.getMessage() for record in caplog.records if record.name == 'workflows.search_attributes']
    if told is None:
        assert len(lines) == 1
        assert f"namespace '{bare.namespace}' lacks AgentVersion" in lines[0]


async def test_recording_the_version_adds_no_event_the_run_would_not_record_anyway(
    client: Client, task_queue: str
) -> None:
    agents = AgentClient(client, task_queue=task_queue)
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await agents.start('approval_agent', 'clean up')
        await wait_for_approval(agents, handle.id)
        await agents.approve(handle.id, approvals={'del-a': True, 'del-b': False})
        await handle.result()
    history = await handle.fetch_history()
    markers = [e for e in history.events if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED]
    assert len(markers) == 1  # the search attributes' patch: no marker, no activity of the version's own
    first, start, *later = upserted(history)
    assert first == {'TemporalChangeVersion'}  # that patch's
    assert {'AgentName', 'AgentVersion'} <= start  # one upsert as the run starts, the version with the others
    assert not [names for names in later if 'AgentVersion' in names]


async def test_a_run_continued_as_new_on_a_changed_worker_keeps_the_version_it_started_on(
    client: Client, task_queue: str
) -> None:
    old, new = cleaner('Delete what is asked.'), cleaner('Delete what is asked, carefully.')
    agents = AgentClient(client, task_queue=task_queue)
    async with build_worker(client, {'cleaner': old}, task_queue=task_queue):
        # One model request per workflow run: the run continues as new before its second, on the changed worker.
        handle = await agents.start('cleaner', 'clean up', max_steps_per_run=1)
        await wait_for_approval(agents, handle.id)
    async with build_worker(client, {'cleaner': new}, task_queue=task_queue):
        await agents.approve(handle.id, approvals={'del-a': True})
        assert (await handle.result()).output == 'delete_file=deleted a.txt'
        ended = await agents.status(handle.id)
    described = await handle.describe()
    assert described.run_id != handle.first_execution_run_id
    assert ended.agent_version == agent_fingerprint(old)
    assert described.typed_search_attributes.get(AGENT_VERSION) == agent_fingerprint(old)
    # The next run carried the version and its attributes over: it upserted no version of its own.
    assert not [names for names in upserted(await handle.fetch_history()) if AGENT_VERSION.name in names]


@pytest.mark.parametrize('stem', [path.stem for path in HISTORIES])
async def test_histories_recorded_by_other_code_replay_where_runs_record_their_version(stem: str) -> None:
    # The version rides on the run's start upsert, whose contents a replay does not compare: a history recorded
    # without `AgentVersion` (or with another version) replays on a worker that would upsert its own.
    set_records_agent_version('replay-queue', True)
    try:
        result = await build_replayer(REPLAY_AGENTS).replay_workflow(load(stem), raise_on_replay_failure=True)
    finally:
        set_records_agent_version('replay-queue', False)
    assert result.replay_failure is None
