"""Helpers for the AG-UI tests: scripted agents, run inputs, running an adapter, and the real client's verdict."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import BaseEvent, Message, ResumeEntry, RunAgentInput, Tool, UserMessage
from pydantic import BaseModel

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, RetryPromptPart, ToolReturnPart
from agent.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, DeltaToolCalls, FunctionModel
from agent.tools import RunContext
from agent.ui import StateDeps
from agent.ui.ag_ui import AGUIAdapter, AGUIEventStream

from ._node import run_node


def run_input(
    *messages: Message,
    tools: list[Tool] | None = None,
    state: Any = None,
    resume: list[ResumeEntry] | None = None,
    thread_id: str = 'thread-1',
    run_id: str = 'run-1',
) -> RunAgentInput:
    """A run input; `Hello` from the user when no messages are given."""
    return RunAgentInput(
        thread_id=thread_id,
        run_id=run_id,
        messages=list(messages) or [UserMessage(id='user-1', content='Hello')],
        tools=tools,
        state=state,
        resume=resume,
    )


async def run_events(adapter: AGUIAdapter[Any, Any], **kwargs: Any) -> list[BaseEvent]:
    """The AG-UI events of a run of `adapter` (`kwargs` go to `run_stream`)."""
    return [event async for event in adapter.run_stream(**kwargs)]


def encode(events: list[BaseEvent]) -> str:
    """The SSE body of `events`, as the server sends it."""
    stream = AGUIEventStream[Any, Any](run_input())
    return ''.join(stream.encode_event(event) for event in events)


def types(events: list[BaseEvent]) -> list[str]:
    """The event types, in order."""
    return [event.type.value for event in events]


def client_check(body: str) -> dict[str, Any]:
    """What `@ag-ui/client` makes of an SSE body: `events`, `error` (the verifier's), `agent` (an HttpAgent's view)."""
    return run_node('ag_ui_check.mjs', body)


def last_request_has_tool_result(messages: list[ModelMessage]) -> bool:
    """Whether the model is answering tool results (or retries) rather than the user."""
    last = messages[-1]
    return isinstance(last, ModelRequest) and any(
        isinstance(part, ToolReturnPart | RetryPromptPart) for part in last.parts
    )


def tool_results(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    """The tool results of the last request."""
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    return [part for part in last.parts if isinstance(part, ToolReturnPart)]


def calling_agent(
    tool_name: str,
    args: str = '{}',
    *,
    answer: str = 'Done.',
    seen: list[AgentInfo] | None = None,
    output_type: Any = str,
) -> Agent[Any, Any]:
    """An agent whose model thinks, says `Calling.`, calls `tool_name`, then answers with the tool results' text.

    `seen` collects what the model is given on each request.
    """

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls | Any]:
        if seen is not None:
            seen.append(info)
        if last_request_has_tool_result(messages):
            results = [str(part.content) for part in tool_results(messages)] if tool_results(messages) else []
            yield f'{answer} {" ".join(results)}'.strip()
            return
        yield {0: DeltaThinkingPart(content='Need a tool.', signature='sig-1')}
        yield 'Calling.'
        yield {1: DeltaToolCall(name=tool_name, json_args=args[:1], tool_call_id='call-1')}
        yield {1: DeltaToolCall(json_args=args[1:])}

    return Agent(FunctionModel(stream_function=stream), output_type=output_type)


class Counter(BaseModel):
    """Frontend state for the state tests."""

    count: int = 0
    """A number the frontend shows."""


def counter_agent() -> Agent[StateDeps[Counter], str]:
    """An agent whose model calls `increment` once; the tool adds one to the state's count."""
    agent = calling_agent('increment', answer='Incremented.')
    typed: Agent[StateDeps[Counter], str] = agent

    @typed.tool
    def increment(ctx: RunContext[StateDeps[Counter]]) -> int:
        ctx.deps.state.count += 1
        return ctx.deps.state.count

    return typed
