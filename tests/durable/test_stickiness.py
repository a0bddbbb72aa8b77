"""A retried activity moves its run off the sticky queue once, not on every attempt."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any, cast

from temporalio.client import Client
from temporalio.testing import ActivityEnvironment

from activities import _stickiness


class RecordingService:
    def __init__(self) -> None:
        self.resets: list[str] = []

    async def reset_sticky_task_queue(self, request: Any) -> None:
        self.resets.append(request.execution.workflow_id)


class FakeClient:
    namespace = 'default'

    def __init__(self) -> None:
        self.workflow_service = RecordingService()


async def attempt(env: ActivityEnvironment, workflow_id: str, number: int) -> None:
    env.info = dataclasses.replace(env.info, attempt=number, workflow_id=workflow_id, workflow_run_id='run')

    async def body() -> None:
        _stickiness.release_stickiness_on_retry()
        await asyncio.sleep(0)  # let the background reset run

    await env.run(body)


async def test_only_retries_reset_and_each_run_at_most_once_in_a_while() -> None:
    client = FakeClient()
    env = ActivityEnvironment(client=cast(Client, client))
    _stickiness._recent.clear()
    await attempt(env, 'first-try', 1)
    await attempt(env, 'rate-limited', 2)
    await attempt(env, 'rate-limited', 3)
    await attempt(env, 'rate-limited', 4)
    await attempt(env, 'other-run', 2)
    await asyncio.sleep(0)
    assert client.workflow_service.resets == ['rate-limited', 'other-run']
