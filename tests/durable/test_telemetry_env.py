"""The worker takes OpenTelemetry export from the standard OTEL_* variables."""

from __future__ import annotations

import pytest

from agent.exceptions import UserError
from workflows._telemetry import configure_from_env, telemetry_requested


def test_export_is_requested_only_by_an_otlp_endpoint_or_a_traces_exporter() -> None:
    assert not telemetry_requested({})
    assert not telemetry_requested({'OTEL_SERVICE_NAME': 'agents'})
    assert telemetry_requested({'OTEL_EXPORTER_OTLP_ENDPOINT': 'http://collector:4318'})
    assert telemetry_requested({'OTEL_TRACES_EXPORTER': 'console'})
    assert not telemetry_requested({'OTEL_TRACES_EXPORTER': 'console', 'OTEL_SDK_DISABLED': 'true'})


def test_nothing_is_installed_without_otel_variables() -> None:
    assert configure_from_env({}) is None


def test_an_unknown_exporter_is_refused_with_the_names_to_use() -> None:
    with pytest.raises(UserError, match="OTEL_TRACES_EXPORTER='zipkin' is not supported here: use 'otlp'"):
        configure_from_env({'OTEL_TRACES_EXPORTER': 'zipkin'})
