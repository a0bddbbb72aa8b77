"""`JsonSchemaTransformer`: walking schemas, inlining `$defs`, and models applying their profile's transformer."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from agent import Agent, InlineDefsJsonSchemaTransformer, JsonSchemaTransformer
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models import ModelProfile
from agent.models.function import AgentInfo, FunctionModel


class _NoTitles(JsonSchemaTransformer):
    def transform(self, schema: dict[str, Any]) -> dict[str, Any]:
        schema.pop('title', None)
        if 'format' in schema:
            self.is_strict_compatible = False
        return schema


class Inner(BaseModel):
    value: int


class Outer(BaseModel):
    inner: Inner
    items: list[Inner]


def test_walk_transforms_every_nested_schema_and_keeps_defs() -> None:
    schema = Outer.model_json_schema()
    walked = _NoTitles(schema).walk()
    assert walked == {
        '$defs': {'Inner': {'properties': {'value': {'type': 'integer'}}, 'required': ['value'], 'type': 'object'}},
        'properties': {
            'inner': {'$ref': '#/$defs/Inner'},
            'items': {'items': {'$ref': '#/$defs/Inner'}, 'type': 'array'},
        },
        'required': ['inner', 'items'],
        'type': 'object',
    }
    assert 'title' in schema  # the input is left alone


def test_inline_defs_transformer_replaces_refs_with_their_definitions() -> None:
    walked = InlineDefsJsonSchemaTransformer(Outer.model_json_schema()).walk()
    inner = {
        'properties': {'value': {'title': 'Value', 'type': 'integer'}},
        'required': ['value'],
        'title': 'Inner',
        'type': 'object',
    }
    assert '$defs' not in walked
    assert walked['properties']['inner'] == inner
    assert walked['properties']['items']['items'] == inner


class Node(BaseModel):
    children: list[Node]


def test_inlining_keeps_recursive_definitions_as_refs() -> None:
    walked = InlineDefsJsonSchemaTransformer(Node.model_json_schema()).walk()
    assert walked['$ref'] == '#/$defs/Node'
    assert walked['$defs']['Node']['properties']['children']['items'] == {'$ref': '#/$defs/Node'}


def test_union_of_one_member_is_unwrapped_and_nullable_unions_can_be_simplified() -> None:
    class Keep(JsonSchemaTransformer):
        def transform(self, schema: dict[str, Any]) -> dict[str, Any]:
            return schema

    assert Keep({'anyOf': [{'type': 'string'}], 'title': 'T'}).walk() == {'type': 'string', 'title': 'T'}
    nullable = {'anyOf': [{'type': 'string'}, {'type': 'null'}]}
    assert Keep(nullable, simplify_nullable_unions=True).walk() == {'type': 'string', 'nullable': True}
    assert Keep(nullable).walk() == nullable


def test_model_applies_its_profile_transformer_to_tool_schemas_and_sets_strict() -> None:
    seen: list[Any] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend((t.parameters_json_schema, t.strict) for t in info.function_tools)
        return ModelResponse(parts=[TextPart('ok')])

    model = FunctionModel(respond, profile=ModelProfile(json_schema_transformer=_NoTitles))
    agent = Agent(model)

    @agent.tool_plain
    def when(day: str, at: Inner) -> str:  # pragma: no cover - never called
        """Pick a time."""
        return day

    agent.run_sync('hi')
    schema, strict = seen[0]
    assert 'title' not in str(schema)
    assert strict is True
