"""`TemplateStr` against declared deps: checking variables at creation, rendering from a run context, pydantic
validation of spec strings and capability `from_spec` arguments."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pydantic
import pytest

from agent import RunContext, TemplateStr
from agent._template import validate_from_spec_args
from agent.capabilities import AbstractCapability
from agent.exceptions import UserError
from agent.models.test import TestModel
from agent.usage import RunUsage


@dataclass
class Member:
    name: str
    nickname: str | None = None


@dataclass
class Team:
    title: str
    members: list[Member] = field(default_factory=list[Member])
    limits: dict[str, int] = field(default_factory=dict[str, int])


TEAM_SCHEMA: dict[str, Any] = {
    'type': 'object',
    'properties': {'title': {'type': 'string'}, 'lead': {'type': 'object', 'properties': {'name': {}}}},
}


def run_context(deps: Any) -> RunContext[Any]:
    return RunContext(deps=deps, model=TestModel(), usage=RunUsage(), prompt='hi')


@pytest.mark.parametrize(
    ('source', 'rendered'),
    [
        (
            '{{title}}: {{#each members}}{{name}}/{{nickname}}/{{this.name}}/{{title}}/{{@index}} {{/each}}',
            'Core: Ada/A/Ada/Core/0 Bob//Bob/Core/1 ',
        ),
        ('{{members.1.name}} {{#if members}}{{members.0.nickname}}{{/if}}', 'Bob A'),
        ('{{#each limits}}{{@key}}={{this}}{{/each}} {{limits.rpm}}', 'rpm=60 60'),
    ],
)
def test_templates_using_only_declared_fields_pass_the_deps_type_check(source: str, rendered: str) -> None:
    template = TemplateStr[Team](source, deps_type=Team)

    assert template.deps_type is Team
    assert template.render(Team('Core', [Member('Ada', 'A'), Member('Bob')], {'rpm': 60})) == rendered


@pytest.mark.parametrize(
    ('source', 'variable'),
    [
        ('Hello {{titel}}', 'titel'),
        ('{{#each members}}{{nmae}}{{/each}}', 'nmae'),
        ('{{members.0.nick}}', 'members.0.nick'),
        ('{{#if ownr}}x{{/if}}', 'ownr'),
        ('{{#each members}}{{this.title}}{{/each}}', 'this.title'),
    ],
)
def test_a_variable_the_deps_type_lacks_fails_when_the_template_is_created(source: str, variable: str) -> None:
    with pytest.raises(UserError, match=f"'{variable}' is not defined by the dependencies schema"):
        TemplateStr(source, deps_type=Team)


def test_deps_schema_checks_declared_properties_and_leaves_open_objects_alone() -> None:
    assert (
        TemplateStr('{{title}} {{lead.name}}', deps_schema=TEAM_SCHEMA).render(
            {'title': 'Core', 'lead': {'name': 'Ada'}}
        )
        == 'Core Ada'
    )
    with pytest.raises(UserError, match=r"'lead\.age'"):
        TemplateStr('{{lead.age}}', deps_schema=TEAM_SCHEMA)
    open_schema = {'type': 'object', 'properties': {'title': {}}, 'additionalProperties': True}
    assert TemplateStr('{{extra}}', deps_schema=open_schema).render({'extra': 1}) == '1'


def test_deps_types_without_a_schema_are_not_checked() -> None:
    class Opaque:
        def __init__(self) -> None:
            self.value = 'v'

    assert TemplateStr('{{value}}', deps_type=Opaque).render(Opaque()) == 'v'
    assert TemplateStr('{{anything}}', deps_type=dict).render({'anything': 2}) == '2'


def test_a_template_called_with_a_run_context_renders_its_deps() -> None:
    template = TemplateStr[Team]('Team {{title}}', deps_type=Team)

    assert template(run_context(Team('Core'))) == template.render(Team('Core')) == 'Team Core'
    assert TemplateStr('No variables').render() == 'No variables'


TemplateOrStr = TemplateStr[Any] | str


def test_pydantic_turns_strings_with_tags_into_templates_checked_against_the_context() -> None:
    adapter: pydantic.TypeAdapter[TemplateOrStr] = pydantic.TypeAdapter(TemplateOrStr)

    template = adapter.validate_python('Team {{title}}', context={'deps_type': Team})
    plain = adapter.validate_python('Team', context={'deps_type': Team})

    assert isinstance(template, TemplateStr)
    assert template.deps_type is Team
    assert type(plain) is str
    assert adapter.dump_python(template) == 'Team {{title}}'
    assert adapter.dump_json(template) == b'"Team {{title}}"'
    assert adapter.validate_python(template) is template
    with pytest.raises(UserError, match="'titel'"):
        adapter.validate_python('{{titel}}', context={'deps_schema': TEAM_SCHEMA})
    with pytest.raises(pydantic.ValidationError):
        pydantic.TypeAdapter(TemplateStr[Any]).validate_python(3)


@dataclass
class Greeting(AbstractCapability[Any]):
    label: str = ''
    text: TemplateStr[Any] | str = ''

    @classmethod
    def from_spec(cls, label: str, text: TemplateStr[Any] | str = '') -> Greeting:
        return cls(label, text)


def test_from_spec_arguments_annotated_with_templates_become_templates() -> None:
    context: dict[str, Any] = {'deps_type': Team, 'deps_schema': None}

    args, kwargs = validate_from_spec_args(Greeting, ('{{label}}', 'Hi {{title}}'), {}, context)
    assert args[0] == '{{label}}'
    assert type(args[0]) is str
    assert args[1] == TemplateStr('Hi {{title}}')
    assert isinstance(args[1], TemplateStr)
    assert kwargs == {}

    args, kwargs = validate_from_spec_args(Greeting, ('x',), {'text': 'Hi {{title}}'}, context)
    assert args == ('x',)
    assert isinstance(kwargs['text'], TemplateStr)

    assert validate_from_spec_args(Greeting, ('x',), {}, context) == (('x',), {})
    with pytest.raises(UserError, match="'titel'"):
        validate_from_spec_args(Greeting, ('x', '{{titel}}'), {}, context)


def test_from_spec_without_template_annotations_is_left_alone() -> None:
    @dataclass
    class Plain(AbstractCapability[Any]):
        text: str = ''

        @classmethod
        def from_spec(cls, text: str = '') -> Plain:
            return cls(text)

    assert validate_from_spec_args(Plain, ('{{title}}',), {}, {'deps_type': Team}) == (('{{title}}',), {})
