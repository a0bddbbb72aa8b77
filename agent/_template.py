"""`TemplateStr`: instructions written as a small Handlebars-style template, rendered against the run's deps.

The language itself (what `{{name}}`, `{{#if}}`, `{{#each}}` ... mean) is described in `_template_syntax`;
checking a template against the deps' type or JSON schema lives in `_template_schema`. This module holds the
public class, its pydantic integration (so a spec's strings containing `{{` become templates) and the helper
that applies it to a capability's `from_spec` arguments.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Generic, cast, get_args, get_origin, get_type_hints

import pydantic
from pydantic_core import CoreSchema, core_schema
from typing_extensions import TypeVar

from ._template_schema import check_template, deps_type_schema
from ._template_syntax import parse, render

if TYPE_CHECKING:
    from ._run_context import RunContext

__all__ = ('TemplateStr', 'validate_from_spec_args')

_DepsT = TypeVar('_DepsT', default=Any)
"""The type of the deps a template is rendered against (only for type checkers: `TemplateStr[MyDeps]`)."""


class TemplateStr(Generic[_DepsT]):
    """Instructions as a Handlebars-style template, e.g. `TemplateStr('Hello {{name}}')`.

    The template is parsed when it is created, so a syntax error (an unclosed block, say) shows up at
    agent construction instead of during a run. Given `deps_type` (or the JSON schema of the deps as
    `deps_schema`), every variable is also checked to exist there, so a misspelt name fails early too.

    A template is callable with a `RunContext` (it renders against `ctx.deps`), so it can be used wherever
    an instructions function can. In an agent spec, `instructions` and `description` strings that contain
    `{{` become templates, checked against the `deps_type` given to `Agent.from_spec` or the spec's
    `deps_schema`.
    """

    __slots__ = ('_nodes', 'deps_schema', 'deps_type', 'template')

    template: str
    """The template source."""
    deps_type: type[Any] | None
    """The deps type the template was checked against, if any."""
    deps_schema: dict[str, Any] | None
    """The deps JSON schema the template was checked against, if any."""

    def __init__(
        self, template: str, *, deps_type: type[Any] | None = None, deps_schema: dict[str, Any] | None = None
    ) -> None:
        """Parse `template`, and check its variables against `deps_type` (or else `deps_schema`) when given.

        Raises:
            UserError: the template is malformed, or uses a variable the deps type or schema does not have.
        """
        self.template = template
        self.deps_type = deps_type
        self.deps_schema = deps_schema
        self._nodes = parse(template)
        schema = deps_type_schema(deps_type) if deps_type is not None else deps_schema
        if schema is not None:
            check_template(self._nodes, template, schema)

    def render(self, deps: _DepsT | None = None) -> str:
        """Render the template with `deps` as its root scope.

        Raises:
            UserError: a variable used in the template is not defined on `deps`.
        """
        return render(self._nodes, self.template, deps)

    def __call__(self, ctx: RunContext[_DepsT]) -> str:
        """Render against the run's deps (`ctx.deps`), like an instructions function would."""
        return self.render(ctx.deps)

    def __str__(self) -> str:
        return self.template

    def __repr__(self) -> str:
        return f'TemplateStr({self.template!r})'

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TemplateStr):
            return NotImplemented
        return self.template == cast(TemplateStr[Any], other).template

    def __hash__(self) -> int:
        return hash((TemplateStr, self.template))

    @classmethod
    def __get_pydantic_core_schema__(cls, source_type: Any, handler: pydantic.GetCoreSchemaHandler) -> CoreSchema:
        """Validate strings containing `{{` into templates (checked against the validation context's
        `deps_type` / `deps_schema`); other strings fail, so `TemplateStr | str` keeps them as `str`.
        Templates serialize back to their source."""

        def validate(value: Any, info: core_schema.ValidationInfo) -> TemplateStr[Any]:
            if isinstance(value, TemplateStr):
                return cast(TemplateStr[Any], value)
            if not isinstance(value, str):
                raise ValueError(f'a template must be a string, not {type(value).__name__}')
            if '{{' not in value:
                raise ValueError('not a template: the string has no `{{`')
            context = cast(dict[str, Any], info.context or {})
            return TemplateStr(value, deps_type=context.get('deps_type'), deps_schema=context.get('deps_schema'))

        return core_schema.with_info_plain_validator_function(
            validate,
            serialization=core_schema.plain_serializer_function_ser_schema(str),
            json_schema_input_schema=core_schema.str_schema(),
        )


def validate_from_spec_args(
    cls: type[Any], args: tuple[Any, ...], kwargs: dict[str, Any], validation_context: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Turn the `from_spec` arguments of capability `cls` whose annotation mentions `TemplateStr` into templates.

    Only parameters annotated with `TemplateStr` (alone or in a union or container) are touched; their values
    are validated with pydantic under `validation_context` (`deps_type`, `deps_schema`), so template strings
    become checked `TemplateStr`s and plain strings stay strings. Everything else is returned as it came.
    """
    hints = _parameter_hints(cls.from_spec)
    if not any(_mentions_template(hint) for hint in hints.values()):
        return args, kwargs
    parameters = [
        p
        for p in inspect.signature(cls.from_spec).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    new_args = list(args)
    new_kwargs = dict(kwargs)
    for index, parameter in enumerate(parameters):
        hint = hints.get(parameter.name)
        if hint is None or not _mentions_template(hint):
            continue
        adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(hint)
        if index < len(args):
            new_args[index] = adapter.validate_python(args[index], context=validation_context)
        elif parameter.name in kwargs:
            new_kwargs[parameter.name] = adapter.validate_python(kwargs[parameter.name], context=validation_context)
    return tuple(new_args), new_kwargs


def _parameter_hints(func: Any) -> dict[str, Any]:
    """The resolved annotations of `func`'s parameters; one that cannot be resolved is left out."""
    try:
        hints = get_type_hints(func)
    except Exception:
        # One unresolvable annotation (e.g. a return type naming a class local to a function) should not hide
        # the others, so resolve them one by one.
        hints = {}
        namespace = getattr(func, '__globals__', {})
        for name, annotation in getattr(func, '__annotations__', {}).items():
            try:
                hints[name] = eval(annotation, namespace) if isinstance(annotation, str) else annotation
            except Exception:
                continue
    hints.pop('return', None)
    return hints


def _mentions_template(hint: Any) -> bool:
    if hint is TemplateStr or get_origin(hint) is TemplateStr:
        return True
    return any(_mentions_template(arg) for arg in get_args(hint))
