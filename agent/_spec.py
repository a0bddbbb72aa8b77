"""Agent specs: agents described as data (Python, JSON or YAML), with capabilities named by their spec name.

A capability entry is a bare name (`Thinking`), or a one-key mapping from the name to its arguments:
keyword arguments (`{RateLimit: {rpm: 30}}`) or a single positional value (`{Name: value}`, a list too); see
`NamedSpec`. Arguments are validated against the capability's `from_spec` (or its dataclass
fields), and a bad one is reported with the capability's and the field's names.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self, TypeAlias, cast

import pydantic

from ._named_spec import NamedSpec, build_registry, build_schema_types, load_from_registry
from ._spec_files import (
    DEFAULT_SCHEMA_PATH,
    capability_registry,
    infer_format,
    parse_spec_text,
    save_spec_schema,
    spec_json_schema,
    write_spec_file,
)
from ._warnings import PydanticAIDeprecationWarning
from .exceptions import UserError

if TYPE_CHECKING:
    from .capabilities import AbstractCapability

__all__ = (
    'AgentSpec',
    'CapabilitySpec',
    'NamedSpec',
    'SpecError',
    'build_capabilities',
    'build_registry',
    'build_schema_types',
    'load_from_registry',
    'load_spec_file',
)


def _legacy_class(name: str) -> type[AbstractCapability[Any]] | None:
    """The class of an older spec name that is still read (the seeds' `BuiltinTool`, `NativeTool`'s base)."""
    from .capabilities import BuiltinTool

    return BuiltinTool if name == 'BuiltinTool' else None


class CapabilitySpec(NamedSpec):
    """A capability in a spec: its name, or `{name: arguments}` (validated from either form)."""


def _as_capability_spec(value: Any) -> Any:
    return value if isinstance(value, NamedSpec) else CapabilitySpec.model_validate(value)


CapabilityEntry: TypeAlias = Annotated[
    CapabilitySpec | str | dict[str, Any], pydantic.BeforeValidator(_as_capability_spec)
]
"""A capability entry as written (`'Name'`, `{'Name': arguments}`) or as a `CapabilitySpec`, which it is read into."""


class AgentSpec(pydantic.BaseModel):
    """An agent described as data, loadable from (and savable to) JSON or YAML.

    Unknown keys are refused, so a misspelt field is an error rather than silently ignored.
    """

    model_config = pydantic.ConfigDict(extra='forbid', populate_by_name=True)

    json_schema_path: str | None = pydantic.Field(default=None, alias='$schema')
    """The `$schema` a spec file points editors to (see `to_file`); it does not change the agent."""
    model: str | None = None
    """The model, as `'<provider>:<model>'` (or `'test'`)."""
    name: str | None = None
    """The agent's name."""
    description: str | None = None
    """What the agent is for."""
    instructions: str | list[str] | None = None
    """Instructions sent with every request."""
    system_prompt: str | list[str] | None = None
    """System prompts for the first request of a conversation."""
    deps_schema: dict[str, Any] | None = None
    """The JSON schema of the dependencies the agent expects (documentation only)."""
    output_schema: dict[str, Any] | None = None
    """The JSON schema of the output, an object schema; the output is then a dict (see `StructuredDict`)."""
    model_settings: dict[str, Any] | None = None
    """Agent-level model settings."""
    retries: int | dict[str, int] | None = None
    """Retry budgets: one number for tools and output, or `{'tools': n, 'output': m}` (default 1 each)."""
    tool_retries: int | None = pydantic.Field(default=None, json_schema_extra={'deprecated': True})
    """The tool retry budget (older spelling of `retries={'tools': n}`)."""
    output_retries: int | None = pydantic.Field(default=None, json_schema_extra={'deprecated': True})
    """The output retry budget (older spelling of `retries={'output': n}`)."""
    end_strategy: Literal['early', 'graceful', 'exhaustive'] = 'early'
    """What happens to other tool calls once output is produced."""
    tool_timeout: float | None = None
    """Default timeout for the agent's function tools, in seconds."""
    instrument: bool | None = None
    """Whether runs are traced (deprecated: add the `Instrumentation` capability instead)."""
    metadata: dict[str, Any] | None = None
    """Metadata attached to every run."""
    capabilities: list[CapabilityEntry] = pydantic.Field(default_factory=list[CapabilityEntry])
    """Capabilities by spec name, with their arguments (each read into a `CapabilitySpec`)."""

    @pydantic.model_validator(mode='after')
    def _warn_deprecated_fields(self) -> Self:
        if 'instrument' in self.model_fields_set:
            warnings.warn(
                '`AgentSpec.instrument` is deprecated: list the `Instrumentation` capability instead. '
                'It still turns tracing on or off for now.',
                PydanticAIDeprecationWarning,
                stacklevel=2,
            )
        return self

    @classmethod
    def from_file(cls, path: Path | str, fmt: Literal['yaml', 'json'] | None = None) -> AgentSpec:
        """Read a spec from a `.json`, `.yaml` or `.yml` file (or the format `fmt` names).

        Raises:
            ValueError: when the format cannot be told from the file name.
            pydantic.ValidationError: for an invalid spec.
        """
        path = Path(path)
        return cls.from_text(path.read_text(encoding='utf-8'), infer_format(path, fmt))

    @classmethod
    def from_text(cls, text: str, fmt: Literal['yaml', 'json'] = 'yaml') -> AgentSpec:
        """Read a spec from YAML or JSON text."""
        return cls.from_dict(parse_spec_text(text, fmt))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgentSpec:
        """Validate a spec from its dict form."""
        return cls.model_validate(data)

    def to_file(
        self,
        path: Path | str,
        fmt: Literal['yaml', 'json'] | None = None,
        schema_path: Path | str | None = DEFAULT_SCHEMA_PATH,
        custom_capability_types: Sequence[type[AbstractCapability[Any]]] = (),
    ) -> None:
        """Write the spec to a YAML or JSON file, with capabilities in their short forms.

        Args:
            path: The file to write.
            fmt: `'yaml'` or `'json'`; by default told from the file name.
            schema_path: Where to write the spec's JSON schema, for editors to check the file against (`{stem}` is
                the spec file's stem; a relative path is relative to the spec file); `None` writes none.
            custom_capability_types: Capability classes of your own to include in that schema.
        """
        write_spec_file(self, Path(path), fmt, schema_path, custom_capability_types)

    @pydantic.model_serializer(mode='wrap')
    def _with_schema_reference(
        self, handler: pydantic.SerializerFunctionWrapHandler, info: pydantic.SerializationInfo
    ) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        context = info.context
        if isinstance(context, dict) and (reference := cast('dict[str, Any]', context).get('$schema')):
            return {'$schema': reference, **{k: v for k, v in data.items() if k != '$schema'}}
        return data

    @classmethod
    def model_json_schema_with_capabilities(
        cls, custom_capability_types: Sequence[type[AbstractCapability[Any]]] = ()
    ) -> dict[str, Any]:
        """The JSON schema of spec files, with every capability's accepted forms spelled out.

        Raises:
            ValueError: for a custom capability type that is not a dataclass subclass of `AbstractCapability`.
        """
        return spec_json_schema(cls, custom_capability_types)

    @classmethod
    def _save_schema(cls, path: Path | str, custom_capability_types: Sequence[type[AbstractCapability[Any]]] = ()):
        save_spec_schema(cls, Path(path), custom_capability_types)


class SpecError(UserError, ValueError):
    """An agent spec that cannot be turned into an agent: an unknown capability name or bad arguments.

    It is a `UserError` like every misuse of the API, and a `ValueError` for code written for Pydantic AI.
    """


def _registry(custom: Sequence[type[AbstractCapability[Any]]]) -> Mapping[str, type[AbstractCapability[Any]]]:
    try:
        return capability_registry(custom)
    except ValueError as exc:
        raise SpecError(str(exc)) from exc


def _split_entry(entry: NamedSpec | str | Mapping[str, Any]) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    if not isinstance(entry, NamedSpec):
        try:
            entry = CapabilitySpec.model_validate(entry)
        except pydantic.ValidationError as exc:
            raise SpecError(f'Invalid capability entry {entry!r}: {_describe(exc)}') from exc
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
            raise SpecError(f'Failed to instantiate capability {name!r}: it has no field(s) {sorted(unknown)}')
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
        raise SpecError(f'Failed to instantiate capability {name!r}: {_describe(exc)}') from exc
    except (TypeError, ValueError, UserError) as exc:
        # Problems found by the capability itself (e.g. a combination of fields that cannot work).
        detail = exc.message if isinstance(exc, UserError) else str(exc)
        raise SpecError(f'Failed to instantiate capability {name!r}: {detail}') from exc


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
        cls = registry.get(name) or _legacy_class(name)
        if cls is None:
            raise SpecError(
                f'Capability {name!r} is not in the provided `custom_capability_types`. Valid choices: '
                f'{sorted(registry)}. To use a capability of your own, list its class in `custom_capability_types`.'
            )
        built.append(_instantiate(name, cls, args, kwargs))
    return built


def load_spec_file(path: str | Path) -> AgentSpec:
    """Read an `AgentSpec` from a `.json`, `.yaml` or `.yml` file.

    Raises:
        UserError: for an unsupported extension or an invalid spec (naming the file).
    """
    path = Path(path)
    try:
        return AgentSpec.from_file(path)
    except pydantic.ValidationError as exc:
        raise SpecError(f'Invalid agent spec in {path}: {_describe(exc)}') from exc
    except ValueError as exc:
        raise SpecError(f'Unsupported agent spec file {path}: {exc}') from exc
