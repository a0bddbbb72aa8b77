"""Whatever a client starts `AgentWorkflow` with, the run fails at once with what was wrong; no task retries."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.common import RawValue
from temporalio.exceptions import ApplicationError

from agent import Agent
from agent.models.test import TestModel
from worker import build_worker
from workflows import AgentRunOutput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')


@dataclass
class Customer:
    name: str
    tier: int


@dataclass
class Settings:
    tone: str = 'plain'


echo = Agent(TestModel(custom_output_text='done'), name='echo')
with_deps: Agent[Customer, str] = Agent(TestModel(custom_output_text='done'), name='with_deps', deps_type=Customer)
with_settings: Agent[Settings, str] = Agent(
    TestModel(custom_output_text='done'), name='with_settings', deps_type=Settings
)
with_maybe: Agent[Customer | None, str] = Agent(
    TestModel(custom_output_text='done'), name='with_maybe', deps_type=Customer | None
)
AGENTS = {'echo': echo, 'with_deps': with_deps, 'with_settings': with_settings, 'with_maybe': with_maybe}


def _not_json() -> RawValue:
    return RawValue(Payload(metadata={'encoding': b'json/plain'}, data=b'\xff\x00 this is not JSON'))


def _unknown_encoding() -> RawValue:
    # Not `binary/encrypted`: a worker without the key leaves such a run for one with it (tests/durable/
    # test_encrypted_runs_missing_key.py); an encoding no worker can read fails the run.
    return RawValue(Payload(metadata={'encoding': b'binary/rot13'}, data=b'frperg'))


# (case, the arguments sent, words the failure must contain)
CASES: list[tuple[str, list[Any], list[str]]] = [
    ('empty object', [{}], ['agent', 'required']),
    ('no agent', [{'prompt': 'hi'}], ['agent', 'required']),
    ('a JSON array', [['echo', 'hi']], ['must be a JSON object', 'array']),
    ('a JSON string', ['echo'], ['must be a JSON object', 'string']),
    ('usage_limits of the wrong type', [{'agent': 'echo', 'usage_limits': 'many'}], ['usage_limits', "'many'"]),
    (
        'a usage limit of the wrong type',
        [{'agent': 'echo', 'usage_limits': {'request_limit': 'ten'}}],
        ['usage_limits.request_limit', "'ten'"],
    ),
    ('model_settings of the wrong type', [{'agent': 'echo', 'model_settings': [1, 2]}], ['model_settings']),
    ('metadata of the wrong type', [{'agent': 'echo', 'metadata': 'x'}], ['metadata', "'x'"]),
    ('conversation of the wrong type', [{'agent': 'echo', 'conversation': [True]}], ['conversation']),
    (
        'a malformed message_history entry',
        [{'agent': 'echo', 'message_history': [{'kind': 'request', 'parts': [{'part_kind': 'user-prompt'}]}]}],
        ['message_history.0', 'content'],
    ),
    ('deps that fail the deps_type', [{'agent': 'with_deps', 'deps': {'name': 'ada'}}], ['deps.tier', 'Customer']),
    ('deps of the wrong type', [{'agent': 'with_deps', 'deps': 'ada'}], ['deps', "'ada'"]),
    ('deps left out', [{'agent': 'with_deps', 'prompt': 'hi'}], ['deps: required', 'Customer', 'name, tier']),
    ('bytes that are not JSON', [_not_json()], ['not valid JSON']),
    ('a payload in an unknown encoding', [_unknown_encoding()], ['binary/rot13']),
    ('no argument at all', [], ['one JSON object', '0 arguments']),
    ('two arguments', [{'agent': 'echo'}, {'agent': 'echo'}], ['one JSON object', '2 arguments']),
    ('a misspelt field', [{'agent': 'echo', 'promt': 'hi'}], ["'promt'", 'prompt']),
    ('an unknown agent', [{'agent': 'nobody', 'prompt': 'hi'}], ["'nobody'", 'echo', 'with_deps']),
    ('a negative idle timeout', [{'agent': 'echo', 'idle_timeout_seconds': -5}], ['idle_timeout_seconds', '-5']),
    ('a zero idle timeout', [{'agent': 'echo', 'idle_timeout_seconds': 0}], ['idle_timeout_seconds', 'positive']),
    ('zero turns per run', [{'agent': 'echo', 'max_turns_per_run': 0}], ['max_turns_per_run']),
    ('a blank owner', [{'agent': 'echo', 'owner': '  '}], ['owner must be a non-blank user id']),
    ('an owner too long', [{'agent': 'echo', 'owner': 'x' * 300}], ['owner', 'at most 255 characters', "'xxxx"]),
    ('an owner of the wrong type', [{'agent': 'echo', 'owner': 42}], ['owner', '42']),
]


def _new_id() -> str:
    return f'bad-{uuid.uuid4()}'


async def _workflow_task_failures(handle: WorkflowHandle[Any, Any]) -> int:
    history = await handle.fetch_history()
    return sum(1 for event in history.events if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)


@pytest.mark.parametrize(('case', 'args', 'expected'), CASES, ids=[case for case, _, _ in CASES])
async def test_a_malformed_start_fails_the_run_with_what_was_wrong(
    client: Client, task_queue: str, case: str, args: list[Any], expected: list[str]
) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await client.start_workflow(
            'AgentWorkflow', args=args, id=f'bad-{uuid.uuid4()}', task_queue=task_queue
        )
        with pytest.raises(WorkflowFailureError) as failed:
            async with asyncio.timeout(10):  # before, such runs stayed RUNNING, retrying their first task forever
                await handle.result()
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError), case
    for words in expected:
        assert words in cause.message, (case, cause.message)
    assert len(cause.message.splitlines()) <= 2, cause.message
    assert await _workflow_task_failures(handle) == 0


@pytest.mark.parametrize(
    ('case', 'inp', 'expected'),
    [
        # Before, an unknown agent failed with `UserError` and a run without deps went on to fail (or hang) in the
        # first function that read them.
        ('an unknown agent', {'agent': 'nobody', 'prompt': 'hi'}, "No agent is registered as 'nobody'"),
        ('deps left out', {'agent': 'with_deps', 'prompt': 'hi'}, 'deps: required, but missing'),
    ],
)
async def test_an_unknown_agent_or_missing_deps_fail_as_invalid_input(
    client: Client, task_queue: str, case: str, inp: dict[str, Any], expected: str
) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await client.start_workflow(AgentWorkflow.run, inp, id=_new_id(), task_queue=task_queue)
        with pytest.raises(WorkflowFailureError) as failed:
            async with asyncio.timeout(10):
                await handle.result()
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError)
    assert (cause.type, cause.non_retryable) == ('InvalidInput', True), case
    assert expected in cause.message, cause.message


@pytest.mark.parametrize('agent', ['with_settings', 'with_maybe'])
async def test_deps_left_out_run_when_the_deps_type_does_without_them(
    client: Client, task_queue: str, agent: str
) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue):
        result = await client.execute_workflow(
            AgentWorkflow.run, {'agent': agent, 'prompt': 'hi'}, id=_new_id(), task_queue=task_queue
        )
    assert result.output == 'done'


async def test_a_well_formed_start_still_runs(client: Client, task_queue: str) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue):
        result = await client.execute_workflow(
            'AgentWorkflow',
            {'agent': 'with_deps', 'prompt': 'hi', 'deps': {'name': 'ada', 'tier': 2}},
            id=f'good-{uuid.uuid4()}',
            task_queue=task_queue,
            result_type=AgentRunOutput,
        )
    assert result.output == 'done'


async def test_a_malformed_send_message_is_rejected_and_the_conversation_goes_on(
    client: Client, task_queue: str
) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await client.start_workflow(
            'AgentWorkflow', {'agent': 'echo', 'conversation': True}, id=f'conv-{uuid.uuid4()}', task_queue=task_queue
        )
        for bad in ({'text': 'hi'}, 'hi', {'prompt': 42}):
            with pytest.raises(WorkflowUpdateFailedError) as rejected:
                await handle.execute_update('send_message', bad)
            assert 'send_message input' in str(rejected.value.cause), bad
        turn = await handle.execute_update('send_message', {'prompt': 'hi'}, result_type=AgentRunOutput)
        assert turn.output == 'done'
        await handle.signal(AgentWorkflow.close_conversation)
        await handle.result()
    history = await handle.fetch_history()
    accepted = [e for e in history.events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED]
    assert len(accepted) == 1  # the rejected ones never reached history
    assert await _workflow_task_failures(handle) == 0
