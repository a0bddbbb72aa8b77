"""What a run puts into its requests besides tool results: instructions, refreshed system prompts, the prompt.

Used by the agent graph when it builds a request, and when it decides whether resuming from a message history needs
a new request at all (a history ending in a final response only does if there are instructions to send).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ._content import UserContent
from ._instructions import SystemPromptRunner, render_instructions
from ._parts import InstructionPart, ModelRequest, SystemPromptPart, UserPromptPart
from ._run_context import RunContext

if TYPE_CHECKING:
    from ._agent_graph import GraphAgentDeps, GraphAgentState
    from .toolsets import AbstractToolset

__all__ = ('refresh_dynamic_system_prompts', 'run_instructions', 'user_content')


async def run_instructions(deps: GraphAgentDeps[Any, Any], ctx: RunContext[Any]) -> str | None:
    """The instructions of this step: the agent's, the capabilities' and the run's, then the toolsets'."""
    own = await render_instructions(deps.instructions, ctx)
    parts = [own] if own else []
    return '\n\n'.join([*parts, *await _toolset_instructions(deps.toolset, ctx)]) or None


async def _toolset_instructions(toolset: AbstractToolset[Any], ctx: RunContext[Any]) -> list[str]:
    """What the run's toolsets add to the instructions (e.g. an MCP server with `include_instructions=True`)."""
    found = await toolset.get_instructions(ctx)
    if found is None:
        return []
    items = [found] if isinstance(found, str | InstructionPart) else found
    return [text for item in items if (text := str(item).strip())]


def user_content(request: ModelRequest) -> str | Sequence[UserContent] | None:
    """The user content of a request: one prompt part's content, or several parts' content combined."""
    prompts = [p for p in request.parts if isinstance(p, UserPromptPart)]
    if not prompts:
        return None
    if len(prompts) == 1:
        return prompts[0].content
    combined: list[UserContent] = []
    for prompt in prompts:
        if isinstance(prompt.content, str):
            combined.append(prompt.content)
        else:
            combined.extend(prompt.content)
    return combined


async def refresh_dynamic_system_prompts(state: GraphAgentState, deps: GraphAgentDeps[Any, Any]) -> None:
    """Re-evaluate the dynamic system prompts found in the history (`@agent.system_prompt(dynamic=True)`)."""
    runners = {
        p.function.__qualname__: p for p in deps.system_prompts if isinstance(p, SystemPromptRunner) and p.dynamic
    }
    if not runners:
        return
    ctx = deps.run_context(state)
    history = state.message_history
    for position, message in enumerate(history):
        if not isinstance(message, ModelRequest):
            continue
        parts = list(message.parts)
        changed = False
        for index, part in enumerate(parts):
            if isinstance(part, SystemPromptPart) and part.dynamic_ref in runners:
                fresh = await runners[part.dynamic_ref].run(ctx)
                if fresh is not None:
                    parts[index] = fresh
                    changed = True
        if changed:
            # Replace the message rather than edit it: the caller's history objects stay untouched.
            history[position] = replace(message, parts=parts)
