"""`WorkerGate` turns a worker's failure to answer a query in time into 503 (try again), not an error of the app."""

from __future__ import annotations

import pytest
from temporalio.client import Client, WorkflowQueryFailedError

from agent.ui.web import BackendUnavailable
from doors.chat._worker_gate import WorkerGate

pytestmark = pytest.mark.asyncio(loop_scope='session')


async def failing(message: str) -> None:
    raise WorkflowQueryFailedError(message)


async def test_a_query_the_worker_was_too_busy_to_answer_is_unavailable_not_an_error(client: Client) -> None:
    gate = WorkerGate(client, 'busy-queue', timeout=5)
    with pytest.raises(BackendUnavailable) as busy:
        await gate.query(
            failing("[TMPRL1101] Potential deadlock detected: workflow didn't yield within 2 second(s)."),
            'the conversation was not read',
        )
    assert 'the conversation was not read' in str(busy.value)
    assert busy.value.admitted is False


async def test_a_query_the_run_itself_failed_stays_an_error(client: Client) -> None:
    gate = WorkerGate(client, 'busy-queue', timeout=5)
    with pytest.raises(WorkflowQueryFailedError):
        await gate.query(failing('Unknown query type: nope'), 'the conversation was not read')
