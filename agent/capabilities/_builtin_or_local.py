"""`BuiltinOrLocalTool`: a native tool where the model supports it, a local tool (or toolset) otherwise.

Both sides are offered to every request: the native tool in `native_tools`, the local tools marked with
`unless_native=<kind>`. The model then settles them in `Model.prepare_request`, where its real profile is
known (in a durable run that is the model-request activity, not the workflow): a supported native tool drops
its local fallbacks, an unsupported one is dropped in favour of them. This capability's `before_model_request`
check runs next to that same model and turns the cases with no usable side into a `UserError` that says why:

- `local=False` (builtin only) on a model without the native tool;
- a constraint field that only the native tool can enforce (`builtin_only_fields`), e.g. `WebSearch(
  allowed_domains=[...])`, on a model without it (the local side is then never offered);
- no local fallback available (e.g. a search backend that is not installed), on a model without it.

`builtin=False` (or `native=False`, Pydantic AI's later name) uses the local side only. Subclasses provide
defaults by overriding `default_builtin`, `default_local`, `local_strategy`, `builtin_only_fields` and
`local_unavailable_reason`; the local side may be a function, a `Tool`, a whole toolset, or the name of a
strategy the subclass knows (`WebSearch(local='duckduckgo')`), checked when the capability is built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

from typing_extensions import TypeAliasType

from agent._model_request_context import ModelRequestContext
from agent._run_context import RunContext
from agent._tool import AgentDepsT, Tool
from agent._tool_def import ToolDefinition
from agent.builtin_tools import AbstractBuiltinTool, native_kinds
from agent.exceptions import UserError

from ._abstract import AbstractCapability
from ._types import AgentBuiltinTool

if TYPE_CHECKING:
    from agent.models import Model
    from agent.toolsets import AbstractToolset, AgentToolset

__all__ = ('BuiltinOrLocalTool', 'LocalTool')

LocalTool = TypeAliasType('LocalTool', 'Tool[Any] | Callable[..., Any] | AbstractToolset[Any]')
"""A local fallback: a tool function, a `Tool`, or a toolset."""


@dataclass(kw_only=True)
class BuiltinOrLocalTool(AbstractCapability[AgentDepsT]):
    """A provider-adaptive tool: the native tool when the model supports it, the local fallback otherwise.

    ```python
    cap = BuiltinOrLocalTool(builtin=CodeExecutionTool(), local=run_python)
    ```
    """

    builtin: AbstractBuiltinTool | bool = True
    """The native tool; `True` for the class's default one, `False` to never use it (local only)."""
    local: LocalTool | str | bool | None = None
    """The local fallback (function, `Tool`, toolset, or a strategy's name); `None`/`True` for the class's default,
    `False` for none."""
    native: AbstractBuiltinTool | bool | None = field(default=None, repr=False, compare=False)
    """Pydantic AI's later name for `builtin`: pass either one; after construction both hold the same value."""

    _toolset: AbstractToolset[AgentDepsT] | None = field(default=None, init=False, repr=False, compare=False)
    _toolset_built: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        name = type(self).__name__
        if self.native is not None:
            if self.builtin is not True and self.builtin != self.native:
                raise UserError(f'{name} got both builtin= and native=, which name the same setting: pass one')
            self.builtin = self.native
        self.native = self.builtin
        if self.builtin is False and self.local is False:
            raise UserError(
                f'{name}(builtin=False, local=False) provides nothing: both `native` and `local` cannot be False; '
                'allow at least one side'
            )
        if self.builtin is not False and self.builtin_tool() is None:
            raise UserError(
                f'{name} has no default native tool (native=True requires a subclass that provides one): '
                'pass native=<a native tool> (or builtin=...), or native=False'
            )
        if isinstance(self.local, str):
            self.local_strategy(self.local)  # an unknown or uninstallable strategy fails here, not mid-run
        if self.builtin is False:
            if only := self.builtin_only_fields():
                raise UserError(
                    f'{name}({", ".join(only)}) needs the native tool, which builtin=False turns off: constraint '
                    f'fields require the native tool, and the local fallback cannot enforce {", ".join(only)}'
                )
            if self.local_toolset() is None:
                raise UserError(f'{name}(builtin=False) needs a local fallback: {self.local_unavailable_reason()}')

    # Extension points for subclasses.

    def default_builtin(self) -> AbstractBuiltinTool | None:
        """The native tool used when `builtin=True` (none by default)."""
        return None

    def default_local(self) -> LocalTool | None:
        """The local fallback used when `local` is `None` or `True` (none by default)."""
        return None

    def builtin_only_fields(self) -> list[str]:
        """The constraint fields that are set and that only the native tool can enforce."""
        return []

    def local_strategy(self, name: str) -> LocalTool:
        """The local side that `local=<name>` stands for (the base class knows no names).

        Raises:
            UserError: for a name this class does not know, or a strategy whose package is not installed.
        """
        raise UserError(
            f'{type(self).__name__}(local={name!r}): `local={name!r}` is not supported; '
            'pass local=<a function, Tool or toolset>'
        )

    def local_unavailable_reason(self) -> str:
        """Why there is no local fallback, and what to do about it (for error messages)."""
        return 'none was given; pass local=<a function, Tool or toolset>'

    # The two sides.

    def builtin_tool(self) -> AbstractBuiltinTool | None:
        """The native tool to request, or `None` when `builtin=False`."""
        if self.builtin is False:
            return None
        return self.default_builtin() if self.builtin is True else self.builtin

    def local_toolset(self) -> AbstractToolset[AgentDepsT] | None:
        """The local side as a toolset (its tools marked as fallbacks of the native tool), or `None`."""
        if not self._toolset_built:
            self._toolset = self._build_local_toolset()
            self._toolset_built = True
        return self._toolset

    def _build_local_toolset(self) -> AbstractToolset[AgentDepsT] | None:
        if self.local is False or self.builtin_only_fields():
            return None
        if self.local is None or self.local is True:
            local = self.default_local()
        elif isinstance(self.local, str):
            local = self.local_strategy(self.local)
        else:
            local = self.local
        if local is None:
            return None
        from agent.toolsets import AbstractToolset, FunctionToolset

        if isinstance(local, AbstractToolset):
            toolset = cast('AbstractToolset[Any]', local)
        else:
            toolset = FunctionToolset[Any]([local])
        builtin = self.builtin_tool()
        if builtin is None:
            return toolset
        kind = builtin.kind

        def mark_as_fallback(ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
            return [replace(tool_def, unless_native=kind) for tool_def in tool_defs]

        return toolset.prepared(mark_as_fallback)

    # Configuration.

    def get_builtin_tools(self) -> Sequence[AgentBuiltinTool[AgentDepsT]]:
        tool = self.builtin_tool()
        return [tool] if tool is not None else []

    def get_native_tools(self) -> Sequence[AgentBuiltinTool[AgentDepsT]]:
        """The native tool this capability requests (`get_builtin_tools` under Pydantic AI's later name)."""
        return self.get_builtin_tools()

    def _native_unique_id(self) -> str:
        # Pydantic AI's name for what marks the local tools as fallbacks (`unless_native`).
        tool = self.builtin_tool()
        if not isinstance(tool, AbstractBuiltinTool):
            raise UserError(f'{type(self).__name__} cannot derive native unique_id: its native tool is {tool!r}')
        return tool.unique_id

    def _requires_native(self) -> bool:
        return bool(self.builtin_only_fields())

    def get_toolset(self) -> AgentToolset[AgentDepsT] | None:
        return self.local_toolset()

    @classmethod
    def get_serialization_name(cls) -> str | None:
        # The base class takes a native tool object and a local function; subclasses load from specs.
        return None if cls is BuiltinOrLocalTool else cls.__name__

    # Hooks.

    async def before_model_request(
        self, ctx: RunContext[AgentDepsT], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """Fail with a clear `UserError` when the model lacks the native tool and no local side can stand in."""
        tool = self.builtin_tool()
        if tool is None or tool.kind in native_kinds(request_context.model.profile.supported_native_tools):
            return request_context
        if self.local_toolset() is not None:
            return request_context
        raise UserError(self._unsupported_message(tool, request_context.model))

    def _unsupported_message(self, tool: AbstractBuiltinTool, model: Model) -> str:
        name = type(self).__name__
        unsupported = f'it is not supported by {model.label}'
        if self.local is False:
            return f'{name}(local=False) only uses the native {tool.kind!r} tool, and {unsupported}.'
        if only := self.builtin_only_fields():
            fields = ', '.join(only)
            return (
                f'{name}({fields}) needs the native {tool.kind!r} tool because the local fallback cannot enforce '
                f'{fields}, and {unsupported}. Use a model that supports it, or drop {fields}.'
            )
        return (
            f'The native {tool.kind!r} tool is not supported by {model.label}, and {name} has no local fallback: '
            f'{self.local_unavailable_reason()}.'
        )
