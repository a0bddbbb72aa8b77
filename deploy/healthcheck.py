"""Container health checks: is this container's worker polling its task queue, does a codec endpoint answer.

A worker process that is up but cannot reach Temporal (a wrong address, an expired certificate, a partition) runs
nothing, so "the process is alive" says little. The server records every poller of a task queue with its identity
and when it last polled, and a worker's identity is `<pid>@<hostname>` by default, so the check asks the frontend
(over the same connection settings the worker uses) whether a poller from this host polled the workflow and the
activity task queue recently. An idle worker re-polls at least once a minute (a long poll ends after about 60 s),
so a healthy worker's last poll is never older than that.

```bash
python -m deploy.healthcheck --task-queue agents                  # in the worker's container (the image's HEALTHCHECK)
python -m deploy.healthcheck --codec-endpoint http://127.0.0.1:8081   # in the codec endpoint's container
```

Either prints one line and exits 0 when healthy, 1 when not.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from temporalio.api.enums.v1 import TaskQueueKind, TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client
from temporalio.service import RPCError

from deploy._environment import connect_from_environment

__all__ = (
    'DEFAULT_MAX_POLL_AGE',
    'TASK_QUEUE_ENV_VAR',
    'Unhealthy',
    'check_codec_endpoint',
    'check_worker',
    'main',
)

DEFAULT_MAX_POLL_AGE = timedelta(seconds=150)
"""How long ago a healthy worker may have last polled: a long poll plus room for a slow reconnect."""
TASK_QUEUE_ENV_VAR = 'TASK_QUEUE'
"""The environment variable the worker image takes its task queue from (`--task-queue` overrides it)."""

_TASK_QUEUE_TYPES = {
    'workflow': TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    'activity': TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
}


class Unhealthy(Exception):
    """What is wrong, in one line."""


async def check_worker(
    client: Client,
    task_queue: str,
    *,
    hostname: str | None = None,
    max_poll_age: timedelta = DEFAULT_MAX_POLL_AGE,
    now: datetime | None = None,
) -> str:
    """Check that a worker on `hostname` (this host by default) polls `task_queue`; a line saying so.

    Raises:
        Unhealthy: if no poller from the host polled the workflow or the activity task queue within
            `max_poll_age`, or the frontend cannot be asked.
    """
    hostname = hostname or socket.gethostname()
    now = now or datetime.now(UTC)
    for kind, queue_type in _TASK_QUEUE_TYPES.items():
        request = DescribeTaskQueueRequest(
            namespace=client.namespace,
            task_queue=TaskQueue(name=task_queue, kind=TaskQueueKind.TASK_QUEUE_KIND_NORMAL),
            task_queue_type=queue_type,
        )
        try:
            described = await client.workflow_service.describe_task_queue(request)
        except RPCError as exc:
            raise Unhealthy(f'Could not describe task queue {task_queue!r}: {exc.message}') from exc
        polls = [
            poller.last_access_time.ToDatetime(UTC)
            for poller in described.pollers
            if poller.identity.rpartition('@')[2] == hostname
        ]
        if not polls:
            raise Unhealthy(f'No worker on {hostname} polls the {kind} task queue {task_queue!r}')
        age = now - max(polls)
        if age > max_poll_age:
            raise Unhealthy(
                f'The worker on {hostname} last polled the {kind} task queue {task_queue!r} '
                f'{age.total_seconds():.0f} s ago (more than {max_poll_age.total_seconds():.0f} s)'
            )
    return f'A worker on {hostname} polls task queue {task_queue!r} in namespace {client.namespace!r}'


def check_codec_endpoint(url: str, *, timeout: float = 5.0) -> str:
    """Check that the codec endpoint at `url` decodes (an empty list of payloads); a line saying so.

    Raises:
        Unhealthy: if it does not answer, or answers anything but the decoded (empty) payloads.
    """
    request = urllib.request.Request(
        url.rstrip('/') + '/decode',
        data=json.dumps({'payloads': []}).encode(),
        headers={'Content-Type': 'application/json'},
        method='POST',
    )
    token = os.environ.get('CODEC_SERVER_TOKEN')
    if token:
        request.add_header('Authorization', f'Bearer {token}')
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        raise Unhealthy(f'The codec endpoint at {url} answered {exc.code} to /decode') from exc
    except (OSError, ValueError) as exc:
        raise Unhealthy(f'The codec endpoint at {url} did not answer /decode: {exc}') from exc
    if body != {'payloads': []}:
        raise Unhealthy(f'The codec endpoint at {url} answered /decode with something other than payloads')
    return f'The codec endpoint at {url} decodes'


async def _check_worker(args: argparse.Namespace) -> str:
    try:
        client = await connect_from_environment(args.address, args.namespace)
    except RuntimeError as exc:
        raise Unhealthy(f'Cannot reach Temporal: {exc}') from exc
    return await check_worker(client, args.task_queue, max_poll_age=timedelta(seconds=args.max_poll_age))


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m deploy.healthcheck`: print one line; the exit status (0 healthy, 1 not)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        '--task-queue',
        default=os.environ.get(TASK_QUEUE_ENV_VAR, 'agents'),
        help=f'the task queue the worker polls (default ${TASK_QUEUE_ENV_VAR} or agents)',
    )
    parser.add_argument('--address', help='Temporal frontend host:port (default $TEMPORAL_ADDRESS or localhost:7233)')
    parser.add_argument('--namespace', help='namespace (default $TEMPORAL_NAMESPACE or default)')
    parser.add_argument(
        '--max-poll-age',
        type=float,
        default=DEFAULT_MAX_POLL_AGE.total_seconds(),
        metavar='SECONDS',
        help=f'how long ago the worker may have last polled (default {DEFAULT_MAX_POLL_AGE.total_seconds():g})',
    )
    parser.add_argument('--codec-endpoint', metavar='URL', help='check this codec endpoint instead of a worker')
    args = parser.parse_args(argv)
    try:
        if args.codec_endpoint:
            print(check_codec_endpoint(args.codec_endpoint), flush=True)
        else:
            print(asyncio.run(_check_worker(args)), flush=True)
    except Unhealthy as exc:
        print(f'Unhealthy: {exc}', file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == '__main__':
    code = main()
    # Leave without interpreter finalization: the SDK's native threads can abort it (see worker.exit_process).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
