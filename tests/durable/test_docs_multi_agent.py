"""docs/multi-agent.md's example runs as written against the suite's dev server (`tests/test_docs_python.py` runs it
with a dev server of its own): it prints what the page says, and the durable run it leaves behind has the
researcher's run as its child."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from tests._docs import blocks

from .test_docs_approval_rules import SuiteServer

pytestmark = pytest.mark.asyncio(loop_scope='session')

PAGE = 'docs/multi-agent.md'
SECTION = 'Delegation: a tool runs another agent'
RUN = 'asyncio.run(main())'


async def run_example(temporal_env: WorkflowEnvironment, section: str) -> None:
    """Run the page's Python example of `section` as written, its dev server the suite's (`SuiteServer`)."""
    (example,) = blocks(PAGE, 'python', section=section)
    assert example.source.rstrip().endswith(RUN)
    namespace: dict[str, Any] = {'__name__': 'docs_example'}
    exec(compile(example.source.replace(RUN, ''), f'{PAGE}:{example.line}', 'exec'), namespace)

    async def start_dev_server() -> SuiteServer:
        return SuiteServer(temporal_env)

    namespace['start_dev_server'] = start_dev_server
    await asyncio.wait_for(namespace['main'](), 60)


async def test_the_delegation_example_runs_as_written_with_the_researcher_as_a_child_run(
    temporal_env: WorkflowEnvironment, client: Client, capsys: pytest.CaptureFixture[str]
) -> None:
    await run_example(temporal_env, SECTION)
    (printed,) = blocks(PAGE, 'text', section=SECTION)
    assert capsys.readouterr().out == printed.source
    events = (await client.get_workflow_handle('tides-1').fetch_history()).events
    children = [
        e.start_child_workflow_execution_initiated_event_attributes
        for e in events
        if e.event_type == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED
    ]
    assert [(child.workflow_type.name, child.workflow_id.startswith('tides-1.')) for child in children] == [
        ('AgentWorkflow', True)
    ]


async def test_the_hand_off_example_runs_as_written_in_one_conversation_workflow(
    temporal_env: WorkflowEnvironment, client: Client, capsys: pytest.CaptureFixture[str]
) -> None:
    section = 'Programmatic hand-off'
    await run_example(temporal_env, section)
    (printed,) = blocks(PAGE, 'text', section=section)
    assert capsys.readouterr().out == printed.source
    # Both agents answered in the one workflow of the conversation, triage's turn first.
    events = (await client.get_workflow_handle('agent-triage-conversation-ticket-7').fetch_history()).events
    scheduled = [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    assert [name for name in scheduled if name.endswith('.model_request')] == [
        'agent.triage.model_request',
        'agent.billing.model_request',
        'agent.billing.model_request',
    ]
