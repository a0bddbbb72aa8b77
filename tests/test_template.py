"""`TemplateStr`: Handlebars-style instructions rendered against the run's dependencies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import BaseModel

from agent._template import TemplateStr
from agent.exceptions import UserError


@dataclass
class User:
    name: str
    roles: list[str] = field(default_factory=list[str])
    _secret: str = 'hidden'


class Company(BaseModel):
    name: str
    users: list[User]


def test_plain_variables_render_from_a_dict() -> None:
    assert TemplateStr('Hello {{name}}!').render({'name': 'Ada'}) == 'Hello Ada!'


def test_dotted_paths_use_attributes_keys_and_indexes() -> None:
    deps = {'company': Company(name='Acme', users=[User('Ada'), User('Bob')])}

    rendered = TemplateStr('{{company.name}}: {{company.users.1.name}}').render(deps)

    assert rendered == 'Acme: Bob'


def test_dataclass_deps_are_read_by_attribute_and_whitespace_inside_tags_is_ignored() -> None:
    assert TemplateStr('You are {{ name }}.').render(User('Ada')) == 'You are Ada.'


def test_text_without_tags_and_none_values_render_as_expected() -> None:
    assert TemplateStr('Be brief.').render(None) == 'Be brief.'
    assert TemplateStr('[{{value}}]').render({'value': None}) == '[]'
    assert TemplateStr('{{count}} items').render({'count': 3}) == '3 items'


def test_triple_braces_render_the_same_value_without_escaping() -> None:
    assert TemplateStr('{{{html}}} and {{html}}').render({'html': '<b>'}) == '<b> and <b>'


def test_if_renders_its_body_for_truthy_values_and_else_otherwise() -> None:
    template = TemplateStr('{{#if admin}}full access{{else}}read only{{/if}}')

    assert template.render({'admin': True}) == 'full access'
    assert template.render({'admin': False}) == 'read only'
    assert template.render({}) == 'read only'


def test_unless_is_the_negation_of_if() -> None:
    template = TemplateStr('{{#unless roles}}no roles{{/unless}}')

    assert template.render(User('Ada')) == 'no roles'
    assert template.render(User('Ada', roles=['admin'])) == ''


def test_each_repeats_its_body_with_this_and_loop_data() -> None:
    template = TemplateStr('{{#each roles}}{{@index}}:{{this}}{{#unless @last}}, {{/unless}}{{/each}}')

    assert template.render(User('Ada', roles=['admin', 'editor'])) == '0:admin, 1:editor'


def test_each_over_objects_looks_up_names_on_the_element_then_outer_scopes() -> None:
    deps = {'company': 'Acme', 'users': [User('Ada'), User('Bob')]}
    template = TemplateStr('{{#each users}}{{#if @first}}{{company}}: {{/if}}{{name}}/{{this.name}};{{/each}}')

    assert template.render(deps) == 'Acme: Ada/Ada;Bob/Bob;'


def test_each_over_a_mapping_exposes_keys_and_renders_else_when_empty() -> None:
    template = TemplateStr('{{#each limits}}{{@key}}={{this}} {{else}}no limits{{/each}}')

    assert template.render({'limits': {'rpm': 60, 'tpm': 1000}}) == 'rpm=60 tpm=1000 '
    assert template.render({'limits': {}}) == 'no limits'


def test_comments_render_nothing() -> None:
    assert TemplateStr('a{{! ignored }}b').render(None) == 'ab'


def test_missing_variable_raises_user_error_naming_variable_and_template() -> None:
    template = TemplateStr('Hello {{user.nmae}}')

    with pytest.raises(UserError) as raised:
        template.render({'user': User('Ada')})

    assert "'user.nmae'" in str(raised.value)
    assert "'Hello {{user.nmae}}'" in str(raised.value)


def test_private_and_dunder_names_are_never_looked_up() -> None:
    with pytest.raises(UserError, match='_secret'):
        TemplateStr('{{_secret}}').render(User('Ada'))
    with pytest.raises(UserError, match='__class__'):
        TemplateStr('{{name.__class__}}').render(User('Ada'))


def test_each_over_a_missing_or_scalar_value_raises_user_error() -> None:
    with pytest.raises(UserError, match="'items' is not defined"):
        TemplateStr('{{#each items}}{{this}}{{/each}}').render({})
    with pytest.raises(UserError, match='needs a list or mapping, got str'):
        TemplateStr('{{#each items}}{{this}}{{/each}}').render({'items': 'abc'})


@pytest.mark.parametrize(
    ('source', 'problem'),
    [
        ('{{#if a}}open', 'is never closed'),
        ('{{/if}}', 'unexpected'),
        ('{{#if a}}{{/each}}', r'expected \{\{/if\}\}'),
        ('{{#with a}}{{/with}}', 'unsupported block tag'),
        ('{{else}}', 'outside'),
        ('{{}}', 'empty tag'),
    ],
)
def test_syntax_errors_are_reported_when_the_template_is_created(source: str, problem: str) -> None:
    with pytest.raises(UserError, match=problem):
        TemplateStr(source)


def test_templates_compare_by_source_and_show_it() -> None:
    template = TemplateStr('Hello {{name}}')

    assert template == TemplateStr('Hello {{name}}')
    assert template != TemplateStr('Bye {{name}}')
    assert len({template, TemplateStr('Hello {{name}}')}) == 1
    assert template.template == str(template) == 'Hello {{name}}'
    assert repr(template) == "TemplateStr('Hello {{name}}')"


def test_rendering_does_not_call_values() -> None:
    calls: list[Any] = []

    def callback() -> str:
        calls.append(1)
        return 'called'

    assert 'function' in TemplateStr('{{f}}').render({'f': callback})
    assert calls == []
