"""S10 `delegation`: a parent agent whose one tool runs S1's agent as a durable child run.

The parent's model first calls its one tool, `ask`, which runs another agent with `usage=ctx.usage`
(Pydantic AI's agent delegation; see `docs/multi-agent.md`); its second response is the final text, made of what
the tool returned. The other agent is shaped like S1 (`lookup`, then `fetch_a` + `fetch_b`, then text; each tool
returning `DEFAULT_PAYLOAD` bytes), and the worker serves both agents, so its run is a child `AgentWorkflow` of the
parent's. A durable delegation costs the parent two model requests and two rounds of the tool's activity (the first
stops at the `run(...)` call and hands it to the workflow, the second gets the child's result), besides the child.

The floor (`BareDelegation`, run by S0) is a bare parent workflow with no activity that runs S1's floor
(`BareWorkflow`) as its child. Each side: warm-ups, then sequential runs, each timed from the parent's start to its
result. The line reports the parent's and the child's histories separately and summed (the last measured run's),
and the same agents in process (the child runs inside the tool).
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle, WorkflowHistory

from agent import Agent, RunContext
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker

from ._support import Bench, history_stats, inprocess_wall, ms, new_task_queue, p95, run_durable
from .agents import DEFAULT_PAYLOAD, USAGE, build_agent, tool_loop, tool_loop_output
from .bare import BARE_OUTPUT, BareDelegation

__all__ = (
    'DelegationShape',
    'delegate_agent',
    'delegation',
    'delegation_floor',
    'delegation_output',
    'delegation_shape',
    'delegator_agent',
    's10_delegation',
)

ASK_CALL_ID = 'ask-1'
"""The tool call id of the parent's delegating call (the child's workflow id ends with it)."""


@dataclass(frozen=True)
class DelegationShape:
    """How many runs each side makes."""

    runs: int = 40
    """Measured runs, one at a time."""
    warmups: int = 2
    """Runs before them, not measured."""


def delegation_shape(bench: Bench) -> DelegationShape:
    """S10's shape: 40 measured runs, 10 with `--quick`."""
    return DelegationShape(runs=10) if bench.quick else DelegationShape()


def delegating(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Ask the other agent, then answer with what it said."""
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    returns = [part for part in last.parts if isinstance(part, ToolReturnPart)]
    if not returns:
        return ModelResponse(parts=[ToolCallPart('ask', {'question': 'go'}, ASK_CALL_ID)], usage=USAGE)
    return ModelResponse(parts=[TextPart(f'delegated: {returns[0].content}')], usage=USAGE)


def delegation_output() -> str:
    """The parent's final text."""
    return f'delegated: {tool_loop_output()}'


delegate_agent = build_agent('bench_delegate', tool_loop)
"""The child: S1's tool loop."""
delegator_agent = Agent(FunctionModel(delegating), name='bench_delegator')
"""The parent: one model script, one delegating tool."""


@delegator_agent.tool
async def ask(ctx: RunContext[None], question: str) -> str:
    """Ask the other agent.

    Args:
        question: What to ask it.
    """
    result = await delegate_agent.run(question, usage=ctx.usage)
    return result.output


Run = Callable[[], Awaitable[tuple[float, WorkflowHandle[Any, Any]]]]


async def _measured(shape: DelegationShape, run: Run) -> tuple[list[float], float, WorkflowHandle[Any, Any]]:
    """Wall times of `shape.runs` sequential runs after the warm-ups, the process CPU they took, the last handle."""
    for _ in range(shape.warmups):
        await run()
    walls: list[float] = []
    handle = None
    cpu = time.process_time()
    for _ in range(shape.runs):
        wall, handle = await run()
        walls.append(wall)
    cpu = time.process_time() - cpu
    assert handle is not None
    return walls, cpu, handle


async def parent_and_child(client: Client, handle: WorkflowHandle[Any, Any]) -> tuple[WorkflowHistory, WorkflowHistory]:
    """The histories of a parent run and of the one child run it started."""
    parent = await handle.fetch_history()
    (child,) = [
        event.child_workflow_execution_started_event_attributes.workflow_execution
        for event in parent.events
        if event.event_type == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED
    ]
    return parent, await client.get_workflow_handle(child.workflow_id, run_id=child.run_id).fetch_history()


def _figures(walls: list[float], cpu: float, parent: WorkflowHistory, child: WorkflowHistory) -> dict[str, Any]:
    sides = {'parent': history_stats(parent), 'child': history_stats(child)}
    figures: dict[str, Any] = {
        'median_ms': ms(statistics.median(walls)),
        'p95_ms': ms(p95(walls)),
        'worker_cpu_ms_per_run': ms(cpu / len(walls)),
        'history_events': sum(stats['history_events'] for stats in sides.values()),
        'history_proto_bytes': sum(stats['history_proto_bytes'] for stats in sides.values()),
    }
    for side, stats in sides.items():
        for key in ('history_events', 'history_proto_bytes', 'activities_scheduled', 'workflow_tasks'):
            figures[f'{side}_{key}'] = stats[key]
        figures[f'{side}_workflow_task_failures'] = stats['workflow_task_failures']
    return figures


async def delegation(client: Client, shape: DelegationShape, *, sandboxed: bool = True) -> dict[str, Any]:
    """S10 on the runtime: the delegating agent's runs on a worker that serves both agents, then in process."""
    queue, expected = new_task_queue('S10'), delegation_output()
    agents = {'bench_delegator': delegator_agent, 'bench_delegate': delegate_agent}
    async with build_worker(client, agents, task_queue=queue, sandboxed=sandboxed):
        walls, cpu, handle = await _measured(
            shape, lambda: run_durable(client, queue, 'bench_delegator', 'go', expected)
        )
        parent, child = await parent_and_child(client, handle)
        requests = (await handle.result()).usage.requests

    async def in_process() -> None:
        result = await delegator_agent.run('go')
        assert result.output == expected

    local = await inprocess_wall(in_process, shape.runs, warmups=shape.warmups)
    return {
        'payload': DEFAULT_PAYLOAD,
        'runs': shape.runs,
        **_figures(walls, cpu, parent, child),
        # The parent's two and the child's three: the child's usage joins the parent's once.
        'model_requests': requests,
        'inprocess_median_ms': ms(statistics.median(local)),
        'durable_over_inprocess': round(statistics.median(walls) / statistics.median(local), 1),
    }


async def s10_delegation(bench: Bench) -> dict[str, Any]:
    return await delegation(bench.client, delegation_shape(bench), sandboxed=bench.sandboxed)


async def delegation_floor(client: Client, task_queue: str, shape: DelegationShape) -> dict[str, Any]:
    """S10 on the bare workflows (run by S0 on a worker of `task_queue` that serves `BareDelegation`)."""

    async def run_bare() -> tuple[float, WorkflowHandle[Any, Any]]:
        started = time.perf_counter()
        handle = await client.start_workflow(
            BareDelegation.run, id=f'{task_queue}-{uuid.uuid4().hex[:12]}', task_queue=task_queue
        )
        if (result := await handle.result()) != BARE_OUTPUT:
            raise RuntimeError(f'Bare delegation {handle.id} returned {result!r}')
        return time.perf_counter() - started, handle

    walls, cpu, handle = await _measured(shape, run_bare)
    parent, child = await parent_and_child(client, handle)
    return _figures(walls, cpu, parent, child)
