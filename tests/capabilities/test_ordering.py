"""Capabilities that declare where they sit in the chain are sorted into place when they are combined."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from agent import Agent, RunContext
from agent.capabilities import (
    AbstractCapability,
    CapabilityOrdering,
    CombinedCapability,
    Hooks,
    PrefixTools,
    WrapperCapability,
)
from agent.exceptions import UserError
from agent.models.test import TestModel


@dataclass
class Plain(AbstractCapability[Any]):
    label: str = 'plain'


@dataclass
class Audit(AbstractCapability[Any]):
    """Must be the outermost layer, whatever order the user lists it in."""

    def get_ordering(self) -> CapabilityOrdering:
        return CapabilityOrdering(position='outermost')


@dataclass
class Cache(AbstractCapability[Any]):
    """Must sit inside every `Plain`, and needs an `Audit` somewhere."""

    def get_ordering(self) -> CapabilityOrdering:
        return CapabilityOrdering(wrapped_by=[Plain], requires=[Audit])


def test_outermost_capability_moves_to_the_front_and_others_keep_their_order() -> None:
    first, second = Plain('first'), Plain('second')
    combined = CombinedCapability([first, Audit(), second])
    assert [type(c).__name__ for c in combined.capabilities] == ['Audit', 'Plain', 'Plain']
    assert combined.capabilities[1] is first
    assert combined.capabilities[2] is second


def test_wrapped_by_places_the_capability_after_every_instance_of_the_type() -> None:
    combined = CombinedCapability([Cache(), Plain('a'), Audit(), Plain('b')])
    names = [getattr(c, 'label', type(c).__name__) for c in combined.capabilities]
    assert names == ['Audit', 'a', 'b', 'Cache']


def test_missing_required_capability_is_a_user_error() -> None:
    with pytest.raises(UserError, match='`Cache` requires `Audit`'):
        CombinedCapability([Plain(), Cache()])


def test_contradicting_constraints_are_a_user_error() -> None:
    a, b = Plain('a'), Plain('b')
    first = Hooks(ordering=CapabilityOrdering(wraps=[a], wrapped_by=[b]))
    second = Hooks(ordering=CapabilityOrdering(wraps=[b], wrapped_by=[a]))
    with pytest.raises(UserError, match='Circular ordering constraints'):
        CombinedCapability([a, b, first, second])


def test_a_nested_combination_is_spread_and_a_wrapper_is_placed_by_its_leaves() -> None:
    x, audit, y = Plain('x'), Audit(), Plain('y')
    combined = CombinedCapability([y, CombinedCapability([x, audit])])
    assert combined.capabilities == [audit, y, x]
    assert combined.capabilities[1] is y

    wrapper = WrapperCapability(wrapped=CombinedCapability([Plain('z'), Audit()]))
    assert CombinedCapability([Plain('w'), wrapper]).capabilities[0] is wrapper


def test_apply_visits_leaves_and_a_wrapper_stands_for_the_leaf_it_wraps() -> None:
    leaf = Plain()
    prefixed = PrefixTools(wrapped=leaf, prefix='ns')
    nested = WrapperCapability(wrapped=CombinedCapability([Plain('p'), Audit()]))
    visited: list[AbstractCapability[Any]] = []
    # `nested` holds the outermost `Audit`, so the outer combination puts it first too.
    CombinedCapability([prefixed, nested]).apply(visited.append)
    assert visited[0] is nested
    assert [type(c).__name__ for c in visited[1:3]] == ['Audit', 'Plain']  # sorted inside their own container
    assert visited[3] is prefixed
    assert len(visited) == 4


async def test_hooks_with_an_ordering_run_outermost_in_a_real_run() -> None:
    seen: list[str] = []

    @dataclass
    class Recorder(AbstractCapability[Any]):
        name: str

        async def before_run(self, ctx: RunContext[Any]) -> None:
            seen.append(self.name)

    async def first(ctx: RunContext[Any]) -> None:
        seen.append('hooks')

    hooks = Hooks(before_run=first, ordering=CapabilityOrdering(position='outermost'))
    agent = Agent(TestModel(), capabilities=[Recorder('a'), Recorder('b'), hooks])
    await agent.run('hi')
    assert seen == ['hooks', 'a', 'b']
