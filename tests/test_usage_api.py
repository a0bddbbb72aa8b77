"""The usage and usage-limit classes as a program reads them: attribute access, old names, telemetry attributes."""

from __future__ import annotations

import pytest

from agent import Agent, RunUsage, UsageLimits
from agent.models.test import TestModel
from agent.usage import RequestUsage


async def test_run_result_usage_reads_as_an_attribute_and_still_answers_the_call_form():
    result = await Agent(TestModel()).run('hi')

    assert isinstance(result.usage, RunUsage)
    assert result.usage.requests == 1
    assert result.usage == result.usage()
    assert result.usage().input_tokens == result.usage.input_tokens > 0


async def test_agent_run_usage_reads_as_an_attribute_while_the_run_goes_on():
    agent = Agent(TestModel())
    async with agent.iter('hi') as run:
        assert run.usage.requests == 0
        async for _ in run:
            pass
        assert run.usage.requests == 1
        assert run.usage() == run.usage


async def test_changing_the_usage_read_from_a_result_leaves_the_run_alone():
    result = await Agent(TestModel()).run('hi')
    usage = result.usage
    usage.requests = 99
    assert result.usage.requests == 1


def test_usage_limits_accept_and_read_the_old_token_limit_names():
    limits = UsageLimits(request_tokens_limit=10, response_tokens_limit=20)
    assert (limits.input_tokens_limit, limits.output_tokens_limit) == (10, 20)

    with pytest.warns(DeprecationWarning, match='`request_tokens_limit` is deprecated'):
        assert limits.request_tokens_limit == 10
    with pytest.warns(DeprecationWarning, match='`response_tokens_limit` is deprecated'):
        assert limits.response_tokens_limit == 20


def test_a_limit_under_its_new_name_wins_over_the_old_name_even_at_zero():
    limits = UsageLimits(input_tokens_limit=0, request_tokens_limit=5, output_tokens_limit=0, response_tokens_limit=6)
    assert (limits.input_tokens_limit, limits.output_tokens_limit) == (0, 0)


def test_null_detail_counts_are_skipped_when_usages_are_added():
    first = RunUsage(requests=1, details={'thoughts': 3})
    second = RunUsage(requests=1)
    second.details = {'thoughts': None, 'images': 2}  # pyright: ignore[reportAttributeAccessIssue]

    total = first + second

    assert total.details == {'thoughts': 3, 'images': 2}
    assert total.requests == 2


def test_opentelemetry_attributes_name_the_non_zero_counts():
    usage = RequestUsage(
        input_tokens=30,
        output_tokens=7,
        cache_read_tokens=4,
        input_audio_tokens=2,
        details={'thoughts': 5, 'unused': 0},
    )

    assert usage.opentelemetry_attributes() == {
        'gen_ai.usage.input_tokens': 30,
        'gen_ai.usage.output_tokens': 7,
        'gen_ai.usage.cache_read.input_tokens': 4,
        'gen_ai.usage.details.thoughts': 5,
        'gen_ai.usage.details.cache_read_tokens': 4,
        'gen_ai.usage.details.input_audio_tokens': 2,
    }
    assert RunUsage().opentelemetry_attributes() == {}
