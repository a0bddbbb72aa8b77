"""Worker Versioning: which code a run runs on while a new version of its agents is rolled out.

A worker built with a deployment name (`build_worker(..., deployment='payments')`, `agents worker --deployment`)
registers one *version* of that Temporal worker deployment: the deployment name plus a build id (by default
`worker.code_build_id`, a hash of the code it runs). The server sends new runs to the deployment's *current* version
(or, with a ramp, a share of them to the *ramping* one), and `agents deploy set-current` / `agents deploy ramp`
move that target.

- A run is **pinned**: it runs to its end on the version that took its first workflow task, however long it waits for
  an approval. Its history was written by that code, so the code that replays it is the same, and an agent whose tools
  or approval rules changed in the meantime never meets it. That is the worker's default behaviour
  (`VersioningBehavior.PINNED`), so the workflow itself carries no annotation and an unversioned worker runs it as
  before. A one-shot run that continues as new between steps (a long run, `max_steps_per_run`) stays on its version:
  a pinned run's next run inherits the version.
- A **conversation** can live for months, so being pinned to the code it started on would hold old workers up for as
  long. Between turns, when it continues as new (`workflows._agent_workflow`), it asks for the task queue's *current*
  version instead (`ContinueAsNewVersioningBehavior.AUTO_UPGRADE`): the next run starts there with nothing but the
  conversation's messages, and is pinned there until its own hand-over. That is a safe point: no turn is half done,
  no tool call waits. A conversation continued in the middle of a turn (a long turn's steps) stays on its version.

Temporal offers a second mechanism, the per-run dynamic versioning behaviour (`@workflow.dynamic_config`); the SDK
allows it only for dynamic workflows, which `AgentWorkflow` is not, and it would still leave a conversation on its
version until a new run begins. Upgrade-on-continue-as-new is the one that moves exactly at the hand-over.
"""

from __future__ import annotations

from collections import Counter

from temporalio.common import VersioningBehavior, WorkerDeploymentVersion
from temporalio.worker import WorkerDeploymentConfig
from temporalio.workflow import ContinueAsNewVersioningBehavior

__all__ = ('CONVERSATION_HANDOVER', 'deployment_config', 'eager_start_allowed', 'versioned_worker_running')

CONVERSATION_HANDOVER = ContinueAsNewVersioningBehavior.AUTO_UPGRADE
"""How a conversation's next run, continued as new between turns, picks its version: the task queue's current one.

On an unversioned worker the server has no versions to choose from and the next run goes on as before."""


def deployment_config(deployment: str, build_id: str) -> WorkerDeploymentConfig:
    """A worker's Worker Versioning settings: version `build_id` of `deployment`, runs pinned to it by default."""
    return WorkerDeploymentConfig(
        version=WorkerDeploymentVersion(deployment_name=deployment, build_id=build_id),
        use_worker_versioning=True,
        default_versioning_behavior=VersioningBehavior.PINNED,
    )


# Task queues that a versioned worker of this process polls, with how many such workers poll each.
_versioned_queues: Counter[str] = Counter()


def versioned_worker_running(task_queue: str, running: bool) -> None:
    """Note that a versioned worker of this process starts (`running`) or stops polling `task_queue`."""
    _versioned_queues[task_queue] += 1 if running else -1
    if _versioned_queues[task_queue] <= 0:
        del _versioned_queues[task_queue]


def eager_start_allowed(task_queue: str) -> bool:
    """Whether a run started on `task_queue` from this process may ask for Temporal's eager workflow start.

    Eager start hands the run's first workflow task to a worker of the starting client's process. The dev server
    (Server 1.32) accepts that whatever the worker's version, so a process still running an old version's worker
    (a chat server, a test) would pin new runs to the old version after another was made current: where a versioned
    worker of this process polls the queue, runs start through the task queue, which routes them to the current one.
    """
    return task_queue not in _versioned_queues
