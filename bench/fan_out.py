"""S9 `fan_out`: one model response that asks for hundreds of tool calls, under the run's in-flight limit.

The model's first response asks for `calls` calls of one tool (500; 200 with `--quick`), each returning
`DEFAULT_PAYLOAD` bytes; its second is the final text. The run keeps at most `DurableAgent`'s default
`max_tool_calls_in_flight` (32) tool activities running. The floor (`BareFanOut`, run by S0) schedules as many
activities with the same bound on a bare Temporal workflow. Each side: a warm-up, then a few measured runs.

Besides the wall time and the worker's CPU, the line reports the most tool activities in flight at once (counted
from each run's history: scheduled until completed, failed, timed out or cancelled), the history's bytes per call,
one run of the same response with no limit (`unbounded_*`: every call scheduled in one workflow task), and the
same agent in-process.
"""

from __future__ import annotations

import statistics
import time
import uuid
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHistory

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import DurableAgent
from workflows._fan_out import DEFAULT_MAX_TOOL_CALLS_IN_FLIGHT

from ._support import Bench, history_stats, inprocess_wall, ms, new_task_queue, run_durable
from .agents import DEFAULT_PAYLOAD, USAGE, _body
from .bare import BareFanOut

__all__ = ('fan_out_floor', 's9_fan_out')

_ENDED = {
    EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: 'activity_task_completed_event_attributes',
    EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED: 'activity_task_failed_event_attributes',
    EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT: 'activity_task_timed_out_event_attributes',
    EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED: 'activity_task_canceled_event_attributes',
}


def _calls(bench: Bench) -> tuple[int, int]:
    """How many calls the response asks for, and how many measured runs each side makes."""
    return (200, 2) if bench.quick else (500, 3)


def fan_out(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """As many `lookup` calls as the prompt says, all in the first response; then the final text."""
    first = messages[0]
    assert isinstance(first, ModelRequest)
    calls = int(str(next(p for p in first.parts if isinstance(p, UserPromptPart)).content))
    if len(messages) == 1:
        parts = [ToolCallPart('lookup', {'index': i}, f'call-{i}') for i in range(calls)]
        return ModelResponse(parts=parts, usage=USAGE)
    return ModelResponse(parts=[TextPart(fan_out_output(calls))], usage=USAGE)


def fan_out_output(calls: int) -> str:
    """The final text of a run of `calls` calls."""
    return f'done after {calls} tool calls'


fan_out_agent = Agent(FunctionModel(fan_out), name='bench_fan_out')
_BODY = _body('fan_out', DEFAULT_PAYLOAD)


@fan_out_agent.tool_plain
async def lookup(index: int) -> str:
    """Look an index up.

    Args:
        index: The index to look up.
    """
    return _BODY


def max_in_flight(history: WorkflowHistory, activity_type: str) -> int:
    """The most activities of a type (by its name's end) that were scheduled and not yet ended at once."""
    open_ids: set[int] = set()
    peak = 0
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            if event.activity_task_scheduled_event_attributes.activity_type.name.endswith(activity_type):
                open_ids.add(event.event_id)
                peak = max(peak, len(open_ids))
        elif (field := _ENDED.get(event.event_type)) is not None:
            open_ids.discard(getattr(event, field).scheduled_event_id)
    return peak


def _figures(walls: list[float], cpu: float, history: WorkflowHistory, calls: int, activity: str) -> dict[str, Any]:
    stats = history_stats(history)
    return {
        'wall_ms': ms(statistics.median(walls)),
        'worker_cpu_ms_per_run': ms(cpu / len(walls)),
        'max_in_flight': max_in_flight(history, activity),
        'history_events': stats['history_events'],
        'history_proto_bytes': stats['history_proto_bytes'],
        'proto_bytes_per_call': round(stats['history_proto_bytes'] / calls),
        'workflow_tasks': stats['workflow_tasks'],
        'workflow_task_failures': stats['workflow_task_failures'],
    }


async def s9_fan_out(bench: Bench) -> dict[str, Any]:
    calls, measured = _calls(bench)
    name, prompt, expected, queue = 'bench_fan_out', str(calls), fan_out_output(calls), new_task_queue('S9')
    # The same agent again with no limit: every call of the response scheduled in one workflow task.
    unbounded_agent = DurableAgent(fan_out_agent, max_tool_calls_in_flight=calls)
    agents = {name: fan_out_agent, 'bench_fan_out_unbounded': unbounded_agent}
    async with build_worker(bench.client, agents, task_queue=queue, sandboxed=bench.sandboxed):
        await run_durable(bench.client, queue, name, prompt, expected)  # warm-up
        walls: list[float] = []
        cpu = time.process_time()
        handle = None
        for _ in range(measured):
            wall, handle = await run_durable(bench.client, queue, name, prompt, expected)
            walls.append(wall)
        cpu = time.process_time() - cpu
        assert handle is not None
        figures = _figures(walls, cpu, await handle.fetch_history(), calls, '.call_tool')
        unbounded_wall, unbounded = await run_durable(bench.client, queue, 'bench_fan_out_unbounded', prompt, expected)
        unbounded_history = await unbounded.fetch_history()

    async def in_process() -> None:
        result = await fan_out_agent.run(prompt)
        assert result.output == expected

    local = await inprocess_wall(in_process, measured, warmups=1)
    return {
        'calls': calls,
        'payload': DEFAULT_PAYLOAD,
        'max_tool_calls_in_flight': DEFAULT_MAX_TOOL_CALLS_IN_FLIGHT,
        'runs': measured,
        **figures,
        'unbounded_wall_ms': ms(unbounded_wall),
        'unbounded_max_in_flight': max_in_flight(unbounded_history, '.call_tool'),
        'unbounded_workflow_tasks': history_stats(unbounded_history)['workflow_tasks'],
        'inprocess_median_ms': ms(statistics.median(local)),
        'durable_over_inprocess': round(statistics.median(walls) / statistics.median(local), 1),
    }


async def fan_out_floor(bench: Bench, client: Client, task_queue: str) -> dict[str, Any]:
    """S9 on the bare workflow (run by S0 on a worker of `task_queue` that serves `BareFanOut`)."""
    calls, measured = _calls(bench)

    async def run_bare() -> tuple[float, Any]:
        started = time.perf_counter()
        handle = await client.start_workflow(
            BareFanOut.run,
            args=[calls, DEFAULT_MAX_TOOL_CALLS_IN_FLIGHT],
            id=f'{task_queue}-{uuid.uuid4().hex[:12]}',
            task_queue=task_queue,
        )
        if await handle.result() != calls:
            raise RuntimeError(f'Bare fan-out run {handle.id} did not make {calls} calls')
        return time.perf_counter() - started, handle

    await run_bare()  # warm-up
    walls: list[float] = []
    cpu = time.process_time()
    handle = None
    for _ in range(measured):
        wall, handle = await run_bare()
        walls.append(wall)
    cpu = time.process_time() - cpu
    assert handle is not None
    return _figures(walls, cpu, await handle.fetch_history(), calls, 'bare.fan_out_call')
