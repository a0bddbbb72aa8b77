"""The worker's data converter: pydantic JSON on the wire, schemas built once per process rather than per run."""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Sequence
from typing import Annotated, Any

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from temporalio.contrib.pydantic import PydanticPayloadConverter, pydantic_data_converter
from temporalio.converter import DataConverter, DefaultPayloadConverter, PayloadCodec

from activities._types import CallToolOutput
from agent import Agent
from agent.models.test import TestModel
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow, data_converter, with_data_converter
from workflows._data_converter import COMPRESSED_ENCODING, SharedPydanticPayloadConverter, _cached_adapter

echo_agent = Agent(TestModel(custom_output_text='echoed'), name='converter_echo')


async def run_echo(client: Client, task_queue: str) -> AgentRunOutput:
    result: AgentRunOutput = await client.execute_workflow(
        AgentWorkflow.run,
        AgentRunInput(agent='converter_echo', prompt='hi'),
        id=f'converter-{uuid.uuid4()}',
        task_queue=task_queue,
    )
    return result


@pytest.mark.asyncio(loop_scope='session')
async def test_later_runs_reuse_the_schemas_built_for_the_first(client: Client, task_queue: str) -> None:
    async with build_worker(client, {'converter_echo': echo_agent}, task_queue=task_queue):
        assert (await run_echo(client, task_queue)).output == 'echoed'
        misses = _cached_adapter.cache_info().misses
        for _ in range(3):
            assert (await run_echo(client, task_queue)).output == 'echoed'
        assert _cached_adapter.cache_info().misses == misses


def test_payloads_interoperate_with_the_sdk_pydantic_converter() -> None:
    value = AgentRunInput(agent='a', prompt='hello', metadata={'k': [1, 2]})
    ours = data_converter.payload_converter.to_payloads([value])
    theirs = pydantic_data_converter.payload_converter.to_payloads([value])
    # A run's input is written with only the fields that were set; either converter reads the other's.
    assert json.loads(ours[0].data) == {'agent': 'a', 'prompt': 'hello', 'metadata': {'k': [1, 2]}}
    assert data_converter.payload_converter.from_payloads(theirs, [AgentRunInput]) == [value]
    assert pydantic_data_converter.payload_converter.from_payloads(ours, [AgentRunInput]) == [value]


def test_unhashable_type_hints_still_decode() -> None:
    payload = Payload(metadata={'encoding': b'json/plain'}, data=b'[1, 2]')
    unhashable: Any = Annotated[list[int], {'unhashable': 'metadata'}]
    with pytest.raises(TypeError):
        hash(unhashable)
    assert data_converter.payload_converter.from_payloads([payload], [unhashable]) == [[1, 2]]


class _Reverse(PayloadCodec):
    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [Payload(metadata=p.metadata, data=p.data[::-1]) for p in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [Payload(metadata=p.metadata, data=p.data[::-1]) for p in payloads]


@pytest.mark.asyncio(loop_scope='session')
async def test_the_worker_client_keeps_codecs_and_upgrades_only_stock_converters(client: Client) -> None:
    stock = Client(**{**client.config(), 'data_converter': dataclasses.replace(pydantic_data_converter)})
    upgraded = with_data_converter(stock)
    assert upgraded.data_converter.payload_converter_class is SharedPydanticPayloadConverter

    codec = _Reverse()
    with_codec = Client(
        **{
            **client.config(),
            'data_converter': DataConverter(payload_converter_class=DefaultPayloadConverter, payload_codec=codec),
        }
    )
    assert with_data_converter(with_codec).data_converter.payload_codec is codec
    assert with_data_converter(with_codec).data_converter.payload_converter_class is SharedPydanticPayloadConverter

    class Custom(PydanticPayloadConverter):
        def __init__(self) -> None:
            super().__init__(max_cached_type_adapters=8)

    custom = Client(**{**client.config(), 'data_converter': DataConverter(payload_converter_class=Custom)})
    assert with_data_converter(custom) is custom
    assert with_data_converter(upgraded) is upgraded


def test_large_activity_payloads_are_stored_compressed_and_read_back() -> None:
    text = ' '.join(f'word{i % 97} of a long tool result' for i in range(200))
    output = CallToolOutput(result=text)
    [payload] = data_converter.payload_converter.to_payloads([output])
    assert payload.metadata['encoding'] == COMPRESSED_ENCODING.encode()
    assert len(payload.data) < len(text) / 3
    assert data_converter.payload_converter.from_payloads([payload], [CallToolOutput]) == [output]


def test_small_activity_payloads_and_run_results_stay_plain_json() -> None:
    [small] = data_converter.payload_converter.to_payloads([CallToolOutput(result='short')])
    assert small.metadata['encoding'] == b'json/plain'
    big = AgentRunOutput(output='x ' * 5000, new_messages=[], run_id='r', conversation_id='c')
    [result] = data_converter.payload_converter.to_payloads([big])
    assert result.metadata['encoding'] == b'json/plain'  # what any client reads stays readable JSON
    assert json.loads(result.data)['output'] == big.output


def test_a_corrupt_compressed_payload_fails_with_a_clear_error() -> None:
    payload = Payload(metadata={'encoding': COMPRESSED_ENCODING.encode()}, data=b'not zlib')
    with pytest.raises(RuntimeError, match='encoding json/zlib could not be converted') as raised:
        data_converter.payload_converter.from_payloads([payload], [CallToolOutput])
    assert 'json/zlib payload is not valid zlib data' in str(raised.value.__cause__)


def test_payload_converters_built_for_each_workflow_task_share_their_encodings() -> None:
    # The SDK builds a payload converter for every activation it decodes and every completion it encodes.
    first, second = SharedPydanticPayloadConverter(), SharedPydanticPayloadConverter()
    assert next(iter(first.converters)) == COMPRESSED_ENCODING.encode()
    assert first.converters.keys() == second.converters.keys()
    assert all(first.converters[key] is second.converters[key] for key in first.converters)
