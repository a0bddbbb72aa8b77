"""A run records the version of its agent as it starts: in its status, its current details and `AgentVersion`.

The version is the agent's fingerprint (`workflows._fingerprint`), computed once per agent when a worker registers
it, never in the workflow. The workflow reads it from the registry as the run starts, but what the registry holds is
the current worker's: a worker whose agent changed since would read its own version when it replays the run. So
the run records the value through a local activity that gives it back (`activities._agent_version`), and a replay
takes the recorded answer from the history instead of the registry: the run shows the version it started on,
whichever worker replays it. The same answer says whether the run upserts the `AgentVersion` search attribute (its
worker's namespace has it, see `workflows._search_attributes`), so a replay issues the same commands too.

Recording it is a patch (`AGENT_VERSION_PATCH`): runs started before it replay without the activity and show no
version. Each workflow run records its own: a run that continues as new records the version of the worker that
continues it (which upserts `AgentVersion` only if it differs). A child run records its own agent's. The version is
that of the run's own agent (its `AgentName`), also once a conversation is handed off to another agent. A failure of
the activity (a worker that does not register it) leaves the run without a version rather than failing it.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

from activities._agent_version import AgentVersionRecord, record_agent_version

from ._registry import agent_version, records_agent_version

__all__ = ('AGENT_VERSION_PATCH', 'recorded_agent_version')

AGENT_VERSION_PATCH = 'agent-version'
"""The patch id under which a run records its agent's version."""

_ATTEMPT_TIMEOUT = timedelta(seconds=10)
_RETRY = RetryPolicy(maximum_attempts=3)


async def recorded_agent_version(agent: str) -> AgentVersionRecord | None:
    """The version of `agent` the run started on, as its history records it (recorded now, if the run is new).

    `None` for a run started before runs recorded versions, or one whose worker could not record it.
    """
    if not workflow.patched(AGENT_VERSION_PATCH):
        return None
    task_queue = workflow.info().task_queue
    # Read on replay as well, but never used there: the activity's recorded result is.
    current = AgentVersionRecord(agent_version(agent, task_queue), records_agent_version(task_queue))
    try:
        return await workflow.execute_local_activity(
            record_agent_version,
            current,
            activity_id='agent_version',
            start_to_close_timeout=_ATTEMPT_TIMEOUT,
            retry_policy=_RETRY,
            summary=f'Agent version {current.version}',
        )
    except ActivityError:
        return None
