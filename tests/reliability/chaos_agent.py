"""The agent of the chaos test, served by worker subprocesses that the test kills and cuts off from their server.

Each run is scripted from its prompt (`run-<n>`): the model first calls `quick_step` and `delete_record` (which
needs a person's approval) together, then `slow_step` (0.5 to 1.5 s, so some calls are running when a worker
dies), then answers with every tool result it got. Every tool body appends a `start` and an `end` line to the
file named by `CHAOS_LOG` in one `O_APPEND` write each, so the lines of all workers survive a SIGKILL and never
interleave:

    start quick_step run-7 quick-run-7 <pid> <unix time>
    end quick_step run-7 quick-run-7 <pid> <unix time>
"""

from __future__ import annotations

import asyncio
import os
import time

from agent import Agent, RunContext
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models.function import AgentInfo, FunctionModel

__all__ = ('chaos_agent', 'expected_output', 'slow_seconds')

TOOLS = ('quick_step', 'delete_record', 'slow_step')


def slow_seconds(run: str) -> float:
    """How long `slow_step` takes in `run`: 0.5 to 1.5 s, spread over the runs."""
    return 0.5 + int(run.rpartition('-')[2]) % 11 / 10


def expected_output(run: str, denial: str | None) -> str:
    """The answer of `run` when its deletion is approved (`denial` is `None`) or denied with that message."""
    deleted = denial if denial is not None else f'deleted {run}'
    return f'quick_step=quick {run}; delete_record={deleted}; slow_step=slow {run}'


def _respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    first = messages[0]
    assert isinstance(first, ModelRequest)
    run = next(str(p.content) for p in first.parts if isinstance(p, UserPromptPart))
    parts = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts]
    returned = {p.tool_name: p.content for p in parts if isinstance(p, ToolReturnPart)}
    if not returned:
        return ModelResponse(
            parts=[
                ToolCallPart('quick_step', {'run': run}, f'quick-{run}'),
                ToolCallPart('delete_record', {'run': run}, f'delete-{run}'),
            ]
        )
    if 'slow_step' not in returned:
        return ModelResponse(parts=[ToolCallPart('slow_step', {'run': run}, f'slow-{run}')])
    return ModelResponse(parts=[TextPart('; '.join(f'{tool}={returned[tool]}' for tool in TOOLS))])


chaos_agent = Agent(FunctionModel(_respond), name='chaos_agent')


def _log(event: str, ctx: RunContext[None], run: str) -> None:
    line = f'{event} {ctx.tool_name} {run} {ctx.tool_call_id} {os.getpid()} {time.time():.6f}\n'
    fd = os.open(os.environ['CHAOS_LOG'], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


@chaos_agent.tool
def quick_step(ctx: RunContext[None], run: str) -> str:
    """A fast tool (run in a thread, as sync tools are)."""
    _log('start', ctx, run)
    _log('end', ctx, run)
    return f'quick {run}'


@chaos_agent.tool(requires_approval=True)
async def delete_record(ctx: RunContext[None], run: str) -> str:
    """A tool that runs only once a person approves it."""
    _log('start', ctx, run)
    _log('end', ctx, run)
    return f'deleted {run}'


@chaos_agent.tool
async def slow_step(ctx: RunContext[None], run: str) -> str:
    """A slow tool, so that some calls are running when a worker is killed."""
    _log('start', ctx, run)
    await asyncio.sleep(slow_seconds(run))
    _log('end', ctx, run)
    return f'slow {run}'
