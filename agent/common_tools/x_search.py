"""`x_search_tool`: search X (Twitter) through a subagent on an xAI model that has the native `XSearchTool`.

`XSearch` uses this same tool as its local side when the agent's own model cannot search X.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent._run_context import RunContext
from agent._tool import Tool
from agent._warnings import PydanticAIDeprecationWarning
from agent.builtin_tools import XSearchTool
from agent.exceptions import ModelRetry

if TYPE_CHECKING:
    from agent.models import Model

__all__ = ('XSearchFallbackModelFunc', 'XSearchSubagentTool', 'x_search_tool')

XSearchFallbackModelFunc = Callable[[RunContext[Any]], 'Awaitable[Model] | Model']
"""A function choosing the subagent's model for each run."""

_INSTRUCTIONS = 'Search X (Twitter) for what the user asks and summarise the posts you find.'


@dataclass(kw_only=True)
class XSearchSubagentTool:
    """The X search: each call runs a subagent on `model` with `native_tool`, and returns its answer."""

    model: Model | str | XSearchFallbackModelFunc
    """The xAI model (or its name, or a function of the run context returning it) the subagent runs on."""
    native_tool: XSearchTool
    """The native X search, with its handle and date filters, that the subagent uses."""
    instructions: str = _INSTRUCTIONS
    """What the subagent is told to do with the query."""

    async def __call__(self, ctx: RunContext[Any], query: str) -> str:
        """Search X (Twitter) posts and summarise what was found.

        Args:
            query: What to look for on X.
        """
        from agent import Agent

        model: Any = self.model
        if callable(model):
            model = model(ctx)
            if inspect.isawaitable(model):
                model = await model
        searcher = Agent[None, str](model, builtin_tools=[self.native_tool], instructions=self.instructions)
        try:
            result = await searcher.run(query)
        except Exception as exc:  # the search failing is something the outer model can react to
            raise ModelRetry(f'X search failed: {exc}') from exc
        return result.output

    def __getattr__(self, name: str) -> Any:
        # Only called for names not found normally: `builtin_tool` is the field's old name.
        if name == 'builtin_tool':
            warnings.warn(
                '`XSearchSubagentTool.builtin_tool` is deprecated, use `.native_tool` instead.',
                PydanticAIDeprecationWarning,
                stacklevel=2,
            )
            return self.native_tool
        raise AttributeError(f'{type(self).__name__!r} object has no attribute {name!r}')


def x_search_tool(
    model: Model | str | XSearchFallbackModelFunc,
    native_tool: XSearchTool | None = None,
    *,
    instructions: str = _INSTRUCTIONS,
    **deprecated: Any,
) -> Tool[Any]:
    """A `x_search` tool that searches X through a subagent on `model` (an xAI model) using `native_tool`.

    `builtin_tool=` is accepted, with a deprecation warning, as the old name of `native_tool=`.
    """
    if 'builtin_tool' in deprecated:
        warnings.warn(
            '`x_search_tool(builtin_tool=...)` is deprecated, use `native_tool=` instead.',
            PydanticAIDeprecationWarning,
            stacklevel=2,
        )
        old = deprecated.pop('builtin_tool')
        native_tool = native_tool if native_tool is not None else old
    if deprecated:
        raise TypeError(f'x_search_tool() got unexpected keyword arguments: {", ".join(f"`{k}`" for k in deprecated)}')
    if native_tool is None:
        raise TypeError("x_search_tool() missing required argument: 'native_tool'")
    searcher = XSearchSubagentTool(model=model, native_tool=native_tool, instructions=instructions)
    return Tool[Any](searcher.__call__, name='x_search')
