"""`Agent.from_spec` and `Agent.from_file`: building an agent from an `AgentSpec`, with keyword arguments on top.

Arguments given to `from_spec` win over the spec's values, except where both sides add up: instructions
(the spec's first), model settings (the arguments' keys over the spec's) and capabilities (the spec's first).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, cast

import pydantic

from ._spec import AgentSpec, build_capabilities, load_spec_file
from ._template import TemplateStr
from ._warnings import PydanticAIDeprecationWarning
from .exceptions import UserError

if TYPE_CHECKING:
    from .capabilities import AbstractCapability, CombinedCapability

__all__ = ('AgentSpecMixin',)


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return [value] if isinstance(value, str) or not isinstance(value, Sequence) else list(value)  # pyright: ignore[reportUnknownArgumentType]


def _retry_arguments(spec: AgentSpec, overrides: dict[str, Any]) -> dict[str, Any]:
    if any(key in overrides for key in ('retries', 'tool_retries', 'output_retries')):
        return {}
    arguments: dict[str, Any] = {}
    if spec.retries is not None:
        arguments['retries'] = spec.retries
    if spec.tool_retries is not None:
        arguments['tool_retries'] = spec.tool_retries
    if spec.output_retries is not None:
        arguments['output_retries'] = spec.output_retries
    return arguments


def _templated(value: Any, context: dict[str, Any]) -> Any:
    """A spec string containing `{{` as a `TemplateStr` checked against the deps; other values unchanged."""
    if isinstance(value, str) and '{{' in value:
        return TemplateStr(value, deps_type=context['deps_type'], deps_schema=context['deps_schema'])
    return value


def _output_type(schema: dict[str, Any]) -> Any:
    from .output import StructuredDict

    if schema.get('type') != 'object':
        raise UserError(f'Schema must be an object (`"type": "object"`) to be an agent output_schema, got {schema!r}')
    return StructuredDict(schema)


class AgentSpecMixin:
    """The spec constructors of `Agent`, and the read-only views of its configuration they are checked with."""

    _capabilities: list[Any]
    _description: TemplateStr[Any] | str | None
    deps_type: Any
    _default_retries: int
    _max_result_retries: int
    _function_toolset: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None: ...  # the real signature is `Agent.__init__`'s

    @classmethod
    def from_spec(
        cls,
        spec: AgentSpec | dict[str, Any],
        *,
        custom_capability_types: Sequence[type[AbstractCapability[Any]]] = (),
        **overrides: Any,
    ) -> Self:
        """Build an agent from an `AgentSpec` (or its dict form).

        Keyword `overrides` are `Agent` constructor arguments and win over the spec (use them for what a spec
        cannot express: `deps_type`, `output_type`, `tools`, `toolsets`, more `capabilities`); instructions,
        model settings and capabilities given both ways are combined.

        Raises:
            UserError: for an invalid spec, a missing model, an unknown capability or bad capability arguments
                (the last two as `SpecError`, also a `ValueError`).
        """
        return cls._from_spec(spec, custom_capability_types, overrides, 'from_spec')

    @classmethod
    def from_file(
        cls,
        path: str | Path,
        *,
        custom_capability_types: Sequence[type[AbstractCapability[Any]]] = (),
        **overrides: Any,
    ) -> Self:
        """Build an agent from a JSON or YAML spec file (see `from_spec`)."""
        return cls._from_spec(load_spec_file(path), custom_capability_types, overrides, 'from_file')

    @classmethod
    def _from_spec(
        cls,
        spec: AgentSpec | dict[str, Any],
        custom_capability_types: Sequence[type[AbstractCapability[Any]]],
        overrides: dict[str, Any],
        method: str,
    ) -> Self:
        if not isinstance(spec, AgentSpec):
            try:
                spec = AgentSpec.model_validate(spec)
            except pydantic.ValidationError as exc:
                raise UserError(f'Invalid agent spec: {exc}') from exc
        if 'instrument' in overrides:
            warnings.warn(
                f'`Agent.{method}(instrument=...)` is deprecated: pass the `Instrumentation` capability instead. '
                'It still turns tracing on or off for now.',
                PydanticAIDeprecationWarning,
                stacklevel=3,
            )
        overrides = dict(overrides)
        model = overrides.pop('model', spec.model)
        if model is None:
            raise UserError('`model` must be provided, in the spec or as an argument of `from_spec`/`from_file`')
        capabilities = build_capabilities(spec.capabilities, custom_capability_types)
        deps_type = overrides.get('deps_type')
        template_context = {
            'deps_type': None if deps_type is type(None) else deps_type,
            'deps_schema': spec.deps_schema,
        }
        arguments: dict[str, Any] = {
            'name': spec.name,
            'description': _templated(spec.description, template_context),
            'system_prompt': _as_list(spec.system_prompt),
            'end_strategy': spec.end_strategy,
            'tool_timeout': spec.tool_timeout,
            'metadata': spec.metadata,
            **_retry_arguments(spec, overrides),
        }
        if spec.instrument is not None:
            arguments['instrument'] = spec.instrument
        if spec.output_schema is not None and 'output_type' not in overrides:
            arguments['output_type'] = _output_type(spec.output_schema)
        spec_instructions = [_templated(item, template_context) for item in _as_list(spec.instructions)]
        instructions = [*spec_instructions, *_as_list(overrides.pop('instructions', None))]
        arguments['instructions'] = instructions or None
        settings: Any = overrides.pop('model_settings', None)
        if spec.model_settings is not None and not callable(settings):
            settings = {**spec.model_settings, **cast('dict[str, Any]', settings or {})}
        arguments['model_settings'] = settings
        arguments['capabilities'] = [*capabilities, *(overrides.pop('capabilities', None) or [])]
        arguments.update(overrides)
        return cls(model, **arguments)

    @property
    def description(self) -> str | None:
        """A human-readable description of the agent (for UIs and for agents exposed as tools).

        A templated description (a `TemplateStr`) reads as its source; `render_description` renders it.
        """
        return None if self._description is None else str(self._description)

    @description.setter
    def description(self, value: TemplateStr[Any] | str | None) -> None:
        self._description = value

    def render_description(self, deps: Any = None) -> str | None:
        """The description with a template rendered against `deps` (a plain description as is)."""
        if isinstance(self._description, TemplateStr):
            template: TemplateStr[Any] = self._description
            return template.render(deps)
        return self._description

    # Views of the configuration under Pydantic AI's private names, which tests written for it read.

    @property
    def _deps_type(self) -> Any:
        return self.deps_type

    @property
    def _root_capability(self) -> CombinedCapability[Any]:
        from .capabilities import CombinedCapability

        return CombinedCapability(self._capabilities)

    @property
    def _max_tool_retries(self) -> int:
        return self._default_retries

    @property
    def _max_output_retries(self) -> int:
        return self._max_result_retries

    @property
    def _tool_timeout(self) -> float | None:
        return self._function_toolset.timeout
