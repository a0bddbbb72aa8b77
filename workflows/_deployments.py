"""Reading and steering a versioned worker deployment from a client: its versions, the runs each holds, which is
current or ramping, and which are drained (`agents deploy`; see `workflows._versioning` for what versions mean).

The SDK has no client methods for worker deployments yet, so these call the server's `WorkflowService` directly. How
many open runs a version holds is a visibility count on the `TemporalWorkerDeploymentVersion` search attribute, which
the server sets on every versioned run: the same query the server makes for its own drainage status, which it only
updates minutes later (`matching.wv.VersionDrainageStatusVisibilityGracePeriod`, three minutes by default, then every
`matching.wv.VersionDrainageStatusRefreshInterval`). Here a version that no longer takes new runs is drained as soon as
the count says it holds none, so the count's own lag (visibility is eventually consistent) is the only delay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from temporalio.api.enums.v1 import WorkerDeploymentVersionStatus
from temporalio.api.workflowservice.v1 import (
    DescribeWorkerDeploymentRequest,
    ListWorkerDeploymentsRequest,
    SetWorkerDeploymentCurrentVersionRequest,
    SetWorkerDeploymentRampingVersionRequest,
)
from temporalio.client import Client

__all__ = (
    'DeploymentState',
    'VersionState',
    'deployment_names',
    'describe_deployment',
    'open_runs_on',
    'set_current_version',
    'set_ramping_version',
)

VersionRole = Literal['current', 'ramping', 'draining', 'drained', 'inactive']
"""What a version does now: takes new runs (`current`, `ramping` for a share of them), holds older runs but takes no
new ones (`draining`), holds none (`drained`), or has never taken runs (`inactive`)."""


@dataclass(frozen=True)
class VersionState:
    """One version of a worker deployment, as `describe_deployment` found it."""

    build_id: str
    """The version's build id (`agents worker --build-id`, by default the hash of the worker's code)."""
    role: VersionRole
    """What it does now (see `VersionRole`)."""
    open_runs: int
    """How many runs that have not ended it holds (pinned runs, and conversations until their next hand-over)."""
    ramp_percentage: float | None = None
    """The share of new runs it takes while ramping, in percent (`None` unless ramping)."""


@dataclass(frozen=True)
class DeploymentState:
    """A worker deployment's versions, the newest first."""

    name: str
    """The deployment's name (`agents worker --deployment`)."""
    versions: list[VersionState]
    """Its versions, the most recently created first."""

    @property
    def current(self) -> str | None:
        """The build id of the current version (`None` while new runs go to unversioned workers)."""
        return next((v.build_id for v in self.versions if v.role == 'current'), None)


async def deployment_names(client: Client) -> list[str]:
    """The names of the worker deployments in the client's namespace, sorted.

    Raises:
        RPCError: from the server, e.g. `PERMISSION_DENIED` where Worker Versioning is disabled.
    """
    names: list[str] = []
    token = b''
    while True:
        page = await client.workflow_service.list_worker_deployments(
            ListWorkerDeploymentsRequest(namespace=client.namespace, next_page_token=token)
        )
        names += [summary.name for summary in page.worker_deployments]
        token = page.next_page_token
        if not token:
            return sorted(names)


async def open_runs_on(client: Client, deployment: str, build_id: str) -> int:
    """How many runs that have not ended are on version `build_id` of `deployment` (a visibility count)."""
    version = f'{deployment}:{build_id}'.replace("'", "\\'")
    query = f"TemporalWorkerDeploymentVersion = '{version}' AND ExecutionStatus = 'Running'"
    return (await client.count_workflows(query)).count


async def describe_deployment(client: Client, deployment: str) -> DeploymentState:
    """The versions of `deployment`, what each does, and how many open runs each holds.

    Raises:
        RPCError: `NOT_FOUND` for a deployment no worker has polled for, or another error from the server.
    """
    described = await client.workflow_service.describe_worker_deployment(
        DescribeWorkerDeploymentRequest(namespace=client.namespace, deployment_name=deployment)
    )
    info = described.worker_deployment_info
    ramping = info.routing_config.ramping_deployment_version.build_id or None
    percentage = info.routing_config.ramping_version_percentage
    summaries = sorted(info.version_summaries, key=lambda s: s.create_time.ToNanoseconds(), reverse=True)
    versions: list[VersionState] = []
    for summary in summaries:
        build_id = summary.deployment_version.build_id
        runs = await open_runs_on(client, deployment, build_id)
        role = _role(summary.status, runs)
        versions.append(VersionState(build_id, role, runs, percentage if build_id == ramping else None))
    return DeploymentState(deployment, versions)


def _role(status: WorkerDeploymentVersionStatus.ValueType, open_runs: int) -> VersionRole:
    if status == WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT:
        return 'current'
    if status == WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_RAMPING:
        return 'ramping'
    if status == WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_INACTIVE and not open_runs:
        return 'inactive'
    # Draining or drained by the server's last check, which lags (see the module's docstring): the count decides.
    return 'draining' if open_runs else 'drained'


async def set_current_version(client: Client, deployment: str, build_id: str, *, identity: str = '') -> None:
    """Make version `build_id` of `deployment` current: new runs (and conversations at their next hand-over) go to
    it, and the version it replaces takes no new runs (its pinned runs go on there).

    Raises:
        RPCError: `NOT_FOUND` for an unknown deployment, `FAILED_PRECONDITION` for a version no worker has polled
            for, or another error from the server.
    """
    await client.workflow_service.set_worker_deployment_current_version(
        SetWorkerDeploymentCurrentVersionRequest(
            namespace=client.namespace, deployment_name=deployment, build_id=build_id, identity=identity
        )
    )


async def set_ramping_version(
    client: Client, deployment: str, build_id: str | None, percentage: float, *, identity: str = ''
) -> None:
    """Send `percentage` percent of new runs to version `build_id` of `deployment` (the rest go to the current one);
    `build_id=None` stops the ramp.

    Raises:
        RPCError: as `set_current_version`.
    """
    await client.workflow_service.set_worker_deployment_ramping_version(
        SetWorkerDeploymentRampingVersionRequest(
            namespace=client.namespace,
            deployment_name=deployment,
            build_id=build_id or '',
            percentage=percentage if build_id else 0.0,
            identity=identity,
        )
    )
