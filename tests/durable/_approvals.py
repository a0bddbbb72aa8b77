"""Waiting, from a test, for a durable run to stop at an approval."""

from __future__ import annotations

import asyncio

from workflows.client import AgentClient


async def wait_for_approval(agents: AgentClient, workflow_id: str) -> None:
    """Return once the run `workflow_id` waits for at least one approval (bounded: ~10 s)."""
    for _ in range(200):
        pending = await agents.pending(workflow_id)
        if pending is not None and pending.approvals:
            return
        await asyncio.sleep(0.05)
    raise AssertionError('the run never waited for an approval')
