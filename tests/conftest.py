"""Shared test set-up: real model requests are refused unless a test opts in."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.models import override_allow_model_requests


@pytest.fixture(autouse=True)
def _refuse_model_requests() -> Iterator[None]:
    """Network-backed models raise unless a test opts in with `override_allow_model_requests(True)`."""
    with override_allow_model_requests(False):
        yield
