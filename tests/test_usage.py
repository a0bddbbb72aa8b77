"""Usage accounting: token fields (audio included), their arithmetic, and usage read from stored histories."""

from __future__ import annotations

import pydantic

from agent.usage import RequestUsage, RunUsage

AUDIO = RequestUsage(
    input_tokens=10, output_tokens=4, input_audio_tokens=3, cache_audio_read_tokens=2, output_audio_tokens=1
)


def test_adding_request_usages_adds_audio_tokens():
    total = AUDIO + RequestUsage(input_audio_tokens=5, cache_audio_read_tokens=1, output_audio_tokens=7)

    assert (total.input_audio_tokens, total.cache_audio_read_tokens, total.output_audio_tokens) == (8, 3, 8)
    assert (total.input_tokens, total.output_tokens) == (10, 4)


def test_request_usage_incr_adds_in_place():
    usage = RequestUsage(input_tokens=1, details={'a': 1})

    usage.incr(AUDIO)
    usage.incr(RequestUsage(details={'a': 2, 'b': 1}))

    assert usage == RequestUsage(
        input_tokens=11,
        output_tokens=4,
        input_audio_tokens=3,
        cache_audio_read_tokens=2,
        output_audio_tokens=1,
        details={'a': 3, 'b': 1},
    )


def test_run_usage_accumulates_audio_tokens_of_requests_and_runs():
    run = RunUsage(requests=1)
    run.incr(AUDIO)
    run.incr(AUDIO)
    combined = run + RunUsage(requests=2, tool_calls=1, output_audio_tokens=10)

    assert (run.input_audio_tokens, run.cache_audio_read_tokens, run.output_audio_tokens) == (6, 4, 2)
    assert (combined.requests, combined.tool_calls, combined.output_audio_tokens) == (3, 1, 12)


def test_a_request_usage_counts_as_one_request():
    assert RequestUsage().requests == 1


def test_has_values_sees_any_counter():
    assert not RequestUsage().has_values()
    assert not RunUsage().has_values()
    assert RequestUsage(output_audio_tokens=1).has_values()
    assert RunUsage(cache_read_tokens=1).has_values()
    assert RunUsage(requests=1).has_values()


def test_usage_stored_under_older_field_names_loads():
    loaded = pydantic.TypeAdapter(RequestUsage).validate_python(
        {'request_tokens': 5, 'response_tokens': 6, 'details': None}
    )

    assert loaded == RequestUsage(input_tokens=5, output_tokens=6)
