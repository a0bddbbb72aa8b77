"""Which version of its agent a run started on: in its status, its current details and `AgentVersion`.

The version is the agent's fingerprint (`workflows._fingerprint`), computed once per agent when a worker registers
it, never in the workflow. What the registry holds is the current worker's: a worker whose agent changed since would
read its own version if it replayed the run and asked the registry. So the run records nothing of its own for it (no
marker, no activity, no extra activation: the version is a label, and a run's first workflow task is its hottest
path); it keeps the value from results its history records anyway:

- `RunStatus.agent_version` and the details (what the Web UI shows) take the version from the run's first model
  response: the model-request activity's output carries the version of the agent on the worker that answered it
  (`ModelRequestOutput.agent_version`), and a replay reads that output back from the history, whichever worker
  replays. Before that response the run shows no version (the rule is simply "shown once recorded"): a run does not
  wait long for its first response, and it is honest where the registry's value would not be. It is the version of
  the worker that ran the first model request, which is the one that started the run unless a deploy came between
  (with Worker Versioning, runs are pinned to the version that started them).
- The `AgentVersion` search attribute goes into the upsert the run makes anyway as it starts (with `AgentName`,
  `AgentOwner` and its state, see `workflows._run_attributes`), with the registry's value, where the worker's
  namespace has the attribute (`records_agent_version`, see `workflows._search_attributes`). A replay compares an
  upsert command with the recorded event by its kind only, not its contents, so a replay by a worker of a changed
  agent (whose registry reads another version) replays that upsert as it was recorded; and the start upsert always
  holds `AgentName`, so whether `AgentVersion` is in it never changes the number of commands.

Continue-as-new carries the recorded version to the next run (`AgentRunInput.agent_version`), and the search
attributes with it, so the next run neither upserts `AgentVersion` again nor takes a later response's version: a
conversation shows its first turn's version, also after it moved to a new deployment version between turns. A child
run records its own agent's. The version is that of the run's own agent (its `AgentName`), also once a conversation
is handed off to another agent: responses of the agent it was handed to do not count. Runs started before runs
recorded versions (or whose first response came from a worker that did not fill it in) show none.

One thing the replay of the start upsert does change: the run's own view of its search attributes
(`workflow.info().typed_search_attributes`) takes the replaying worker's values, and continue-as-new hands that view
to the next run. So a run that continues as new on a worker other than the one that started it hands over the
version it recorded instead (`carried_attributes`).
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.common import SearchAttributePair, TypedSearchAttributes

from ._registry import agent_version, records_agent_version
from ._search_attributes import AGENT_VERSION

__all__ = ('carried_attributes', 'version_attribute')


def version_attribute(agent: str) -> str | None:
    """The `AgentVersion` the run upserts with its start attributes: `None` for none.

    Only the first run of a workflow upserts it (a run that continued as new carries its predecessor's attributes),
    and only where the worker's namespace has the attribute.
    """
    info = workflow.info()
    if info.continued_run_id is not None or not records_agent_version(info.task_queue):
        return None
    return agent_version(agent, info.task_queue)


def carried_attributes(version: str | None) -> TypedSearchAttributes | None:
    """The search attributes a run continuing as new hands over, with `AgentVersion` the `version` it recorded.

    `None` (the SDK's default: the run's own view of them) where that view says so already, or holds no version (the
    namespace lacks the attribute, or the run records none), or the run recorded none.
    """
    current = workflow.info().typed_search_attributes
    if version is None or current.get(AGENT_VERSION) in (None, version):
        return None
    kept = [pair for pair in current if pair.key.name != AGENT_VERSION.name]
    return TypedSearchAttributes([*kept, SearchAttributePair(AGENT_VERSION, version)])
