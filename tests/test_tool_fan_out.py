"""The fan-out of one response's tool calls in the agent graph: all at once in-process, bounded where ports say so.

A durable run's ports bound it (`tests/durable/test_tool_fan_out.py`); here ports of the test's own make an
in-process run do the same, so the graph's side of it is checked without a server.
"""

from __future__ import annotations

import asyncio

import pytest

from agent import Agent
from agent._ports import DirectPorts, use_ports
from agent._tool_fan_out import run_in_lanes
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from agent.models.function import AgentInfo, FunctionModel

CALLS = 50


class BoundedPorts(DirectPorts):
    """In-process ports that bound the fan-out as a durable run's do."""

    def __init__(self, at_once: int, to_run: int | None = None) -> None:
        self.at_once = at_once
        self.to_run = to_run

    def tool_calls_at_once(self, calls: int) -> int:
        return min(calls, self.at_once)

    def tool_calls_to_run(self, calls: int) -> int:
        return calls if self.to_run is None else min(calls, self.to_run)


def many_calls(count: int) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('work', {'i': i}, f'c{i:02d}') for i in range(count)])
        return ModelResponse(parts=[TextPart('done')])

    return FunctionModel(respond)


class Tracker:
    """Builds an agent whose `work` tool records which calls run at once; with `wait_for_all`, each call waits
    until every call of the response has started."""

    def __init__(self, *, wait_for_all: bool = False) -> None:
        self.wait_for_all = wait_for_all
        self.running = 0
        self.peak = 0
        self.started: list[int] = []
        self.all_started = asyncio.Event()

    def agent(self, count: int) -> Agent[None, str]:
        agent = Agent(many_calls(count))

        @agent.tool_plain
        async def work(i: int) -> int:
            """Do some work."""
            self.started.append(i)
            self.running += 1
            self.peak = max(self.peak, self.running)
            if len(self.started) == count:
                self.all_started.set()
            try:
                if self.wait_for_all:
                    await asyncio.wait_for(self.all_started.wait(), 5)
                for _ in range(3):  # lets the other calls started with this one run meanwhile
                    await asyncio.sleep(0)
            finally:
                self.running -= 1
            return i * 10

        return agent


def answer(messages: list[ModelMessage]) -> ModelRequest:
    request = messages[2]
    assert isinstance(request, ModelRequest)
    return request


async def test_in_process_runs_start_every_call_of_a_response_at_once() -> None:
    tracker = Tracker(wait_for_all=True)
    result = await tracker.agent(CALLS).run('go')
    assert result.output == 'done'
    assert tracker.peak == CALLS


async def test_ports_that_bound_the_fan_out_start_calls_in_call_order_as_others_end() -> None:
    tracker = Tracker()
    with use_ports(BoundedPorts(at_once=3)):
        result = await tracker.agent(CALLS).run('go')
    assert tracker.peak == 3
    assert tracker.started == list(range(CALLS))
    parts = answer(result.all_messages()).parts
    assert [(p.tool_call_id, p.content) for p in parts if isinstance(p, ToolReturnPart)] == [
        (f'c{i:02d}', i * 10) for i in range(CALLS)
    ]


async def test_ports_that_cap_a_response_answer_the_calls_past_the_cap_with_a_retry_prompt() -> None:
    tracker = Tracker()
    with use_ports(BoundedPorts(at_once=10, to_run=3)):
        result = await tracker.agent(8).run('go')
    assert tracker.started == [0, 1, 2]
    parts = answer(result.all_messages()).parts
    assert [type(p).__name__ for p in parts] == ['ToolReturnPart'] * 3 + ['RetryPromptPart'] * 5
    assert [p.tool_call_id for p in parts if isinstance(p, ToolReturnPart | RetryPromptPart)] == [
        f'c{i:02d}' for i in range(8)
    ]
    refused = parts[3]
    assert isinstance(refused, RetryPromptPart)
    assert refused.content == (
        'Not run: this response asked for 8 tool calls, and at most 3 run per response; this was call 4 of 8. '
        'Ask for it again in a later response, with at most 3 tool calls in each response.'
    )
    assert result.usage().tool_calls == 3


async def test_a_failing_call_cancels_the_running_ones_and_the_waiting_ones_never_start() -> None:
    started: list[int] = []
    cancelled: list[int] = []
    release = asyncio.Event()

    async def handle(i: int) -> None:
        started.append(i)
        if i == 1:
            raise ValueError('call 1 failed')
        try:
            await release.wait()
        except asyncio.CancelledError:
            cancelled.append(i)
            raise

    with pytest.raises(ValueError, match='call 1 failed'):
        await asyncio.wait_for(run_in_lanes(range(10), 3, handle), 5)
    assert started == [0, 1, 2]
    assert sorted(cancelled) == [0, 2]
