"""Scripted agents for the chat app tests: echo, slow streaming, a tool that needs approval, and a gate."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart
from agent.models.function import (
    AgentInfo,
    DeltaThinkingCalls,
    DeltaThinkingPart,
    DeltaToolCall,
    DeltaToolCalls,
    FunctionModel,
)


def _last_prompt(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if isinstance(part, UserPromptPart):
                    content = part.content
                    return content if isinstance(content, str) else ' '.join(c for c in content if isinstance(c, str))
    return ''


def _tool_returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    last = messages[-1]
    if not isinstance(last, ModelRequest):
        return []
    return [part for part in last.parts if isinstance(part, ToolReturnPart)]


def chat_agent(*, gate: asyncio.Event | None = None, delay: float = 0.0) -> Agent[None, str]:
    """Answers by the user's prompt.

    - after a tool result: `Deleted: <result>`, or `Not deleted, because: <denial message>` when denied;
    - a prompt mentioning "delete": thinks, then calls `delete_file` (which needs approval);
    - any other prompt: thinks, then streams `You said: <prompt>` word by word, waiting for `gate` (if given)
      after the first word and `delay` seconds between words.
    """

    async def stream(
        messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls | DeltaThinkingCalls]:
        returns = _tool_returns(messages)
        if returns:
            part = returns[0]
            if part.outcome == 'denied':
                yield f'Not deleted, because: {part.model_response_str()}'
            else:
                yield f'Deleted: {part.model_response_str()}'
            return
        prompt = _last_prompt(messages)
        yield {0: DeltaThinkingPart(content='The user wrote something.')}
        if 'delete' in prompt:
            yield {1: DeltaToolCall(name='delete_file', json_args='{"path": "/tmp/report.txt"}', tool_call_id='del1')}
            return
        words = f'You said: {prompt}'.split(' ')
        for i, word in enumerate(words):
            yield word if i == 0 else f' {word}'
            if i == 0 and gate is not None:
                await gate.wait()
            if delay:
                await asyncio.sleep(delay)

    agent: Agent[None, str] = Agent(FunctionModel(stream_function=stream), name='assistant')

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        """Delete a file."""
        return f'{path} is gone'

    return agent


def other_agent() -> Agent[None, Any]:
    """A second agent, answering `Other agent here.`."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield 'Other agent here.'

    return Agent(FunctionModel(stream_function=stream), name='other')
