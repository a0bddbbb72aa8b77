"""A span offered as `AdoptableSpan` (a durable activity's attempt span) becomes the first GenAI span opened in it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from opentelemetry import context as otel_context
from opentelemetry import trace

from agent._instrumentation import ADOPTABLE_SPAN, AdoptableSpan, tool_call_span

from ._otel import Telemetry, attrs


@contextmanager
def offered(telemetry: Telemetry, provider_of: Telemetry | None = None) -> Iterator[trace.Span]:
    """An attempt span, current and offered, ended by its opener (as the activity interceptor does)."""
    span = telemetry.tracer_provider.get_tracer('opener').start_span('RunActivity:x', attributes={'temporal': 'yes'})
    offer = AdoptableSpan(span, (provider_of or telemetry).tracer_provider)
    token = otel_context.attach(otel_context.set_value(ADOPTABLE_SPAN, offer, trace.set_span_in_context(span)))
    try:
        yield span
    finally:
        otel_context.detach(token)
        span.end()


def _call(telemetry: Telemetry, tool: str = 'lookup') -> None:
    with tool_call_span(telemetry.settings(), tool_name=tool, tool_call_id=f'{tool}-1', arguments=None) as recorder:
        recorder.finish('ok')


def test_the_first_genai_span_takes_over_the_offered_span(telemetry: Telemetry) -> None:
    with offered(telemetry) as span:
        _call(telemetry)
        assert span.is_recording()  # its opener ends it, not the GenAI span
        _call(telemetry, 'second')

    assert telemetry.tree() == [('execute_tool lookup', None), ('execute_tool second', 'execute_tool lookup')]
    adopted = telemetry.span('execute_tool lookup')
    assert attrs(adopted)['temporal'] == 'yes'
    assert attrs(adopted)['gen_ai.tool.call.id'] == 'lookup-1'


def test_a_span_opened_inside_the_offered_one_keeps_the_genai_span_its_child(telemetry: Telemetry) -> None:
    with offered(telemetry), telemetry.tracer_provider.get_tracer('user').start_as_current_span('user work'):
        _call(telemetry)

    assert telemetry.tree() == [
        ('RunActivity:x', None),
        ('user work', 'RunActivity:x'),
        ('execute_tool lookup', 'user work'),
    ]


def test_settings_recording_elsewhere_leave_the_offered_span_alone(telemetry: Telemetry) -> None:
    with offered(telemetry, provider_of=Telemetry.create()):
        _call(telemetry)

    assert telemetry.tree() == [('RunActivity:x', None), ('execute_tool lookup', 'RunActivity:x')]


def test_a_failure_marks_the_adopted_span_and_leaves_the_exception_to_its_opener(telemetry: Telemetry) -> None:
    with (
        pytest.raises(ConnectionError),
        offered(telemetry),
        tool_call_span(telemetry.settings(), tool_name='lookup', tool_call_id='lookup-1', arguments=None),
    ):
        raise ConnectionError('dropped')

    (adopted,) = telemetry.spans()
    assert adopted.status.description == 'ConnectionError: dropped'
    assert adopted.events == ()  # recorded by whoever opened it (the activity interceptor)
