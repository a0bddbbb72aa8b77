"""Templates in agent specs: `instructions` and `description` strings with `{{` are checked against the deps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from agent import Agent, TemplateStr
from agent.exceptions import UserError
from agent.messages import ModelRequest


@dataclass
class Customer:
    name: str
    plan: str = 'free'


SCHEMA: dict[str, Any] = {'type': 'object', 'properties': {'name': {'type': 'string'}}, 'required': ['name']}


def first_instructions(result: Any) -> str | None:
    request = result.all_messages()[0]
    assert isinstance(request, ModelRequest)
    return request.instructions


async def test_spec_instructions_with_tags_render_against_the_run_deps() -> None:
    agent = Agent.from_spec(
        {'model': 'test', 'instructions': ['Help {{name}} ({{plan}} plan).', 'Be brief.']},
        deps_type=Customer,
        instructions='Never guess.',
    )

    result = await agent.run('hi', deps=Customer('Ada', 'pro'))

    assert first_instructions(result) == 'Help Ada (pro plan).\n\nBe brief.\n\nNever guess.'


def test_a_misspelt_spec_variable_fails_when_the_agent_is_built() -> None:
    with pytest.raises(UserError, match="'nmae' is not defined by the dependencies schema"):
        Agent.from_spec({'model': 'test', 'instructions': 'Help {{nmae}}.'}, deps_type=Customer)
    with pytest.raises(UserError, match="'plan'"):
        Agent.from_spec({'model': 'test', 'deps_schema': SCHEMA, 'description': 'For {{plan}} users'})


async def test_spec_deps_schema_checks_templates_when_no_deps_type_is_given() -> None:
    agent = Agent.from_spec({'model': 'test', 'deps_schema': SCHEMA, 'instructions': 'Help {{name}}.'})

    result = await agent.run('hi', deps={'name': 'Bob'})

    assert first_instructions(result) == 'Help Bob.'


async def test_without_deps_type_or_schema_templates_are_only_checked_when_rendered() -> None:
    agent = Agent.from_spec({'model': 'test', 'instructions': 'Help {{name}}.'})

    assert first_instructions(await agent.run('hi', deps={'name': 'Cy'})) == 'Help Cy.'
    with pytest.raises(UserError, match="'name' is not defined"):
        await agent.run('hi')


def test_a_templated_description_reads_as_its_source_and_renders_on_demand() -> None:
    agent = Agent.from_spec({'model': 'test', 'description': 'Support for {{name}}'}, deps_type=Customer)

    assert agent.description == 'Support for {{name}}'
    assert agent.render_description(Customer('Ada')) == 'Support for Ada'

    agent.description = 'Plain support'
    assert agent.description == agent.render_description(None) == 'Plain support'
    assert Agent('test').description is None
    assert Agent('test', description=TemplateStr('For {{name}}')).render_description({'name': 'Bo'}) == 'For Bo'
