"""Agent spec files: reading and writing YAML or JSON, the capability registry, and the JSON schema for editors.

A spec file written by `AgentSpec.to_file` points to a JSON schema written next to it (a `$schema` key in JSON, a
`yaml-language-server` comment in YAML), so an editor can complete and check capability names and arguments.
The schema lists, for every capability a spec can name, each form it accepts (see `build_schema_types`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import pydantic

from ._named_spec import build_registry, build_schema_types

if TYPE_CHECKING:
    from ._spec import AgentSpec
    from .capabilities import AbstractCapability

__all__ = (
    'DEFAULT_SCHEMA_PATH',
    'capability_registry',
    'infer_format',
    'parse_spec_text',
    'save_spec_schema',
    'spec_json_schema',
    'write_spec_file',
)

DEFAULT_SCHEMA_PATH = '{stem}_schema.json'
"""Where `to_file` writes the schema by default: next to the spec, named after its stem."""

_YAML_SCHEMA_COMMENT = '# yaml-language-server: $schema='


def infer_format(path: Path, fmt: Literal['yaml', 'json'] | None) -> Literal['yaml', 'json']:
    """`fmt` if given, else the format the file name's extension says.

    Raises:
        ValueError: for an extension other than `.json`, `.yaml` and `.yml` without `fmt`.
    """
    if fmt is not None:
        return fmt
    suffix = path.suffix.lower()
    if suffix in ('.yaml', '.yml'):
        return 'yaml'
    if suffix == '.json':
        return 'json'
    raise ValueError(f'Could not infer format for filename {path.name!r}: pass fmt="yaml" or fmt="json".')


def parse_spec_text(text: str, fmt: Literal['yaml', 'json']) -> dict[str, Any]:
    """The dict a YAML or JSON spec text holds."""
    if fmt == 'json':
        data: Any = json.loads(text)
    else:
        import yaml

        data = yaml.safe_load(text)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f'An agent spec must be a mapping of fields, got {type(data).__name__}')
    return cast('dict[str, Any]', data)


def capability_registry(
    custom_types: Sequence[type[AbstractCapability[Any]]] = (),
) -> Mapping[str, type[AbstractCapability[Any]]]:
    """Capability classes by spec name: the built-in ones, and `custom_types` (which win over them).

    Raises:
        ValueError: for a custom type that is not a dataclass subclass of `AbstractCapability`, has no spec name,
            or repeats another's name.
    """
    from .capabilities import CAPABILITY_TYPES, AbstractCapability

    def check(cls: type[Any]) -> None:
        if not (isinstance(cls, type) and issubclass(cls, AbstractCapability)):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError(f'Custom capability classes must be subclasses of AbstractCapability; {cls} is not')
        if cls.get_serialization_name() is None:
            raise ValueError(f'{cls.__name__} has opted out of serialization (its spec name is None)')
        if '__dataclass_fields__' not in cls.__dict__:
            raise ValueError(f'Custom capability classes must be decorated with `@dataclass`; {cls} is not')

    return build_registry(
        custom_types=custom_types,
        defaults=tuple(CAPABILITY_TYPES.values()),
        get_name=lambda cls: cls.get_serialization_name(),
        label='capability',
        validate=check,
    )


def _schema_target(cls: type[Any]) -> Any:
    from .capabilities import AbstractCapability

    # A class keeping the default `from_spec` is built by its constructor, whose parameters describe it best.
    if getattr(cls.from_spec, '__func__', None) is getattr(AbstractCapability.from_spec, '__func__', None):
        return cls
    return cls.from_spec


def _describable(tp: Any) -> bool:
    try:
        pydantic.TypeAdapter(tp).json_schema()
    except Exception:  # a form whose argument types have no JSON schema is left out, not fatal
        return False
    return True


def _replace_refs(node: Any, ref: str, replacement: dict[str, Any]) -> None:
    if isinstance(node, dict):
        mapping = cast('dict[str, Any]', node)
        if mapping.get('$ref') == ref:
            mapping.clear()
            mapping.update(replacement)
            return
        for value in mapping.values():
            _replace_refs(value, ref, replacement)
    elif isinstance(node, list):
        for item in cast('list[Any]', node):
            _replace_refs(item, ref, replacement)


def spec_json_schema(
    spec_cls: type[AgentSpec], custom_types: Sequence[type[AbstractCapability[Any]]] = ()
) -> dict[str, Any]:
    """The JSON schema of spec files, with the capabilities' accepted forms in place of a generic entry."""
    registry = capability_registry(custom_types)
    forms = [t for t in build_schema_types(registry, get_schema_target=_schema_target) if _describable(t)]
    schema = spec_cls.model_json_schema(by_alias=True)
    defs: dict[str, Any] = schema.setdefault('$defs', {})
    for name in ('CapabilitySpec', 'NamedSpec'):
        defs.pop(name, None)
    items: dict[str, Any] = {}
    if forms:
        entry_type: Any = forms[0]
        for form in forms[1:]:  # the union of every capability's spec forms
            entry_type = entry_type | form
        entry_schema = pydantic.TypeAdapter[Any](entry_type).json_schema()
        defs.update(entry_schema.pop('$defs', {}))
        items = entry_schema
    schema['properties']['capabilities'] = {'items': items, 'title': 'Capabilities', 'type': 'array'}
    _replace_refs(schema, '#/$defs/CapabilitySpec', items)
    if not defs:
        del schema['$defs']
    schema['title'] = 'AgentSpec'
    return schema


def save_spec_schema(
    spec_cls: type[AgentSpec], path: Path, custom_types: Sequence[type[AbstractCapability[Any]]] = ()
) -> None:
    """Write the spec JSON schema to `path`, leaving the file untouched when it already holds the same schema."""
    content = json.dumps(spec_json_schema(spec_cls, custom_types), indent=2) + '\n'
    if not path.exists() or path.read_text(encoding='utf-8') != content:
        path.write_text(content, encoding='utf-8')


def write_spec_file(
    spec: AgentSpec,
    path: Path,
    fmt: Literal['yaml', 'json'] | None,
    schema_path: Path | str | None,
    custom_types: Sequence[type[AbstractCapability[Any]]],
) -> None:
    """Write `spec` to `path` (fields left at their defaults are left out), and its schema if `schema_path`."""
    fmt = infer_format(path, fmt)
    reference: str | None = None
    if schema_path is not None:
        schema_file = Path(schema_path.format(stem=path.stem)) if isinstance(schema_path, str) else schema_path
        reference = str(schema_file)
        if not schema_file.is_absolute():
            schema_file = path.parent / schema_file
        save_spec_schema(type(spec), schema_file, custom_types)
    context: dict[str, Any] = {'use_short_form': True, '$schema': reference}
    data = spec.model_dump(mode='json', by_alias=True, exclude_defaults=True, context=context)
    if fmt == 'json':
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + '\n', encoding='utf-8')
        return
    import yaml

    data.pop('$schema', None)  # YAML files name their schema in a comment the language server reads
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    if reference:
        text = f'{_YAML_SCHEMA_COMMENT}{reference}\n{text}'
    path.write_text(text, encoding='utf-8')
