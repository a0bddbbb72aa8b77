"""`XSearch`: search of X (Twitter) posts, natively on models that offer it, else through an xAI subagent."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from agent._run_context import RunContext
from agent._tool import AgentDepsT, Tool
from agent.builtin_tools import AbstractBuiltinTool, XSearchTool
from agent.exceptions import UserError

from ._builtin_or_local import BuiltinOrLocalTool, LocalTool

if TYPE_CHECKING:
    from agent.models import Model

__all__ = ('XSearch',)

_SEARCH_FIELDS = (
    'allowed_x_handles',
    'excluded_x_handles',
    'from_date',
    'to_date',
    'enable_image_understanding',
    'enable_video_understanding',
    'include_output',
)


@dataclass(kw_only=True)
class XSearch(BuiltinOrLocalTool[AgentDepsT]):
    """Lets the model search X: the native `XSearchTool` on models that have it (xAI).

    Other models need `fallback_model`, an xAI model that runs the search as a subagent behind a local `x_search`
    tool (handle and date filters are then applied by that subagent's native tool); there is no default one.

    ```python
    XSearch()                                         # xAI models only
    XSearch(fallback_model='xai:grok-4', from_date=start)  # any model, searching through grok
    ```
    """

    fallback_model: Model | str | Callable[[RunContext[Any]], Awaitable[Model] | Model] | None = None
    """The xAI model searching X for models without native X search (a name, a `Model`, or a function)."""
    allowed_x_handles: list[str] | None = None
    """Only posts from these handles (at most 10)."""
    excluded_x_handles: list[str] | None = None
    """No posts from these handles (at most 10)."""
    from_date: datetime | None = None
    """Only posts from this time on."""
    to_date: datetime | None = None
    """Only posts up to this time."""
    enable_image_understanding: bool | None = None
    """Let the search look at images in posts (the native tool's default when unset)."""
    enable_video_understanding: bool | None = None
    """Let the search look at videos in posts (the native tool's default when unset)."""
    include_output: bool | None = None
    """Return the raw search results in the response (the native tool's default when unset)."""

    def __post_init__(self) -> None:
        if self.fallback_model is not None and self.local is not None:
            raise UserError(
                'XSearch: cannot specify both `fallback_model` and `local`: pass `fallback_model` for an xAI model '
                'searching as a subagent, or `local` for your own tool'
            )
        super().__post_init__()

    def _overrides(self) -> dict[str, Any]:
        return {name: value for name in _SEARCH_FIELDS if (value := getattr(self, name)) is not None}

    def default_builtin(self) -> AbstractBuiltinTool | None:
        return XSearchTool(**self._overrides())

    def resolved_builtin(self) -> XSearchTool:
        """The native tool a fallback subagent uses: the given one (or the default) with this capability's filters."""
        base = self.builtin if isinstance(self.builtin, XSearchTool) else XSearchTool()
        overrides = self._overrides()
        return replace(base, **overrides) if overrides else base

    def builtin_only_fields(self) -> list[str]:
        if self.fallback_model is not None:
            return []  # the subagent's native tool applies them
        return [name for name in ('allowed_x_handles', 'excluded_x_handles') if getattr(self, name) is not None]

    def local_unavailable_reason(self) -> str:
        return "set fallback_model to an xAI model (e.g. 'xai:grok-4') to search X through it, or pass local=<a tool>"

    def default_local(self) -> LocalTool | None:
        if self.fallback_model is None:
            return None
        return _subagent_tool(self.fallback_model, self.resolved_builtin())


def _subagent_tool(
    fallback: Model | str | Callable[[RunContext[Any]], Awaitable[Model] | Model], native: XSearchTool
) -> Tool[Any]:
    from agent.common_tools.x_search import x_search_tool

    return x_search_tool(fallback, native)
