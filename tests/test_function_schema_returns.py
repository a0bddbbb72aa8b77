"""Return schemas and the `Returns:` section of tool docstrings."""

from __future__ import annotations

from typing import Any, Self

import pytest
from pydantic import BaseModel

from agent._function_schema import function_schema
from agent.messages import ToolReturn


class Address(BaseModel):
    street: str
    number: int = 1


def test_a_scalar_return_schema_is_the_type_schema():
    def count() -> int:
        return 1

    def name() -> str:
        return ''

    assert function_schema(count).return_schema == {'type': 'integer'}
    assert function_schema(name).return_schema == {'type': 'string'}


def test_a_model_return_schema_is_used_as_is():
    def tool() -> Address:
        return Address(street='x')

    assert function_schema(tool).return_schema == {
        'title': 'Address',
        'type': 'object',
        'properties': {'street': {'type': 'string'}, 'number': {'type': 'integer', 'default': 1}},
        'required': ['street'],
    }


def test_a_none_return_is_null_and_any_or_a_missing_annotation_is_unconstrained():
    def returns_none() -> None:
        pass

    def returns_any() -> Any:
        pass

    def unannotated():
        pass

    assert function_schema(returns_none).return_schema == {'type': 'null'}
    assert function_schema(returns_any).return_schema == {}
    assert function_schema(unannotated).return_schema == {}


def test_a_tool_return_describes_the_value_it_gives_the_model_and_a_bare_one_is_unconstrained():
    def typed(street: str) -> ToolReturn[Address]:
        return ToolReturn(Address(street=street), content='a picture of the street')

    def bare() -> ToolReturn:
        return ToolReturn(1)

    def plain() -> Address:
        return Address(street='x')

    schema = function_schema(typed).return_schema
    assert schema == function_schema(plain).return_schema
    assert schema is not None
    assert schema['title'] == 'Address'
    assert function_schema(bare).return_schema == {}


class Thermometer(BaseModel):
    celsius: float

    def reading(self) -> Self:
        return self


def test_self_on_a_bound_method_is_the_class_of_its_instance():
    assert function_schema(Thermometer(celsius=20).reading).return_schema == {
        'title': 'Thermometer',
        'type': 'object',
        'properties': {'celsius': {'type': 'number'}},
        'required': ['celsius'],
    }


def test_a_return_type_pydantic_cannot_describe_warns_and_is_unconstrained():
    class Opaque:
        pass

    def tool() -> Opaque:
        return Opaque()

    with pytest.warns(UserWarning, match=r'Could not generate return schema for .*tool.*Falling back to unconstrained'):
        schema = function_schema(tool)
    assert schema.return_schema == {}


def test_the_returns_section_of_a_google_docstring_is_kept_in_the_description():
    def tool(x: int) -> str:
        """Do something.

        Args:
            x: The input.

        Returns:
            str: The result as text.
        """
        return str(x)

    def only_returns() -> str:
        """
        Returns:
            The result.
        """
        return ''

    assert function_schema(tool).description == (
        '<summary>Do something.</summary>\n<returns>\n<type>str</type>\n'
        '<description>The result as text.</description>\n</returns>'
    )
    assert function_schema(only_returns).description == (
        '<returns>\n<description>The result.</description>\n</returns>'
    )


def test_the_returns_section_of_numpy_and_sphinx_docstrings_keeps_the_written_type():
    def numpy_tool(x: int) -> str:
        """Do something.

        Parameters
        ----------
        x : int
            The input.

        Returns
        -------
        str
            The result.
        """
        return ''

    def sphinx_tool(x: int) -> str:
        """Do something.

        :param x: The input.
        :rtype: str
        :return: The result.
        """
        return ''

    expected = (
        '<summary>Do something.</summary>\n<returns>\n<type>str</type>\n'
        '<description>The result.</description>\n</returns>'
    )
    assert function_schema(numpy_tool).description == expected
    assert function_schema(sphinx_tool).description == expected
