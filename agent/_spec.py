"""Agent specs: agents described as data (Python, JSON or YAML), with capabilities named by their spec name.

A capability entry is a bare name (`Thinking`), or a one-key mapping from the name to its arguments:
keyword arguments (`{RateLimit: {rpm: 30}}`) or a single positional value (`{Name: value}`, a list too); see
`NamedSpec`. Arguments are validated against the capability's `from_spec` (or its dataclass
fields), and a bad one is reported with the capability's and the field's names.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pydantic

from ._named_spec import NamedSpec, build_registry, build_schema_types, load_from_registry
from .exceptions import UserError

if TYPE_CHECKING:
    from .capabilities import AbstractCapability

__all__ = (
    'AgentSpec',
    'CapabilitySpec',
    'NamedSpec',
    'build_capabilities',
    'build_registry',
    'build_schema_types',
    'load_from_registry',
    'load_spec_file',
)


class CapabilitySpec(NamedSpec):
    """A capability in a spec: its name, or `{name: arguments}` (validated from either form)."""


class AgentSpec(pydantic.BaseModel):
    """An agent described as data, loadable from JSON or YAML."""

    model_config = pydantic.ConfigDict(extra='forbid')

    model: str | None = None
    """The model, as `'<provider>:<model>'` (or `'test'`)."""
    name: str | None = None
    """The agent's name."""
    description: str | None = None
    """What the agent is for (documentation only)."""
    instructions: str | list[str] | None = None
    """Instructions sent with every request."""
    system_prompt: str | list[str] | None = None
    """System prompts for the first request of a conversation."""
    model_settings: dict[str, Any] | None = None
    """Agent-level model settings."""
    retries: int = 1
    """Default tool retries."""
    output_retries: int | None = None
    """Output validation retries (defaults to `retries`)."""
    end_strategy: str = 'early'
    """`'early'` or `'exhaustive'`."""
    tool_timeout: float | None = None
    """Default timeout for the agent's function tools, in seconds."""
    metadata: dict[str, Any] | None = None
    """Metadata attached to every run."""
    capabilities: list[CapabilitySpec] = pydantic.Field(default_factory=list[CapabilitySpec])
    """Capabilities by spec name, with their arguments."""


def _registry(custom: Sequence[type[AbstractCapability[Any]]]) -> dict[str, type[AbstractCapability[Any]]]:
    from .capabilities import CAPABILITY_TYPES

    registry = dict(CAPABILITY_TYPES)
    for cls in custom:
        name = cls.get_serialization_name()
        if not name:
            raise UserError(f'{cls.__name__}.get_serialization_name() returned None, so it cannot be used in specs')
        registry[name] = cls
    return registry


def _split_entry(entry: NamedSpec | str | Mapping[str, Any]) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    if not isinstance(entry, NamedSpec):
        try:
            entry = CapabilitySpec.model_validate(entry)
        except pydantic.ValidationError as exc:
            raise UserError(f'Invalid capability entry {entry!r}: {_describe(exc)}') from exc
    return entry.name, entry.args, dict(entry.kwargs)


def _describe(error: pydantic.ValidationError) -> str:
    parts: list[str] = []
    for item in error.errors(include_url=False):
        loc = '.'.join(str(x) for x in item['loc']) or '(arguments)'
        parts.append(f'{loc}: {item["msg"]}')
    return '; '.join(parts)


_ARBITRARY = pydantic.ConfigDict(arbitrary_types_allowed=True)


def _instantiate(name: str, cls: type[AbstractCapability[Any]], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    from .capabilities import AbstractCapability

    custom_from_spec = cls.from_spec.__func__ is not AbstractCapability.from_spec.__func__
    if not custom_from_spec and dataclasses.is_dataclass(cls) and not args:
        unknown = set(kwargs) - {f.name for f in dataclasses.fields(cls) if f.init}
        if unknown:
            raise UserError(f'Capability {name!r} has no field(s) {sorted(unknown)}')
    try:
        if custom_from_spec:
            return pydantic.validate_call(config=_ARBITRARY)(cls.from_spec)(*args, **kwargs)
        if dataclasses.is_dataclass(cls) and not args:
            try:
                adapter = pydantic.TypeAdapter(cls)
            except pydantic.PydanticSchemaGenerationError:
                return cls.from_spec(**kwargs)
            return adapter.validate_python(kwargs)
        return cls.from_spec(*args, **kwargs)
    except pydantic.ValidationError as exc:
        raise UserError(f'Invalid arguments for capability {name!r}: {_describe(exc)}') from exc
    except (TypeError, UserError) as exc:
        # Problems found by the capability itself (e.g. a combination of fields that cannot work).
        detail = exc.message if isinstance(exc, UserError) else str(exc)
        raise UserError(f'Invalid arguments for capability {name!r}: {detail}') from exc


def build_capabilities(
    entries: Sequence[NamedSpec | str | Mapping[str, Any]],
    custom_capability_types: Sequence[type[AbstractCapability[Any]]] = (),
) -> list[AbstractCapability[Any]]:
    """Build capability instances from spec entries.

    Raises:
        UserError: for an unknown capability name or bad arguments (naming the capability and the field).
    """
    registry = _registry(custom_capability_types)
    built: list[AbstractCapability[Any]] = []
    for entry in entries:
        name, args, kwargs = _split_entry(entry)
        if isinstance(kwargs.get('capability'), str | dict):
            # Wrapping capabilities (e.g. PrefixTools) name the capability they wrap as a nested entry.
            kwargs['capability'] = build_capabilities([kwargs['capability']], custom_capability_types)[0]
        cls = registry.get(name)
        if cls is None:
            known = ', '.join(sorted(registry)) or '(none)'
            raise UserError(
                f'Unknown capability {name!r} in the agent spec. Known capabilities: {known}. '
                'Register your own with custom_capability_types=[...].'
            )
        built.append(_instantiate(name, cls, args, kwargs))
    return built


def load_spec_file(path: str | Path) -> AgentSpec:
    """Read an `AgentSpec` from a `.json`, `.yaml` or `.yml` file.

    Raises:
        UserError: for an unsupported extension or an invalid spec (naming the file).
    """
    path = Path(path)
    text = path.read_text(encoding='utf-8')
    suffix = path.suffix.lower()
    if suffix == '.json':
        data = json.loads(text)
    elif suffix in ('.yaml', '.yml'):
        import yaml

        data = yaml.safe_load(text)
    else:
        raise UserError(f'Unsupported agent spec file {path}: use .json, .yaml or .yml')
    try:
        return AgentSpec.model_validate(data)
    except pydantic.ValidationError as exc:
        raise UserError(f'Invalid agent spec in {path}: {_describe(exc)}') from exc
