"""The example of docs/approvals.md's "Who may approve" runs as written, against the suite's dev server.

The program starts a dev server of its own (`tests/test_docs_python.py` runs it so); here `start_dev_server` hands it
the suite's instead, so that the run it leaves behind can be read afterwards: its decision record, the digest the
page says how to compute, and the history of a refused answer. What it prints must be what the page says it prints,
but for the times.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from agent.messages import ModelResponse
from tests._docs import blocks
from worker import build_worker
from workflows import AgentWorkflow
from workflows.client import AgentClient

pytestmark = pytest.mark.asyncio(loop_scope='session')

PAGE = 'docs/approvals.md'
SECTION = 'Who may approve: identities, rules, decision records'
WAIT = 60.0
RUN = 'asyncio.run(main())'


class SuiteServer:
    """What the example's `start_dev_server()` returns here: the suite's server, which outlives the example."""

    def __init__(self, env: WorkflowEnvironment) -> None:
        self.client = env.client

    async def shutdown(self) -> None:
        """Leave the server to the suite's fixture."""


def without_times(text: str) -> str:
    text = re.sub(r'\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}\b', '<date>', text)
    return re.sub(r'\b\d{2}:\d{2}:\d{2}\b', '<time>', text)


async def test_the_approval_rules_example_runs_as_written(
    temporal_env: WorkflowEnvironment, client: Client, capsys: pytest.CaptureFixture[str]
) -> None:
    (example,) = blocks(PAGE, 'python', section=SECTION)
    (printed,) = blocks(PAGE, 'text', section=SECTION)
    assert example.source.rstrip().endswith(RUN)
    namespace: dict[str, Any] = {'__name__': 'docs_example'}
    exec(compile(example.source.replace(RUN, ''), f'{PAGE}:{example.line}', 'exec'), namespace)

    async def start_dev_server() -> SuiteServer:
        return SuiteServer(temporal_env)

    namespace['start_dev_server'] = start_dev_server
    await asyncio.wait_for(namespace['main'](), WAIT)

    assert without_times(capsys.readouterr().out) == without_times(printed.source)
    handle = client.get_workflow_handle('pay-invoice-42')
    result = await AgentClient(client).result(handle.id)
    (record,) = result.decisions
    assert (record.decision, record.by, [vote.by for vote in record.votes]) == (
        'approve',
        ['alice', 'bob'],
        ['alice', 'bob'],
    )
    async with build_worker(client, {'payments': namespace['payments']}, task_queue='payments'):  # to answer queries
        assert (await handle.query(AgentWorkflow.status)).decisions == result.decisions
    # The page's recipe for the digest gives the record's, from the arguments the model sent.
    (call,) = [
        call for message in result.new_messages if isinstance(message, ModelResponse) for call in message.tool_calls
    ]
    canonical = json.dumps(call.args_as_dict(), sort_keys=True, separators=(',', ':'), ensure_ascii=False)
    assert record.args_digest == f'sha256:{hashlib.sha256(canonical.encode()).hexdigest()}'
    # mallory's refused answer left nothing in the history: two updates were accepted, alice's and bob's.
    history = await handle.fetch_history()
    accepted = [e for e in history.events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED]
    assert len(accepted) == 2
