"""The toolset a tool activity calls its tool on: the run's own instance, as `for_run` and `for_run_step` give it.

In-process, a run asks its toolset for `for_run(ctx)` once when it starts, enters that instance for the run's
length, and asks it for `for_run_step(ctx)` before each model request; the tools are listed and called on what
that returns. A durable run lists its tools in the workflow, which runs the same agent code and so asks the same
questions there. Its tools run in the tool activity, on a worker that serves many runs at once and may never have
seen this run before, so the activity asks them again, for itself:

- `for_run` is called once per tool activity, with the activity's run context (the run's deps, run id,
  conversation id, step, usage and metadata; `prompt` and `messages` do not cross, and reading them raises a
  `UserError` that says so), then the instance is entered, asked for `for_run_step` with the same context, and
  the tool is looked up and called on what that returns; the instance is exited when the activity ends.
- So two runs never share a per-run instance, even on one worker at the same time (a `DynamicToolset` builds its
  toolset from each run's own deps), and a step's instance sees the step the call belongs to.
- What a per-run instance keeps lasts one activity: state that must last the whole run cannot live in a
  worker's memory (the next call may run on another worker, or after a restart). Keep it in the workflow (which
  lists the tools on its own per-run instance, replayed from history), or in a store keyed by `ctx.run_id`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from agent import Agent
from agent._agent_run_setup import assemble_toolset
from agent._run_context import RunContext
from agent.capabilities import AbstractCapability
from agent.toolsets import AbstractToolset

from ._remote_toolsets import RemoteToolsets

__all__ = ('run_toolset',)


@asynccontextmanager
async def run_toolset(
    agent: Agent[Any, Any],
    capability: AbstractCapability[Any],
    remote: RemoteToolsets | None,
    ctx: RunContext[Any],
) -> AsyncIterator[AbstractToolset[Any]]:
    """The run's toolset for this step, entered for the block (the order and lifecycle of an in-process run).

    Args:
        agent: The registered agent.
        capability: The run's whole capability (its toolsets and toolset wrapper join the agent's).
        remote: The worker's live connections to the agent's networked toolsets, if it has any.
        ctx: The activity's run context.
    """
    toolset = assemble_toolset(agent, capability, None)
    if remote is not None:
        # Swapped in before `for_run`, so a wrapper's per-run instance wraps the live connection.
        toolset = await remote.pooled(toolset)
    toolset = await toolset.for_run(ctx)
    async with toolset:
        yield await toolset.for_run_step(ctx)
