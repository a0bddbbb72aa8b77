"""The benchmark's streamed chat scenario (S8, `bench.chat`) in its smallest shape, on the test dev server."""

from __future__ import annotations

import pytest
from temporalio.client import Client

from bench.chat import ChatShape, streamed_chat

pytestmark = pytest.mark.asyncio(loop_scope='session')


async def test_the_streamed_chat_scenario_streams_live_without_per_token_history_events(client: Client):
    # The model streams for 1.25 s: long enough that the first delta reaches the client within it even on a busy
    # machine (the property, not a speed: the figures themselves are the benchmark's).
    shape = ChatShape(turns=2, deltas=6, interval=0.25)

    result = await streamed_chat(client, shape)

    assert set(result['modes']) == {'http', 'drain', 'none', 'memory', 'inprocess'}
    streaming_ms = (shape.deltas - 1) * shape.interval * 1000
    assert result['first_delta_ms'] < streaming_ms, 'the first delta reaches the client while the model still streams'
    assert result['modes']['memory']['first_delta_ms'] < streaming_ms
    assert result['history_events_per_turn'] == result['unstreamed_history_events_per_turn']
    assert 0 < result['history_proto_bytes_per_turn'] < 2 * result['unstreamed_history_proto_bytes_per_turn']
    assert result['worker_cpu_ms_per_turn'] > 0
    assert result['unstreamed_worker_cpu_ms_per_turn'] > 0
    assert 'first_delta_ms' not in result['modes']['drain']
