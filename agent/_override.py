"""`Agent.override()`: replacing an agent's configuration for a block of code, typically in tests.

```python
with agent.override(model=TestModel(), deps=fake_deps):
    result = agent.run_sync('Hello')  # uses TestModel and fake_deps, whatever the call passes
```

The replacements live in a `ContextVar` of the agent, so they apply to the code in the `with` block and to the
tasks it starts, and never leak to other concurrent runs of the same agent. The configuration the run setup reads
(`name`, `model_settings`, instructions, metadata, native tools, output retries) is exposed through properties
that consult the replacements; what a run call passes (model, deps, toolsets, ...) is replaced in `Agent.iter`.

An `AgentSpec` can be applied too: to `override()`, where its values replace the agent's, and to a run
(`agent.run(..., spec=...)`), where they add to them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import pydantic

from ._instructions import InstructionSource, flatten_instructions
from ._spec import AgentSpec, build_capabilities
from .exceptions import UserError
from .settings import ModelSettings

__all__ = ('AgentOverrideMixin', 'ResolvedSpec', 'merge_metadata', 'resolve_spec')


class _Unset:
    def __repr__(self) -> str:
        return 'UNSET'


UNSET: Any = _Unset()
"""Marks an `override()` argument that was not given (`None` is a value one may override with)."""


@dataclass
class ResolvedSpec:
    """The parts of an `AgentSpec` that can change an existing agent's runs."""

    name: str | None = None
    """The agent name."""
    model: str | None = None
    """The model name."""
    instructions: list[InstructionSource] = field(default_factory=list[InstructionSource])
    """Instructions."""
    model_settings: dict[str, Any] | None = None
    """Model settings."""
    metadata: dict[str, Any] | None = None
    """Run metadata."""
    output_retries: int | None = None
    """The output retry budget."""
    capabilities: list[Any] = field(default_factory=list[Any])
    """Capabilities built from the spec."""


def merge_metadata(
    base: dict[str, Any], metadata: dict[str, Any] | Callable[[Any], dict[str, Any]] | None
) -> dict[str, Any] | Callable[[Any], dict[str, Any]]:
    """`base` (a spec's metadata) with a run's `metadata` on top; a function is merged with when it is called."""
    if not callable(metadata):
        return {**base, **(metadata or {})}

    def merged(ctx: Any) -> dict[str, Any]:
        return {**base, **(metadata(ctx) or {})}

    return merged


RUN_IGNORED_SPEC_FIELDS = ('description', 'end_strategy', 'tool_timeout', 'instrument', 'output_schema', 'deps_schema')
"""Spec fields that shape an agent when it is built, so a spec given to a run or `override()` cannot apply them."""


def resolve_spec(spec: AgentSpec | dict[str, Any] | None) -> ResolvedSpec | None:
    """Validate a spec and build its capabilities.

    Raises:
        UserError: for an invalid spec or an unknown capability.
    """
    if spec is None:
        return None
    if not isinstance(spec, AgentSpec):
        try:
            spec = AgentSpec.model_validate(spec)
        except pydantic.ValidationError as exc:
            raise UserError(f'Invalid agent spec: {exc}') from exc
    retries = (
        spec.retries
        if isinstance(spec.retries, dict)
        else {}
        if spec.retries is None
        else {
            'tools': spec.retries,
            'output': spec.retries,
        }
    )
    if 'tools' in retries or spec.tool_retries is not None:
        warnings.warn(
            "AgentSpec retry field 'tools' is ignored at run and override time (only the output budget applies)",
            UserWarning,
            stacklevel=3,
        )
    defaults = type(spec).model_fields
    for name in RUN_IGNORED_SPEC_FIELDS:
        if getattr(spec, name) != defaults[name].default:
            warnings.warn(
                f'AgentSpec field {name!r} is ignored at run and override time; it only applies to from_spec',
                UserWarning,
                stacklevel=3,
            )
    output_retries = retries.get('output', spec.output_retries)
    return ResolvedSpec(
        name=spec.name,
        model=spec.model,
        instructions=flatten_instructions(spec.instructions),
        model_settings=spec.model_settings,
        metadata=spec.metadata,
        output_retries=output_retries,
        capabilities=build_capabilities(spec.capabilities),
    )


class AgentOverrideMixin:
    """Configuration of `Agent` that `override()` can replace, and `override()` itself."""

    _override_var: ContextVar[dict[str, Any] | None]
    _name: str | None
    _base_model_settings: ModelSettings | Callable[..., ModelSettings] | None
    _base_instructions: list[InstructionSource]
    _base_metadata: dict[str, Any] | Callable[..., dict[str, Any]] | None
    _base_native_tools: list[Any]
    _base_max_result_retries: int
    _function_toolset: Any

    def _overridden(self, key: str, default: Any) -> Any:
        overrides = self._override_var.get()
        return overrides.get(key, default) if overrides else default

    def _is_overridden(self, key: str) -> bool:
        overrides = self._override_var.get()
        return overrides is not None and key in overrides

    @property
    def name(self) -> str | None:
        """The agent's name (inferred from the variable it is assigned to when first run, if not given)."""
        return self._overridden('name', self._name)

    @name.setter
    def name(self, value: str | None) -> None:
        self._name = value

    @property
    def model_settings(self) -> ModelSettings | Callable[..., ModelSettings] | None:
        """The agent's default model settings."""
        return self._overridden('model_settings', self._base_model_settings)

    @model_settings.setter
    def model_settings(self, value: ModelSettings | Callable[..., ModelSettings] | None) -> None:
        self._base_model_settings = value

    @property
    def _instructions(self) -> list[InstructionSource]:
        return self._overridden('instructions', self._base_instructions)

    @_instructions.setter
    def _instructions(self, value: list[InstructionSource]) -> None:
        self._base_instructions = value

    @property
    def _metadata(self) -> dict[str, Any] | Callable[..., dict[str, Any]] | None:
        return self._overridden('metadata', self._base_metadata)

    @_metadata.setter
    def _metadata(self, value: dict[str, Any] | Callable[..., dict[str, Any]] | None) -> None:
        self._base_metadata = value

    @property
    def _native_tools(self) -> list[Any]:
        return self._overridden('native_tools', self._base_native_tools)

    @_native_tools.setter
    def _native_tools(self, value: list[Any]) -> None:
        self._base_native_tools = value

    @property
    def _max_result_retries(self) -> int:
        return self._overridden('output_retries', self._base_max_result_retries)

    @_max_result_retries.setter
    def _max_result_retries(self, value: int) -> None:
        self._base_max_result_retries = value

    @contextmanager
    def override(
        self,
        *,
        name: str | None = UNSET,
        deps: Any = UNSET,
        model: Any = UNSET,
        toolsets: Sequence[Any] = UNSET,
        tools: Sequence[Any] = UNSET,
        native_tools: Sequence[Any] = UNSET,
        builtin_tools: Sequence[Any] = UNSET,
        instructions: Any = UNSET,
        metadata: dict[str, Any] | Callable[..., dict[str, Any]] | None = UNSET,
        model_settings: ModelSettings | Callable[..., ModelSettings] | None = UNSET,
        retries: int | dict[str, int] = UNSET,
        spec: AgentSpec | dict[str, Any] | None = None,
    ) -> Generator[None]:
        """Replace parts of the agent's configuration inside a `with` block (e.g. in a test).

        What is given replaces the agent's configuration *and* what a run call passes: `override(model=...)`
        wins over `agent.run(..., model=...)`, and likewise for `deps`, `toolsets`, `metadata` and
        `model_settings`. Overrides nest; leaving the block restores what was there before.

        Args:
            name: The agent name.
            deps: The dependencies every run gets.
            model: The model every run uses.
            toolsets: The toolsets, replacing the agent's (but not its own function tools) and the run's.
            tools: The function tools, replacing the ones registered on the agent.
            native_tools: The native (provider-side) tools; `builtin_tools` is the older name.
            builtin_tools: Same as `native_tools`.
            instructions: The instructions, replacing the agent's and the run's.
            metadata: The run metadata.
            model_settings: The model settings, replacing the agent's and the run's.
            retries: The output retry budget: an int, or `{'output': n}` (tool retries cannot be overridden).
            spec: An `AgentSpec` whose values are used where no explicit argument is given; its capabilities
                replace the agent's.

        Raises:
            UserError: for tool retries in `retries`, or an invalid spec.
        """
        from .models import infer_model
        from .toolsets import FunctionToolset

        values: dict[str, Any] = {}
        if (resolved := resolve_spec(spec)) is not None:
            spec_values = {
                'name': resolved.name,
                'model': resolved.model,
                'instructions': resolved.instructions or None,
                'model_settings': resolved.model_settings,
                'metadata': resolved.metadata,
                'output_retries': resolved.output_retries,
                'capabilities': resolved.capabilities or None,
            }
            values.update({k: v for k, v in spec_values.items() if v is not None})
        if isinstance(retries, dict):
            if 'tools' in retries:
                raise UserError(
                    '`agent.override(retries=...)` cannot set tool retries: set them on the agent or the tool.'
                )
            if 'output' in retries:
                values['output_retries'] = retries['output']
        elif retries is not UNSET:
            values['output_retries'] = retries
        if builtin_tools is not UNSET and native_tools is UNSET:
            native_tools = builtin_tools
        explicit = {
            'name': name,
            'deps': deps,
            'model': model,
            'toolsets': toolsets,
            'native_tools': native_tools,
            'instructions': instructions,
            'metadata': metadata,
            'model_settings': model_settings,
        }
        values.update({k: v for k, v in explicit.items() if v is not UNSET})
        if 'model' in values:
            values['model'] = infer_model(values['model'])
        if 'instructions' in values:
            values['instructions'] = flatten_instructions(values['instructions'])
        for key in ('toolsets', 'native_tools'):
            if key in values:
                values[key] = list(values[key])
        if tools is not UNSET:
            current: FunctionToolset[Any] = self._function_toolset
            values['function_toolset'] = FunctionToolset(
                tools, max_retries=current.max_retries, timeout=current.timeout, id=current.id
            )
        token = self._override_var.set({**(self._override_var.get() or {}), **values})
        try:
            yield
        finally:
            self._override_var.reset(token)
