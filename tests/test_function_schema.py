from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import pytest
from pydantic import BaseModel, Field, ValidationError, ValidationInfo, field_validator
from typing_extensions import TypedDict

from agent._function_schema import function_schema
from agent._run_context import RunContext
from agent._threads import call_maybe_async, is_async_callable, run_sync_in_thread, use_thread_executor
from agent.exceptions import UserError

if TYPE_CHECKING:
    # Only imported for the type checker, so annotations that name it can't be evaluated at runtime.
    from decimal import Decimal


class Address(BaseModel):
    street: str
    number: int = 1


@dataclass
class Point:
    x: int
    y: int


class Options(TypedDict):
    verbose: bool


class Wrapper(BaseModel):
    wrapper: int = 0


class Query(BaseModel):
    """A search query."""

    text: str


class Node(BaseModel):
    name: str
    children: list[Node] = []


class Contextual(BaseModel):
    value: str

    @field_validator('value')
    @classmethod
    def add_suffix(cls, value: str, info: ValidationInfo) -> str:
        return f'{value}{info.context["suffix"]}' if info.context else value


# --- docstrings -------------------------------------------------------------------------------------------


def test_google_docstring_descriptions_land_in_the_json_schema():
    def tool(city: str, days: int = 3) -> str:
        """Get the forecast.

        Args:
            city: The city name.
            days (int): How many days
                to forecast.
        """
        return city

    schema = function_schema(tool)
    assert schema.description == 'Get the forecast.'
    assert schema.json_schema == {
        'type': 'object',
        'properties': {
            'city': {'type': 'string', 'description': 'The city name.'},
            'days': {'type': 'integer', 'default': 3, 'description': 'How many days\nto forecast.'},
        },
        'required': ['city'],
        'additionalProperties': False,
    }


def test_numpy_docstring_descriptions_land_in_the_json_schema():
    def tool(city: str, days: int) -> str:
        """Get the forecast.

        Parameters
        ----------
        city : str
            The city name.
        days : int
            How many days.
        """
        return city

    schema = function_schema(tool)
    assert schema.description == 'Get the forecast.'
    assert schema.json_schema['properties']['city']['description'] == 'The city name.'
    assert schema.json_schema['properties']['days']['description'] == 'How many days.'


def test_sphinx_docstring_descriptions_land_in_the_json_schema():
    def tool(city: str, days: int) -> str:
        """Get the forecast.

        :param city: The city name.
        :param int days: How many days.
        :returns: The forecast.
        """
        return city

    schema = function_schema(tool)
    assert schema.description == (
        '<summary>Get the forecast.</summary>\n<returns>\n<description>The forecast.</description>\n</returns>'
    )
    assert schema.json_schema['properties']['city']['description'] == 'The city name.'
    assert schema.json_schema['properties']['days']['description'] == 'How many days.'


def test_an_explicit_docstring_format_disables_detection():
    def tool(city: str) -> str:
        """Get the forecast.

        :param city: The city name.
        """
        return city

    schema = function_schema(tool, docstring_format='google')
    assert 'description' not in schema.json_schema['properties']['city']


def test_a_field_description_wins_over_the_docstring():
    def tool(a: Annotated[int, Field(description='from field')], b: int = Field(3, description='from default')) -> int:
        """Add.

        Args:
            a: from docstring
            b: from docstring
        """
        return a + b

    properties = function_schema(tool).json_schema['properties']
    assert properties['a'] == {'type': 'integer', 'description': 'from field'}
    assert properties['b'] == {'type': 'integer', 'default': 3, 'description': 'from default'}


def test_require_parameter_descriptions_names_the_missing_parameters_and_the_tool():
    def tool(a: int, b: int, c: Annotated[int, Field(description='c')]) -> int:
        """Add.

        Args:
            a: The first.
        """
        return a + b + c

    with pytest.raises(
        UserError, match=r'^Error generating schema for .*tool:\n  Missing parameter descriptions for b$'
    ):
        function_schema(tool, require_parameter_descriptions=True, tool_name='my_tool')
    assert function_schema(tool).json_schema['required'] == ['a', 'b', 'c']


# --- the run context --------------------------------------------------------------------------------------


def test_takes_ctx_is_inferred_from_a_run_context_first_parameter():
    def plain(ctx: RunContext, x: int) -> int:
        return x

    def parametrised(ctx: RunContext[int], x: int) -> int:
        return x

    def without(x: int) -> int:
        return x

    for function in (plain, parametrised):
        schema = function_schema(function)
        assert schema.takes_ctx
        assert list(schema.json_schema['properties']) == ['x']
    assert not function_schema(without).takes_ctx


def test_takes_ctx_true_trusts_the_caller_without_an_annotation():
    def tool(ctx, x: int) -> int:
        return x

    schema = function_schema(tool, takes_ctx=True)
    assert schema.takes_ctx
    assert list(schema.json_schema['properties']) == ['x']


def test_takes_ctx_false_with_a_run_context_parameter_raises():
    def tool(ctx: RunContext[None], x: int) -> int:
        return x

    with pytest.raises(UserError, match=r'RunContext annotations can only be used with tools that take context$'):
        function_schema(tool, takes_ctx=False)


def test_run_context_on_a_later_parameter_raises_listing_every_problem():
    def tool(x: int, ctx: RunContext[None]) -> int:
        return x

    with pytest.raises(UserError, match=r'for .*\.tool:\n  RunContext annotations can only be used with tools that'):
        function_schema(tool)
    with pytest.raises(UserError) as raised:
        function_schema(tool, takes_ctx=True)
    assert str(raised.value).splitlines()[1:] == [
        '  First parameter of tools that take context must be annotated with RunContext[...]',
        '  RunContext annotations can only be used as the first argument',
    ]


def test_a_builtin_without_a_signature_cannot_be_a_tool():
    with pytest.raises(UserError, match=r'^Error generating schema for min:\n  no signature found for builtin'):
        function_schema(min)


async def test_the_context_is_passed_as_the_first_argument():
    async def tool(ctx: RunContext[None], x: int) -> tuple[Any, int]:
        return ctx, x

    schema = function_schema(tool)
    sentinel = object()
    assert await schema.call(schema.validate_python({'x': 1}), sentinel) == (sentinel, 1)


def test_annotations_that_cannot_be_evaluated_do_not_hide_the_others():
    def tool(ctx: RunContext[Decimal], x: int) -> Address:
        return Address(street=str(x))

    schema = function_schema(tool)
    assert schema.takes_ctx
    assert schema.json_schema['properties'] == {'x': {'type': 'integer'}}
    assert schema.return_schema is not None
    assert schema.return_schema['properties']['street'] == {'type': 'string'}


# --- validation -------------------------------------------------------------------------------------------


def test_defaults_are_not_required_and_are_filled_in():
    def tool(a: int, b: str = 'x', c: list[int] | None = None, untyped=5) -> None:
        pass

    schema = function_schema(tool)
    assert schema.json_schema['required'] == ['a']
    assert schema.json_schema['properties']['untyped'] == {'default': 5}
    assert schema.validate_python({'a': '1'}) == {'a': 1, 'b': 'x', 'c': None, 'untyped': 5}
    assert schema.validate_python({'a': 1, 'untyped': {'any': 'thing'}})['untyped'] == {'any': 'thing'}


def test_a_tool_without_parameters_has_an_empty_closed_object_schema_with_no_required_list():
    def tool() -> str:
        return 'ok'

    assert function_schema(tool).json_schema == {'type': 'object', 'properties': {}, 'additionalProperties': False}


def test_a_tool_whose_parameters_all_have_defaults_has_no_required_list():
    def tool(a: int = 1, b: str = 'x') -> None:
        pass

    assert 'required' not in function_schema(tool).json_schema


def test_object_arguments_are_validated_into_instances():
    def tool(address: Address, point: Point, options: Options) -> None:
        pass

    schema = function_schema(tool)
    args = schema.validate_json(
        '{"address": {"street": "Main"}, "point": {"x": 1, "y": "2"}, "options": {"verbose": true}}'
    )
    assert args == {'address': Address(street='Main', number=1), 'point': Point(1, 2), 'options': {'verbose': True}}
    assert isinstance(args['address'], Address)
    assert schema.json_schema['properties']['address'] == {'$ref': '#/$defs/Address'}
    assert set(schema.json_schema['$defs']) == {'Address', 'Point', 'Options'}
    assert 'title' not in schema.json_schema['$defs']['Address']['properties']['street']


def test_invalid_json_unknown_keys_and_missing_keys_raise_validation_error():
    def tool(a: int) -> None:
        pass

    schema = function_schema(tool)
    with pytest.raises(ValidationError):
        schema.validate_json('{"a": 1')
    with pytest.raises(ValidationError, match='extra_forbidden'):
        schema.validate_json('{"a": 1, "b": 2}')
    with pytest.raises(ValidationError, match='missing'):
        schema.validate_python({})
    with pytest.raises(ValidationError, match='int_parsing'):
        schema.validate_python({'a': 'one'})


def test_an_empty_json_string_means_no_arguments():
    def tool(a: int = 1) -> None:
        pass

    assert function_schema(tool).validate_json('') == {'a': 1}


def test_the_validation_context_is_passed_through():
    def tool(item: Contextual) -> None:
        pass

    schema = function_schema(tool)
    assert schema.validate_python({'item': {'value': 'a'}}, context={'suffix': '!'})['item'].value == 'a!'
    assert schema.validate_json('{"item": {"value": "a"}}', context={'suffix': '?'})['item'].value == 'a?'


def test_a_single_model_argument_exposes_the_model_schema_flattened():
    def tool(address: Address) -> None:
        pass

    def scalar(a: int) -> None:
        pass

    schema = function_schema(tool)
    assert schema.single_arg_name == 'address'
    assert schema.json_schema == {
        'title': 'Address',
        'type': 'object',
        'properties': {'street': {'type': 'string'}, 'number': {'type': 'integer', 'default': 1}},
        'required': ['street'],
    }
    assert function_schema(scalar).single_arg_name is None


def test_a_single_dataclass_argument_is_flattened_and_validated_from_either_shape():
    def tool(point: Point) -> None:
        pass

    schema = function_schema(tool)
    assert schema.json_schema['properties'] == {'x': {'type': 'integer'}, 'y': {'type': 'integer'}}
    assert schema.validate_json('{"x": 1, "y": "2"}') == {'point': Point(1, 2)}
    # Arguments validated before (e.g. stored and re-validated) come wrapped under the parameter name.
    assert schema.validate_python({'point': {'x': 1, 'y': 2}}) == {'point': Point(1, 2)}
    with pytest.raises(ValidationError):
        schema.validate_json('{"x": 1}')


def test_a_single_model_argument_with_a_field_of_the_same_name_reads_it_as_the_model():
    def tool(wrapper: Wrapper) -> None:
        pass

    schema = function_schema(tool)
    assert schema.validate_python({'wrapper': 3}) == {'wrapper': Wrapper(wrapper=3)}
    assert schema.validate_python({'wrapper': {'wrapper': 4}}) == {'wrapper': Wrapper(wrapper=4)}


async def test_a_single_model_argument_is_passed_to_the_function_with_ctx_first():
    async def tool(ctx: RunContext[None], address: Address) -> str:
        return f'{ctx} {address.street} {address.number}'

    schema = function_schema(tool)
    assert schema.takes_ctx
    assert await schema.call(schema.validate_json('{"street": "Main"}'), 'ctx') == 'ctx Main 1'


def test_a_single_model_argument_gives_its_docstring_when_the_function_has_none():
    def search(query: Query) -> None:
        pass

    def documented(query: Query) -> None:
        """Search the web."""

    assert function_schema(search).description == 'A search query.'
    assert 'description' not in function_schema(search).json_schema
    assert function_schema(documented).description == 'Search the web.'


def test_a_single_recursive_model_argument_keeps_its_definitions():
    def tool(node: Node) -> None:
        pass

    schema = function_schema(tool)
    assert schema.json_schema['type'] == 'object'
    assert schema.json_schema['properties']['children']['items'] == {'$ref': '#/$defs/Node'}
    assert 'Node' in schema.json_schema['$defs']
    assert schema.validate_python({'name': 'a', 'children': [{'name': 'b'}]})['node'].children[0].name == 'b'


def test_a_function_schema_has_no_title_but_object_definitions_keep_theirs():
    def tool(address: Address, point: Point) -> None:
        pass

    schema = function_schema(tool)
    assert 'title' not in schema.json_schema
    assert schema.json_schema['$defs']['Address']['title'] == 'Address'


# --- calling ----------------------------------------------------------------------------------------------


async def test_a_sync_function_runs_in_a_worker_thread():
    def tool(x: int) -> int:
        return threading.get_ident()

    schema = function_schema(tool)
    assert not schema.is_async
    assert await schema.call({'x': 1}, None) != threading.get_ident()


async def test_a_sync_function_runs_on_the_installed_executor():
    names: list[str] = []

    def tool() -> None:
        names.append(threading.current_thread().name)

    schema = function_schema(tool)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix='tool-pool') as executor:
        with use_thread_executor(executor):
            await schema.call({}, None)
        await schema.call({}, None)
    assert names[0].startswith('tool-pool')
    assert not names[1].startswith('tool-pool')


async def test_context_variables_are_visible_in_the_worker_thread():
    var: contextvars.ContextVar[str] = contextvars.ContextVar('var', default='unset')
    var.set('set')
    assert await run_sync_in_thread(var.get) == 'set'
    with ThreadPoolExecutor(max_workers=1) as executor, use_thread_executor(executor):
        assert await run_sync_in_thread(var.get) == 'set'


async def test_an_async_function_is_awaited_on_the_event_loop():
    async def tool(x: int) -> tuple[int, int]:
        await asyncio.sleep(0)
        return x, threading.get_ident()

    schema = function_schema(tool)
    assert schema.is_async
    assert await schema.call({'x': 2}, None) == (2, threading.get_ident())


async def test_positional_only_parameters_are_passed_positionally():
    def tool(a: int, b: int = 2, /, c: int = 3) -> tuple[int, int, int]:
        return a, b, c

    schema = function_schema(tool)
    assert schema.positional_fields == ['a', 'b']
    assert await schema.call(schema.validate_python({'a': 1, 'c': 4}), None) == (1, 2, 4)


async def test_var_positional_and_var_keyword_parameters_are_called_correctly():
    def tool(first: str, *rest: int, flag: bool = False, **extra: float) -> Any:
        return first, rest, flag, extra

    schema = function_schema(tool)
    assert schema.var_positional_field == 'rest'
    assert schema.positional_fields == ['first']
    assert schema.json_schema['properties']['rest'] == {'type': 'array', 'items': {'type': 'integer'}}
    assert schema.json_schema['additionalProperties'] == {'type': 'number'}
    args = schema.validate_json('{"first": "a", "rest": [1, "2"], "ratio": 0.5}')
    assert await schema.call(args, None) == ('a', (1, 2), False, {'ratio': 0.5})
    assert await schema.call(schema.validate_python({'first': 'b'}), None) == ('b', (), False, {})


async def test_partials_and_callable_objects_can_be_tools():
    class Adder:
        async def __call__(self, a: int, b: int) -> int:
            """Add two numbers."""
            return a + b

    def scale(factor: int, value: int) -> int:
        """Scale a value.

        Args:
            factor: The factor.
            value: The value.
        """
        return factor * value

    partial = functools.partial(scale, 10)
    schema = function_schema(partial)
    assert schema.description == 'Scale a value.'
    assert list(schema.json_schema['properties']) == ['value']
    assert await schema.call({'value': 2}, None) == 20

    adder_schema = function_schema(Adder())
    assert adder_schema.is_async
    assert await adder_schema.call({'a': 1, 'b': 2}, None) == 3


async def test_call_maybe_async_awaits_async_callables_and_threads_sync_ones():
    async def async_double(x: int) -> int:
        return x * 2

    def sync_thread() -> int:
        return threading.get_ident()

    assert is_async_callable(functools.partial(async_double, 1))
    assert not is_async_callable(sync_thread)
    assert not is_async_callable(Address)
    assert await call_maybe_async(async_double, 2) == 4
    assert await call_maybe_async(functools.partial(async_double, x=3)) == 6
    assert await call_maybe_async(sync_thread) != threading.get_ident()


async def test_inline_executor_calls_sync_functions_on_the_calling_thread() -> None:
    import threading

    from agent._threads import INLINE, run_sync_in_thread, use_thread_executor

    with use_thread_executor(INLINE):
        ident = await run_sync_in_thread(threading.get_ident)
    assert ident == threading.get_ident()
