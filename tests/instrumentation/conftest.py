from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent import Agent

from ._otel import Telemetry


@pytest.fixture
def telemetry() -> Telemetry:
    return Telemetry.create()


@pytest.fixture(autouse=True)
def _reset_instrument_all() -> Iterator[None]:
    yield
    Agent.instrument_all(False)
