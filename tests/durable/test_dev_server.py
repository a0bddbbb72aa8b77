"""The embedded dev server's settings, and the matching server config shipped for clusters."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from temporalio import activity, workflow
from temporalio.client import Client
from temporalio.common import RetryPolicy
from temporalio.worker import Worker

from worker import DEV_SERVER_DYNAMIC_CONFIG

DEPLOY = Path(__file__).parent.parent.parent / 'deploy'

attempt_starts: list[float] = []


@activity.defn
async def fails_once() -> str:
    attempt_starts.append(time.monotonic())
    if activity.info().attempt == 1:
        raise RuntimeError('first attempt fails')
    return 'second attempt'


@workflow.defn(sandboxed=False)
class RetryOnce:
    @workflow.run
    async def run(self) -> str:
        return await workflow.execute_activity(
            fails_once,
            start_to_close_timeout=timedelta(seconds=10),
            retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=10), maximum_attempts=2),
        )


def test_the_shipped_cluster_config_matches_the_embedded_server() -> None:
    config = yaml.safe_load((DEPLOY / 'dynamic-config.yaml').read_text())
    assert config == {key: [{'value': value}] for key, value in DEV_SERVER_DYNAMIC_CONFIG.items()}


@pytest.mark.asyncio(loop_scope='session')
async def test_a_retry_back_off_is_not_stretched_to_a_second(client: Client, task_queue: str) -> None:
    # With Temporal's stock setting the server holds every new timer for at least one second, so this retry
    # (10 ms back-off) would start a second or more after the failure.
    attempt_starts.clear()
    async with Worker(client, task_queue=task_queue, workflows=[RetryOnce], activities=[fails_once]):
        result = await client.execute_workflow(RetryOnce.run, id=f'retry-{uuid.uuid4()}', task_queue=task_queue)
    assert result == 'second attempt'
    first, second = attempt_starts
    assert second - first < 0.9
