"""The local activity that records which version of its agent a run started on: once, in the run's history.

A run's agent version (`workflows.agent_fingerprint`) is computed by the worker when it registers the agent, and
read by the workflow as the run starts. That value is the worker's, not the run's: a worker with changed code that
replays the run later would read its own. So the workflow hands the value to this activity, which gives it back,
and the history records the answer as a local activity's marker; a replay takes the recorded answer without running
anything, whatever the replaying worker's agents are (see `workflows._agent_version`).
"""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import activity

__all__ = ('AGENT_VERSION_ACTIVITY', 'AgentVersionRecord', 'record_agent_version')

AGENT_VERSION_ACTIVITY = 'agent.version.record'
"""The local activity's name (one for every agent of a worker)."""


@dataclass
class AgentVersionRecord:
    """What a run records as it starts: its agent's version, and whether it records it as a search attribute."""

    version: str | None
    """The agent's fingerprint on the worker that started the run (`None` if it did not serve the agent)."""
    search_attribute: bool = False
    """Whether the run upserts it as `AgentVersion` (the worker's namespace has the attribute registered)."""


@activity.defn(name=AGENT_VERSION_ACTIVITY)
async def record_agent_version(record: AgentVersionRecord) -> AgentVersionRecord:
    """Give back what the workflow read, so that its history keeps it."""
    return record
