"""The provider tests send real HTTP requests, to a mock transport or a local server: they opt in."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.register_assert_rewrite('tests.models.providers._mock')

from agent.models import override_allow_model_requests  # noqa: E402


@pytest.fixture(autouse=True)
def _allow_model_requests() -> Iterator[None]:
    with override_allow_model_requests(True):
        yield
