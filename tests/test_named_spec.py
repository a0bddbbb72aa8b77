"""Named specs: the short and long forms of `{name: arguments}`, registries, and loading objects from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

import pytest

from agent._named_spec import NamedSpec, build_registry, build_schema_types, load_from_registry
from agent._spec import CapabilitySpec
from agent._warnings import PydanticAIDeprecationWarning


@dataclass
class Greeter:
    greeting: str = 'hello'
    times: int = 1


def test_short_forms_read_as_name_positional_or_keyword_arguments() -> None:
    assert NamedSpec.model_validate('Greeter').arguments is None
    assert NamedSpec.model_validate({'Greeter': 'hi'}).args == ('hi',)
    assert NamedSpec.model_validate({'Greeter': [1, 2]}).args == ([1, 2],)  # a list is one argument
    assert NamedSpec.model_validate({'Greeter': {'times': 3}}).kwargs == {'times': 3}
    assert NamedSpec.model_validate({'name': 'Greeter', 'arguments': {'times': 2}}).kwargs == {'times': 2}
    with pytest.raises(ValueError, match='single key'):
        NamedSpec.model_validate({'A': 1, 'B': 2})


def test_short_form_dump_keeps_a_mapping_argument_in_the_long_form_so_it_reads_back_the_same() -> None:
    short = {'use_short_form': True}
    assert NamedSpec(name='A').model_dump(context=short) == 'A'
    assert NamedSpec(name='A', arguments=(True,)).model_dump(context=short) == {'A': True}
    assert NamedSpec(name='A', arguments={'k': 1}).model_dump(context=short) == {'A': {'k': 1}}
    positional_mapping = NamedSpec(name='A', arguments=({'k': 1},))
    dumped = positional_mapping.model_dump(context=short)
    assert NamedSpec.model_validate(dumped).args == ({'k': 1},)
    assert NamedSpec(name='A').model_dump() == {'name': 'A', 'arguments': None}


def test_capability_spec_is_a_named_spec() -> None:
    spec = CapabilitySpec.model_validate({'WebSearch': {'local': False}})
    assert isinstance(spec, NamedSpec)
    assert spec.name == 'WebSearch'


def test_registry_prefers_custom_types_and_refuses_unnamed_or_duplicate_ones() -> None:
    @dataclass
    class OtherGreeter:
        pass

    names = {Greeter: 'Greeter', OtherGreeter: 'Greeter'}
    registry = build_registry(custom_types=[OtherGreeter], defaults=[Greeter], get_name=names.get, label='thing')
    assert registry == {'Greeter': OtherGreeter}
    with pytest.raises(ValueError, match="Duplicate thing class name: 'Greeter'"):
        build_registry(custom_types=[Greeter, OtherGreeter], defaults=[], get_name=names.get, label='thing')
    with pytest.raises(ValueError, match='opted out'):
        build_registry(custom_types=[Greeter], defaults=[], get_name=lambda c: None, label='thing')


def test_load_from_registry_builds_reports_and_follows_legacy_names() -> None:
    registry: dict[str, type[Any]] = {'Greeter': Greeter}
    built = load_from_registry(
        registry, NamedSpec(name='Greeter', arguments=('hey',)), label='x', custom_types_param='c'
    )
    assert built == Greeter('hey')
    with pytest.raises(ValueError, match="X 'Nope' is not in the provided `c`"):
        load_from_registry(registry, NamedSpec(name='Nope'), label='x', custom_types_param='c')
    with pytest.raises(ValueError, match="Failed to instantiate x 'Greeter'"):
        load_from_registry(registry, NamedSpec(name='Greeter', arguments={'bad': 1}), label='x', custom_types_param='c')
    with pytest.warns(PydanticAIDeprecationWarning, match="use 'Greeter'"):
        old = load_from_registry(
            registry, NamedSpec(name='Old'), label='x', custom_types_param='c', legacy_aliases={'Old': 'Greeter'}
        )
    assert old == Greeter()


def test_schema_types_describe_each_accepted_form() -> None:
    def needs_one(path: str, strict: bool = False) -> None: ...

    forms = build_schema_types({'Greeter': Greeter, 'Reader': object}, get_schema_target=lambda c: c)
    assert Literal['Greeter'] in forms  # every parameter is optional
    assert Literal['Reader'] in forms  # `object()` takes nothing
    reader = build_schema_types({'Reader': object}, get_schema_target=lambda c: needs_one)
    assert Literal['Reader'] not in reader  # `path` is required
    assert [list(t.__annotations__) for t in reader] == [['Reader'], ['Reader']]  # short and long form
    assert get_args(Literal['Greeter']) == ('Greeter',)
