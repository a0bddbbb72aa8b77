"""Encrypted runs on a real dev server: nothing a run reads or writes reaches the server in the clear."""

from __future__ import annotations

import base64
import json
import os
import uuid
from typing import Any

import httpx2
import pytest
from temporalio.api.common.v1 import Payload
from temporalio.api.history.v1 import History
from temporalio.client import Client, WorkflowFailureError
from temporalio.testing import WorkflowEnvironment

from agent import Agent
from agent.messages import ToolCallPart
from deploy.codec_server import CodecServer
from worker import build_worker
from workflows import DecryptionError, EncryptionCodec, with_encryption
from workflows._encryption import KEY_ID_METADATA, KEYS_ENV_VAR
from workflows.client import AgentClient

from .test_agent_workflow import scripted, wait_for_status
from .test_human_cli import command

pytestmark = pytest.mark.asyncio(loop_scope='session')

KEY_A, KEY_B = os.urandom(32), os.urandom(32)
PROMPT = 'Plan my trip, passphrase quokka-5521'
CITY = 'Tbilisi-8830'
FORECAST = 'umbrella-2294 advised'
OUTPUT = f'forecast={FORECAST}'
SECRETS = (PROMPT, CITY, FORECAST)

forecast_agent = Agent(scripted(ToolCallPart('forecast', {'city': CITY}, 'fc-1')), name='forecast_agent')


@forecast_agent.tool_plain
def forecast(city: str) -> str:
    """The weather in `city`."""
    assert city == CITY
    return FORECAST


gated_agent = Agent(scripted(ToolCallPart('forecast', {'city': CITY}, 'fc-1')), name='gated_forecast_agent')
gated_agent.tool_plain(requires_approval=True)(forecast)

failing_agent = Agent(scripted(ToolCallPart('broken_forecast', {'city': CITY}, 'fc-1')), name='failing_forecast_agent')


@failing_agent.tool_plain
def broken_forecast(city: str) -> str:
    """Fails, quoting its argument as errors do."""
    raise ValueError(f'no forecast for {city}')


AGENTS = {
    'forecast_agent': forecast_agent,
    'gated_forecast_agent': gated_agent,
    'failing_forecast_agent': failing_agent,
}


async def raw_history(client: Client, workflow_id: str) -> bytes:
    """The run's history as the server stores it: every event's bytes, payloads undecoded."""
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    return History(events=history.events).SerializeToString()


async def tool_result_payload(client: Client, workflow_id: str) -> Payload:
    """The stored result of the run's one tool call activity."""
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    tool_calls = {
        event.event_id
        for event in history.events
        if event.HasField('activity_task_scheduled_event_attributes')
        and event.activity_task_scheduled_event_attributes.activity_type.name.endswith('.call_tool')
    }
    [payload] = [
        event.activity_task_completed_event_attributes.result.payloads[0]
        for event in history.events
        if event.HasField('activity_task_completed_event_attributes')
        and event.activity_task_completed_event_attributes.scheduled_event_id in tool_calls
    ]
    return payload


def key_ids_in(history: bytes, codec: EncryptionCodec) -> set[str]:
    """The ids of `codec`'s keys that payloads in `history` name (as serialized: a metadata map entry's value)."""
    return {
        key_id for key_id in codec.key_ids if f'{KEY_ID_METADATA}\x12{chr(len(key_id))}{key_id}'.encode() in history
    }


async def test_an_encrypted_run_stores_no_prompt_tool_argument_or_result_in_the_clear(
    client: Client, task_queue: str
) -> None:
    encrypted = with_encryption(client, EncryptionCodec({'a': KEY_A}))
    workflow_id = f'encrypted-{uuid.uuid4()}'
    async with build_worker(encrypted, AGENTS, task_queue=task_queue):
        agents = AgentClient(encrypted, task_queue=task_queue)
        result = await agents.run('forecast_agent', PROMPT, workflow_id=workflow_id)
    assert result.output == OUTPUT
    stored = await raw_history(client, workflow_id)
    assert [secret for secret in SECRETS if secret.encode() in stored] == []
    assert b'binary/encrypted' in stored


async def test_error_messages_are_stored_encrypted_and_read_in_full_with_the_key(
    client: Client, task_queue: str
) -> None:
    encrypted = with_encryption(client, EncryptionCodec({'a': KEY_A}))
    workflow_id = f'encrypted-failure-{uuid.uuid4()}'
    async with build_worker(encrypted, AGENTS, task_queue=task_queue):
        with pytest.raises(WorkflowFailureError) as raised:
            await AgentClient(encrypted, task_queue=task_queue).run(
                'failing_forecast_agent', PROMPT, workflow_id=workflow_id
            )
    assert str(raised.value.cause) == f'ValueError: no forecast for {CITY}'
    stored = await raw_history(client, workflow_id)
    assert [secret for secret in SECRETS if secret.encode() in stored] == []


async def test_without_keys_the_same_run_stores_them_in_the_clear(client: Client, task_queue: str) -> None:
    # The check above searches the right bytes: unencrypted, each of them is there to find.
    workflow_id = f'plain-{uuid.uuid4()}'
    async with build_worker(client, AGENTS, task_queue=task_queue):
        result = await AgentClient(client, task_queue=task_queue).run('forecast_agent', PROMPT, workflow_id=workflow_id)
    assert result.output == OUTPUT
    stored = await raw_history(client, workflow_id)
    assert [secret for secret in SECRETS if secret.encode() in stored] == list(SECRETS)


async def test_the_worker_client_and_command_line_encrypt_with_keys_from_the_environment(
    temporal_env: WorkflowEnvironment, client: Client, task_queue: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEYS_ENV_VAR, f'env-key:{base64.b64encode(KEY_A).decode()}')
    workflow_id = f'env-encrypted-{uuid.uuid4()}'
    async with build_worker(client, AGENTS, task_queue=task_queue):
        agents = AgentClient(client, task_queue=task_queue)
        result = await agents.run('forecast_agent', PROMPT, workflow_id=workflow_id)
    assert result.output == OUTPUT
    stored = await raw_history(client, workflow_id)
    assert [secret for secret in SECRETS if secret.encode() in stored] == []
    assert key_ids_in(stored, EncryptionCodec({'env-key': KEY_A})) == {'env-key'}
    # The command line (a process of its own, with the same environment) reads the result.
    assert json.loads(await command(temporal_env, task_queue, 'result', workflow_id)) == OUTPUT


async def test_a_run_started_under_key_a_finishes_and_reads_back_after_rotating_to_b(
    client: Client, task_queue: str
) -> None:
    before, after = EncryptionCodec({'a': KEY_A}), EncryptionCodec({'b': KEY_B, 'a': KEY_A})
    workflow_id = f'rotated-{uuid.uuid4()}'
    old_client = with_encryption(client, before)
    async with build_worker(old_client, AGENTS, task_queue=task_queue):
        handle = await AgentClient(old_client, task_queue=task_queue).start(
            'gated_forecast_agent', PROMPT, workflow_id=workflow_id
        )
        await wait_for_status(handle, 'awaiting_deferred_tools')
    # A new worker and client hold the new key first and the old one after: the run's history (all under a)
    # replays, and what it writes from now on is under b.
    new_client = with_encryption(client, after)
    async with build_worker(new_client, AGENTS, task_queue=task_queue):
        agents = AgentClient(new_client, task_queue=task_queue)
        await agents.approve(workflow_id, approvals={'fc-1': True})
        assert (await agents.result(workflow_id)).output == OUTPUT
    stored = await raw_history(client, workflow_id)
    assert key_ids_in(stored, after) == {'a', 'b'}
    assert [secret for secret in SECRETS if secret.encode() in stored] == []
    # A client that was not given the new key cannot read the result, and the error names the key it lacks.
    with pytest.raises(DecryptionError, match=r"Missing key id 'b': .* and this process has keys a;"):
        await AgentClient(with_encryption(client, before)).result(workflow_id)


def as_json(payload: Payload) -> dict[str, Any]:
    """A payload in the JSON form the Web UI posts to a codec endpoint."""
    metadata = {key: base64.b64encode(value).decode() for key, value in payload.metadata.items()}
    return {'metadata': metadata, 'data': base64.b64encode(payload.data).decode()}


def post_decode(endpoint: CodecServer, payload: dict[str, Any]) -> httpx2.Response:
    return httpx2.post(
        f'{endpoint.url}/decode', json={'payloads': [payload]}, headers={'Origin': 'http://localhost:8233'}
    )


async def test_the_codec_endpoint_shows_an_operator_with_the_key_the_plaintext_and_others_only_ciphertext(
    client: Client, task_queue: str
) -> None:
    codec = EncryptionCodec({'a': KEY_A})
    encrypted = with_encryption(client, codec)
    workflow_id = f'encrypted-ui-{uuid.uuid4()}'
    async with build_worker(encrypted, AGENTS, task_queue=task_queue):
        await AgentClient(encrypted, task_queue=task_queue).run('forecast_agent', PROMPT, workflow_id=workflow_id)
    stored = as_json(await tool_result_payload(client, workflow_id))
    endpoints = [CodecServer(codec=codec), CodecServer(), CodecServer(codec=EncryptionCodec({'b': KEY_B}))]
    for endpoint in endpoints:
        endpoint.start()
    try:
        with_key, no_keys, other_key = (post_decode(endpoint, stored) for endpoint in endpoints)
        assert with_key.status_code == 200
        [shown] = with_key.json()['payloads']
        assert base64.b64decode(shown['metadata']['encoding']) == b'json/plain'
        assert json.loads(base64.b64decode(shown['data']))['result'] == FORECAST
        # An endpoint without the key leaves the payload as it is, encrypted.
        assert no_keys.json() == other_key.json() == {'payloads': [stored]}

        data = bytearray(base64.b64decode(stored['data']))
        data[-1] ^= 1
        tampered = post_decode(endpoints[0], {**stored, 'data': base64.b64encode(bytes(data)).decode()})
        assert tampered.status_code == 400
        assert tampered.json()['error'] == (
            "Payload 0: A payload encrypted with key 'a' does not authenticate: it was altered, "
            "or key 'a' is not the key it was encrypted with."
        )
    finally:
        for endpoint in endpoints:
            endpoint.close()


async def test_the_codec_endpoint_encrypts_what_the_ui_sends_with_the_current_key() -> None:
    codec = EncryptionCodec({'b': KEY_B, 'a': KEY_A})
    endpoint = CodecServer(codec=codec).start()
    try:
        sent = as_json(Payload(metadata={'encoding': b'json/plain'}, data=json.dumps(PROMPT).encode()))
        response = httpx2.post(f'{endpoint.url}/encode', json={'payloads': [sent]})
        [encoded] = response.json()['payloads']
        assert base64.b64decode(encoded['metadata'][KEY_ID_METADATA]) == b'b'
        assert PROMPT.encode() not in base64.b64decode(encoded['data'])
        assert post_decode(endpoint, encoded).json() == {'payloads': [sent]}
    finally:
        endpoint.close()
