"""A worker without the key of an encrypted run (no keys, or other keys) leaves the run for a worker that has it.

In a rolling deploy one worker may start without its secret: it must not fail the runs it cannot read, and its log
must say which key it lacks.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from datetime import timedelta
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.exceptions import ActivityError, ApplicationError, RetryState

from activities._types import CallToolOutput
from agent import Agent
from agent.messages import ToolCallPart
from worker import build_worker
from workflows import (
    ActivityOptions,
    AgentRunInput,
    AgentRunOutput,
    AgentWorkflow,
    DecryptionError,
    DurableAgent,
    EncryptionCodec,
    data_converter,
    with_data_converter,
    with_encryption,
)
from workflows._data_converter import PayloadDecodeError
from workflows._encryption import KEYS_ENV_VAR, KEYS_FILE_ENV_VAR
from workflows._missing_keys import undecryptable_input
from workflows.client import AgentClient

from .test_agent_workflow import scripted, wait_for_status
from .test_encrypted_runs import AGENTS, CITY, FORECAST, OUTPUT, PROMPT

pytestmark = pytest.mark.asyncio(loop_scope='session')

KEY_A, KEY_B = os.urandom(32), os.urandom(32)
LOG_WAIT = 20.0  # seconds: the first attempt fails and is logged at once; the bound is for a loaded machine
# The SDK reports a workflow task's failure on its first attempt only and leaves the later ones to time out, so the
# worker with the key waits out the workflow task timeout of the attempt a worker without it held. The runs these
# tests start have a short one instead of the server's 10 s: the same wait, shorter, and still far longer than the
# few milliseconds one workflow task of these small runs takes on a worker with the key.
TASK_TIMEOUT = timedelta(seconds=1)
RUN_WAIT = 30.0  # seconds: a bound for a loaded machine

APPROVAL = {'approvals': {'fc-1': True}}


@pytest.fixture(autouse=True)
def no_keys_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers and clients built without a codec have no keys."""
    monkeypatch.delenv(KEYS_ENV_VAR, raising=False)
    monkeypatch.delenv(KEYS_FILE_ENV_VAR, raising=False)


@pytest.fixture
def keyed(client: Client) -> Client:
    """A client (and so a worker) holding key `a`, the key the runs are encrypted with."""
    return with_encryption(client, EncryptionCodec({'a': KEY_A}))


async def test_without_keys_a_client_writes_plain_payloads_and_refuses_encrypted_ones_by_key_id(
    client: Client, keyed: Client
) -> None:
    keyless = with_encryption(with_data_converter(client))
    assert with_encryption(keyless) is keyless
    converter = keyless.data_converter
    value = CallToolOutput(result={'city': 'Lisbon'})
    [written] = await converter.encode([value])
    assert written == data_converter.payload_converter.to_payload(value)  # as it is: no encryption
    assert await converter.decode([written], [CallToolOutput]) == [value]
    [encrypted] = await keyed.data_converter.encode([value])
    # Refused by the codec, not met as an unknown encoding by the payload converter (in a workflow, that is a
    # `PayloadDecodeError`, which fails the run).
    with pytest.raises(DecryptionError) as raised:
        await converter.decode([encrypted])
    assert str(raised.value) == (
        "Missing key id 'a': a payload is encrypted with key 'a' and this process has no encryption keys; "
        "set AGENT_ENCRYPTION_KEYS (or AGENT_ENCRYPTION_KEYS_FILE) with key 'a' to read it."
    )
    assert not isinstance(raised.value, PayloadDecodeError)


def missing_key_lines(caplog: pytest.LogCaptureFixture, naming: str) -> list[str]:
    """The log lines (with their exception) that hold `naming` (a run id) and say that key `a` is missing."""
    formatter = logging.Formatter()
    lines = [formatter.format(record) for record in caplog.records]
    return [line for line in lines if naming in line and "Missing key id 'a'" in line]


async def wait_for_missing_key(caplog: pytest.LogCaptureFixture, naming: str) -> list[str]:
    async with asyncio.timeout(LOG_WAIT):
        while True:
            if lines := missing_key_lines(caplog, naming):
                return lines
            await asyncio.sleep(0.05)


async def start(
    client: Client, task_queue: str, agent: str, workflow_id: str
) -> WorkflowHandle[AgentWorkflow, AgentRunOutput]:
    """Start a run of `agent` as `AgentClient.start` does, with a workflow task timeout of `TASK_TIMEOUT`."""
    return await AgentClient(client, task_queue=task_queue).client.start_workflow(
        AgentWorkflow.run,
        AgentRunInput(agent=agent, prompt=PROMPT),
        id=workflow_id,
        task_queue=task_queue,
        task_timeout=TASK_TIMEOUT,
        request_eager_start=True,
    )


async def status(handle: WorkflowHandle[Any, Any]) -> WorkflowExecutionStatus | None:
    return (await handle.describe()).status


async def finish_with_key(keyed: Client, task_queue: str, workflow_id: str) -> str:
    """The run's output once a worker with key `a` serves it."""
    async with build_worker(keyed, AGENTS, task_queue=task_queue):
        async with asyncio.timeout(RUN_WAIT):
            return (await AgentClient(keyed, task_queue=task_queue).result(workflow_id)).output


@pytest.fixture
def worker_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.WARNING, logger='temporalio')
    return caplog


async def test_a_keyless_worker_replaying_a_waiting_encrypted_run_leaves_it_for_a_worker_with_the_key(
    client: Client, keyed: Client, task_queue: str, worker_logs: pytest.LogCaptureFixture
) -> None:
    workflow_id = f'missing-key-replay-{uuid.uuid4()}'
    async with build_worker(keyed, AGENTS, task_queue=task_queue):
        handle = await start(keyed, task_queue, 'gated_forecast_agent', workflow_id)
        await wait_for_status(handle, 'awaiting_deferred_tools')
    # The approval arrives while only a worker without keys serves: it must replay the run to take it.
    async with build_worker(client, AGENTS, task_queue=task_queue):
        await keyed.get_workflow_handle(workflow_id).signal(AgentWorkflow.submit_deferred_tool_results, APPROVAL)
        [line, *_] = await wait_for_missing_key(worker_logs, handle.result_run_id or workflow_id)
        assert 'this process has no encryption keys' in line
        assert await status(handle) == WorkflowExecutionStatus.RUNNING
    assert await finish_with_key(keyed, task_queue, workflow_id) == OUTPUT


@pytest.mark.parametrize(
    ('keys', 'said'),
    [(None, 'this process has no encryption keys'), ('b, c', 'this process has keys b, c')],
    ids=['no keys', 'other keys'],
)
async def test_a_new_encrypted_run_waits_on_a_worker_without_its_key_until_a_worker_with_it_comes(
    client: Client, keyed: Client, task_queue: str, worker_logs: pytest.LogCaptureFixture, keys: str | None, said: str
) -> None:
    workflow_id = f'missing-key-new-{uuid.uuid4()}'
    # Without keys, or with others: the missing key id is named the same way, with what the worker holds.
    worker_client = (
        client if keys is None else with_encryption(client, EncryptionCodec({'b': KEY_B, 'c': os.urandom(32)}))
    )
    async with build_worker(worker_client, AGENTS, task_queue=task_queue):
        handle = await start(keyed, task_queue, 'forecast_agent', workflow_id)
        [line, *_] = await wait_for_missing_key(worker_logs, handle.result_run_id or workflow_id)
        assert said in line
        assert await status(handle) == WorkflowExecutionStatus.RUNNING
    assert await finish_with_key(keyed, task_queue, workflow_id) == OUTPUT


async def test_an_activity_on_a_keyless_worker_fails_its_attempt_only_and_the_run_completes_with_the_key(
    client: Client, keyed: Client, task_queue: str, worker_logs: pytest.LogCaptureFixture
) -> None:
    # The run's workflow is on a worker with the key that runs no activities, so its model request (an encrypted
    # input) goes to the keyless worker. That one has a connection of its own: the SDK refuses two workers of the
    # same task queue on one connection when both take workflow tasks.
    workflow_id = f'missing-key-activity-{uuid.uuid4()}'
    config = client.service_client.config
    own_connection = await Client.connect(config.target_host, namespace=client.namespace)
    async with (
        build_worker(keyed, AGENTS, task_queue=task_queue, no_remote_activities=True),
        build_worker(own_connection, AGENTS, task_queue=task_queue),
    ):
        handle = await AgentClient(keyed, task_queue=task_queue).start(
            'forecast_agent', PROMPT, workflow_id=workflow_id
        )
        # The SDK fails the attempt before the activity's context exists, so its line names no workflow.
        [line, *_] = await wait_for_missing_key(worker_logs, 'Completing activity as failed')
        assert 'this process has no encryption keys' in line
        assert await status(handle) == WorkflowExecutionStatus.RUNNING
    assert await finish_with_key(keyed, task_queue, workflow_id) == OUTPUT


tool_runs: list[str] = []
keyed_tool_agent = Agent(scripted(ToolCallPart('counted_forecast', {'city': CITY}, 'fc-1')), name='keyed_tool_agent')


@keyed_tool_agent.tool_plain
def counted_forecast(city: str) -> str:
    """The weather in `city`, counting each run of the tool."""
    tool_runs.append(city)
    return FORECAST


# The model requests run as local activities, on the workflow's worker (which holds the key): only the tool call goes
# to the task queue's activity workers.
LOCAL_MODEL_AGENTS = {'keyed_tool_agent': DurableAgent(keyed_tool_agent, model_activity=ActivityOptions(local=True))}


async def scheduled_ids(handle: WorkflowHandle[Any, Any]) -> list[str]:
    history = await handle.fetch_history()
    return [
        event.activity_task_scheduled_event_attributes.activity_id
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]


async def wait_for_scheduled(handle: WorkflowHandle[Any, Any], suffix: str) -> None:
    """Wait until the run has scheduled an activity whose id ends with `suffix`."""
    async with asyncio.timeout(RUN_WAIT):
        while True:
            if any(activity_id.endswith(suffix) for activity_id in await scheduled_ids(handle)):
                return
            await asyncio.sleep(0.05)


@pytest.mark.parametrize('keys', [{}, {'b': KEY_B}], ids=['no keys', 'other keys'])
async def test_tool_calls_taken_only_by_workers_without_the_key_wait_for_one_with_it_and_run_once(
    client: Client, keyed: Client, task_queue: str, worker_logs: pytest.LogCaptureFixture, keys: dict[str, bytes]
) -> None:
    tool_runs.clear()
    workflow_id = f'missing-key-tool-{uuid.uuid4()}'
    config = client.service_client.config
    own_connection = await Client.connect(config.target_host, namespace=client.namespace)
    without_key = with_encryption(own_connection, EncryptionCodec(keys)) if keys else own_connection
    agents = AgentClient(keyed, task_queue=task_queue)
    async with build_worker(keyed, LOCAL_MODEL_AGENTS, task_queue=task_queue, no_remote_activities=True):
        handle = await agents.start('keyed_tool_agent', PROMPT, workflow_id=workflow_id)
        async with build_worker(without_key, LOCAL_MODEL_AGENTS, task_queue=task_queue):
            # The tool call's three attempts all failed on the worker without the key: the run scheduled it again.
            await wait_for_scheduled(handle, '.again1')
        assert await status(handle) == WorkflowExecutionStatus.RUNNING
        assert tool_runs == []
        [line, *_] = [line for line in missing_key_lines(worker_logs, workflow_id) if 'scheduling it again' in line]
        assert '.again1' in line
        with_key = with_encryption(own_connection, EncryptionCodec({'a': KEY_A}))
        async with build_worker(with_key, LOCAL_MODEL_AGENTS, task_queue=task_queue):
            async with asyncio.timeout(RUN_WAIT):
                output = (await agents.result(workflow_id)).output
    assert output == f'counted_forecast={FORECAST}'
    assert tool_runs == [CITY]
    [first, *again] = [i for i in await scheduled_ids(handle) if '.tool.' in i]
    assert again
    assert again == [f'{first}.again{n}' for n in range(1, len(again) + 1)]


def activity_failure(cause: BaseException) -> ActivityError:
    error = ActivityError(
        'Activity task failed',
        scheduled_event_id=5,
        started_event_id=6,
        identity='worker',
        activity_type='agent.keyed_tool_agent.call_tool',
        activity_id='0.1.tool.fc-1',
        retry_state=RetryState.MAXIMUM_ATTEMPTS_REACHED,
    )
    error.__cause__ = cause
    return error


async def test_only_the_sdks_failure_to_decode_an_input_is_taken_for_a_missing_key() -> None:
    missing = "Missing key id 'a': a payload is encrypted with key 'a' and this process has no encryption keys"
    decoding = ApplicationError('Failed decoding arguments')
    decoding.__cause__ = ApplicationError(missing, type='DecryptionError')
    assert undecryptable_input(activity_failure(decoding)) == missing
    # A tool's own exception that happens to have the name fails the tool call as any other.
    assert undecryptable_input(activity_failure(ApplicationError(missing, type='DecryptionError'))) is None
    decoding_other = ApplicationError('Failed decoding arguments')
    decoding_other.__cause__ = ApplicationError('not JSON', type='JSONDecodeError')
    assert undecryptable_input(activity_failure(decoding_other)) is None
