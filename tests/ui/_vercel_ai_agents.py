"""Scripted agents and request bodies shared by the Vercel AI adapter tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ToolReturnPart
from agent.models.function import (
    AgentInfo,
    DeltaThinkingCalls,
    DeltaThinkingPart,
    DeltaToolCall,
    DeltaToolCalls,
    FunctionModel,
)
from agent.tools import DeferredToolRequests


def tool_returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    """The tool results in the last request (what the model answers to)."""
    last = messages[-1]
    if not isinstance(last, ModelRequest):
        return []
    return [part for part in last.parts if isinstance(part, ToolReturnPart)]


def weather_agent() -> Agent[None, Any]:
    """Reasons, calls `weather` (streamed arguments) and `delete` (needs approval), then answers with the results."""

    async def stream(
        messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls | DeltaThinkingCalls]:
        returns = tool_returns(messages)
        if returns:
            yield 'Results: '
            yield '; '.join(f'{part.tool_name}={part.model_response_str()} ({part.outcome})' for part in returns)
            return
        yield {0: DeltaThinkingPart(content='The user wants ')}
        yield {0: DeltaThinkingPart(content='the weather.')}
        yield 'Checking.'
        yield {1: DeltaToolCall(name='weather', json_args='{"city":', tool_call_id='call_weather')}
        yield {1: DeltaToolCall(json_args=' "Paris"}')}
        yield {2: DeltaToolCall(name='delete', json_args='{"path": "/tmp/x"}', tool_call_id='call_delete')}

    agent: Agent[None, Any] = Agent(FunctionModel(stream_function=stream), output_type=[str, DeferredToolRequests])

    @agent.tool_plain
    def weather(city: str) -> str:
        return f'sunny in {city}'

    @agent.tool_plain(requires_approval=True)
    def delete(path: str) -> str:
        return f'deleted {path}'

    return agent


def user_message(text: str, message_id: str = 'user-1') -> dict[str, Any]:
    """A user UI message as `useChat` sends it."""
    return {'id': message_id, 'role': 'user', 'parts': [{'type': 'text', 'text': text}]}


def chat_body(*messages: dict[str, Any], chat_id: str = 'chat-1') -> dict[str, Any]:
    """A `useChat` submit request body."""
    return {'id': chat_id, 'messages': list(messages), 'trigger': 'submit-message'}
