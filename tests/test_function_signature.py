"""Tools rendered as Python function signatures (`agent.function_signature`, `ToolDefinition.render_signature`)."""

from __future__ import annotations

from pydantic import BaseModel

from agent.function_signature import (
    FunctionParam,
    FunctionSignature,
    GenericTypeExpr,
    SimpleTypeExpr,
    TypeFieldSignature,
    TypeSignature,
)
from agent.tools import Tool, ToolDefinition


class Dimensions(BaseModel):
    """Size of a parcel."""

    width_cm: float
    height_cm: float | None = None


class Shelf(BaseModel):
    label: str
    shelves: list[Shelf] = []


def test_a_tool_with_a_model_parameter_renders_as_a_keyword_only_def_and_a_typeddict() -> None:
    def quote_shipping(parcel: Dimensions, express: bool = False) -> float:
        """Price a parcel."""
        return 1.0  # pragma: no cover

    tool_def = Tool(quote_shipping).tool_def

    assert tool_def.render_signature('...') == (
        'def quote_shipping(*, parcel: Dimensions, express: bool = False) -> float:\n    """Price a parcel."""\n    ...'
    )
    assert [t.render_definition() for t in tool_def.function_signature.referenced_types] == [
        'class Dimensions(TypedDict):\n'
        '    """Size of a parcel."""\n'
        '    width_cm: float\n'
        '    height_cm: NotRequired[float | None]'
    ]


def test_a_recursive_model_is_one_type_whose_field_refers_to_itself() -> None:
    def stock(root: Shelf, dry_run: bool) -> None: ...  # pragma: no cover

    sig = Tool(stock).tool_def.function_signature

    assert [t.name for t in sig.referenced_types] == ['Shelf']
    (shelf,) = sig.referenced_types
    shelves = shelf.fields['shelves'].type
    assert isinstance(shelves, GenericTypeExpr)
    assert shelves.args[0] is shelf
    assert sig.render('...') == 'def stock(*, root: Shelf, dry_run: bool) -> None:\n    ...'


def test_schema_parameters_put_required_first_and_make_optional_ones_nullable() -> None:
    sig = FunctionSignature.from_schema(
        name='find-orders',
        parameters_schema={
            'type': 'object',
            'properties': {
                'status': {'enum': ['open', 'shipped']},
                'limit': {'type': 'integer', 'default': 20},
                'customer': {'type': 'string'},
                'since': {'anyOf': [{'type': 'string'}, {'type': 'null'}]},
                'region': {'type': 'object', 'properties': {'code': {'type': 'string'}}, 'required': ['code']},
                'at': {'type': 'array', 'items': [{'type': 'number'}, {'type': 'number'}]},
                'labels': {'type': 'object', 'additionalProperties': {'type': 'integer'}},
            },
            'required': ['status', 'region', 'at'],
        },
    )

    assert sig.render('pass', is_async=True) == (
        "async def find-orders(*, status: Literal['open', 'shipped'], region: FindOrdersRegion, "
        'at: tuple[float, float], limit: int = 20, customer: str | None = None, since: str | None = None, '
        'labels: dict[str, int] | None = None) -> Any:\n'
        '    pass'
    )
    assert [t.name for t in sig.referenced_types] == ['FindOrdersRegion']


def test_a_tool_name_starting_with_a_digit_gives_type_names_a_leading_underscore() -> None:
    sig = FunctionSignature.from_schema(
        name='3d_render',
        parameters_schema={
            'type': 'object',
            'properties': {'scene': {'type': ['object', 'null'], 'properties': {'fps': {'type': 'integer'}}}},
            'required': ['scene'],
        },
    )

    assert sig.render('...') == 'def 3d_render(*, scene: _3dRenderScene | None) -> Any:\n    ...'


def test_the_return_schema_gives_the_return_type_and_shares_an_identical_parameter_type() -> None:
    item = {'type': 'object', 'properties': {'sku': {'type': 'string'}}, 'required': ['sku']}
    sig = FunctionSignature.from_schema(
        name='restock',
        parameters_schema={
            'type': 'object',
            'properties': {'item': {'$ref': '#/$defs/Item'}},
            'required': ['item'],
            '$defs': {'Item': item},
        },
        return_schema={'type': 'array', 'items': {'$ref': '#/$defs/Item'}, '$defs': {'Item': item}},
    )

    assert sig.render('...') == 'def restock(*, item: Item) -> list[Item]:\n    ...'
    assert len(sig.referenced_types) == 1


def _user_tool(tool_name: str, field_name: str, field_type: str) -> FunctionSignature:
    return FunctionSignature.from_schema(
        name=tool_name,
        parameters_schema={
            'type': 'object',
            'properties': {'who': {'$ref': '#/$defs/User'}},
            'required': ['who'],
            '$defs': {
                'User': {
                    'type': 'object',
                    'properties': {field_name: {'type': field_type}},
                    'required': [field_name],
                }
            },
        },
    )


def test_tools_shown_together_share_identical_types_and_qualify_conflicting_ones() -> None:
    by_email = _user_tool('by_email', 'email', 'string')
    notify = _user_tool('notify', 'email', 'string')
    by_id = _user_tool('by_id', 'id', 'integer')

    conflicting = FunctionSignature.get_conflicting_type_names([by_email, notify, by_id])

    assert conflicting == frozenset({'User'})
    assert notify.params['who'].type is by_email.params['who'].type
    assert by_id.render('...', conflicting_type_names=conflicting) == 'def by_id(*, who: by_id_User) -> Any:\n    ...'
    assert FunctionSignature.render_type_definitions([by_email, notify, by_id], conflicting) == [
        'class by_email_User(TypedDict):\n    email: str',
        'class by_id_User(TypedDict):\n    id: int',
    ]
    # Outside a render with conflicts, the type keeps its own name.
    assert str(by_id.params['who'].type) == 'User'


def test_hand_built_nodes_render_multiline_docstrings_and_empty_classes() -> None:
    note = TypeSignature(
        name='Note',
        fields={
            'text': TypeFieldSignature(
                name='text', type=SimpleTypeExpr('str'), required=True, description='Body.\nPlain.'
            )
        },
    )
    sig = FunctionSignature(
        name='save',
        params={'note': FunctionParam(name='note', type=note)},
        return_type=SimpleTypeExpr('None'),
        description='Save a note.\n\nOverwrites any older one.',
    )

    assert sig.render('...') == (
        'def save(*, note: Note) -> None:\n    """\n    Save a note.\n\n    Overwrites any older one.\n    """\n    ...'
    )
    assert note.render_definition() == 'class Note(TypedDict):\n    text: str\n    """\n    Body.\n    Plain.\n    """'
    assert TypeSignature(name='Nothing').render_definition() == 'class Nothing(TypedDict):\n    pass'


def test_a_tool_definition_without_a_return_schema_returns_any() -> None:
    tool_def = ToolDefinition(
        name='ping',
        description='Check the service.',
        parameters_json_schema={'type': 'object', 'properties': {}},
    )

    assert tool_def.render_signature('...') == 'def ping() -> Any:\n    """Check the service."""\n    ...'
