"""`ReinjectSystemPrompt`: the agent's own system prompt at the head of the conversation sent to the model."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from agent._model_request_context import ModelRequestContext
from agent._parts import ModelMessage, ModelRequest, SystemPromptPart
from agent._run_context import RunContext

from ._abstract import AbstractCapability
from ._sides import HookSide

__all__ = ('ReinjectSystemPrompt',)


@dataclass
class ReinjectSystemPrompt(AbstractCapability[Any]):
    """Puts the agent's configured system prompt at the head of the first request of each model request.

    With `replace_existing=False` it is a fallback: a conversation that carries no system prompt (e.g. a
    history kept by a client) gets the agent's, one that has its own keeps it. With `replace_existing=True`
    every system prompt in the conversation is dropped first (requests left empty go too), so only the
    agent's own reaches the model, e.g. when the history comes from an untrusted client.

    Only what is sent changes: the run's message history keeps the messages as they were.
    """

    replace_existing: bool = False
    """Drop the conversation's system prompts and use the agent's instead (otherwise only add it if none)."""

    # Rewriting the conversation is deterministic and needs the agent's prompt functions: do it in the workflow.
    hook_sides: ClassVar[dict[str, HookSide]] = {'before_model_request': 'workflow'}

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        agent = ctx.agent
        messages = list(request_context.messages)
        present = any(
            isinstance(part, SystemPromptPart) for m in messages if isinstance(m, ModelRequest) for part in m.parts
        )
        if agent is None or (present and not self.replace_existing):
            return request_context
        prompts: list[SystemPromptPart] = await agent._system_prompt_parts(ctx)  # pyright: ignore[reportPrivateUsage]
        if self.replace_existing:
            messages = _without_system_prompts(messages)
        first = next((i for i, m in enumerate(messages) if isinstance(m, ModelRequest)), None)
        if first is not None and prompts:
            head = messages[first]
            assert isinstance(head, ModelRequest)
            messages[first] = replace(head, parts=[*prompts, *head.parts])
        return replace(request_context, messages=messages)


def _without_system_prompts(messages: list[ModelMessage]) -> list[ModelMessage]:
    kept: list[ModelMessage] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            parts = [part for part in message.parts if not isinstance(part, SystemPromptPart)]
            if not parts:
                continue
            if len(parts) != len(message.parts):
                message = replace(message, parts=parts)
        kept.append(message)
    return kept
