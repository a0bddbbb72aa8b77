"""Telling whether a callable takes the run context first (`_takes_ctx`), for every kind of callable a tool can be."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from agent._function_schema import _takes_ctx
from agent._run_context import RunContext


def lookup(ctx: RunContext[Any], city: str) -> str:
    return f'{ctx.deps}:{city}'


def plain_lookup(city: str, country: str) -> str:
    return city + country


class Weather:
    def __call__(self, ctx: RunContext[Any], city: str) -> str:
        return city

    def forecast(self, ctx: RunContext[Any], days: int) -> str:
        return str(days)

    @staticmethod
    def static_forecast(days: int) -> str:
        return str(days)


def test_a_context_first_parameter_is_seen_through_functions_partials_methods_and_instances() -> None:
    assert _takes_ctx(lookup)
    assert _takes_ctx(functools.partial(lookup, city='Paris'))
    assert _takes_ctx(Weather())
    assert _takes_ctx(Weather().forecast)


def test_callables_without_a_context_first_take_none() -> None:
    def context_second(city: str, ctx: RunContext[Any]) -> str:
        return city

    def unannotated(ctx, city):
        return city

    assert not _takes_ctx(plain_lookup)
    assert not _takes_ctx(context_second)
    assert not _takes_ctx(unannotated)
    assert not _takes_ctx(Weather.static_forecast)
    assert not _takes_ctx(lambda: None)
    assert not _takes_ctx(len)


def test_the_agents_tool_decorator_refuses_a_function_whose_first_parameter_is_not_the_context() -> None:
    from agent import Agent
    from agent.exceptions import UserError

    agent = Agent('test')

    with pytest.raises(UserError, match=r'plain_lookup:\n  First parameter of tools that take context must be'):
        agent.tool(plain_lookup)

    @agent.tool
    def untyped(ctx, city: str) -> str:
        return city

    assert agent.run_sync('go').output == '{"untyped":"a"}'
