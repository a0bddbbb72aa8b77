"""Streaming runs (`run_stream`, `run_stream_events`) produce the same spans as `run`."""

from __future__ import annotations

import asyncio

from agent import Agent
from agent.capabilities import Instrumentation
from agent.models.test import TestModel

from ._otel import Telemetry, attrs, json_attr


def _agent(telemetry: Telemetry) -> Agent[None, str]:
    agent = Agent(
        TestModel(), name='streamer', capabilities=[Instrumentation(telemetry.settings(include_content=True))]
    )

    @agent.tool_plain
    def lookup(key: str) -> str:
        return f'value of {key}'

    return agent


_EXPECTED_TREE = [
    ('invoke_agent streamer', None),
    ('chat test', 'invoke_agent streamer'),
    ('execute_tool lookup', 'invoke_agent streamer'),
    ('chat test', 'invoke_agent streamer'),
]


def test_run_stream_produces_the_run_model_and_tool_spans(telemetry: Telemetry) -> None:
    agent = _agent(telemetry)

    async def main() -> str:
        async with agent.run_stream('go') as result:
            return await result.get_output()

    output = asyncio.run(main())

    assert telemetry.tree() == _EXPECTED_TREE
    chats = sorted((s for s in telemetry.spans() if s.name == 'chat test'), key=lambda s: s.start_time or 0)
    assert attrs(chats[-1])['gen_ai.usage.output_tokens'] > 0
    assert json_attr(chats[-1], 'gen_ai.output.messages')[0]['parts'][0]['type'] == 'text'
    assert attrs(telemetry.span('invoke_agent streamer'))['final_result'] == output


def test_run_stream_events_produces_the_run_model_and_tool_spans(telemetry: Telemetry) -> None:
    agent = _agent(telemetry)

    async def main() -> None:
        async with agent.run_stream_events('go') as events:
            async for _ in events:
                pass

    asyncio.run(main())

    assert telemetry.tree() == _EXPECTED_TREE
