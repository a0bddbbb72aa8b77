"""Agents that delegate (a tool of one runs another, passing `usage=ctx.usage`), written once for in-process and
durable runs alike (see `test_delegation.py`)."""

from __future__ import annotations

import asyncio
from typing import Any

from agent import Agent, ModelRetry, RunContext
from agent.exceptions import AgentRunError
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from agent.models.function import AgentInfo, FunctionModel

tool_log: list[str] = []
"""What the child's tools did, in order (a replay or a retried round would add to it)."""


def tools_then_text(*calls: ToolCallPart) -> FunctionModel:
    """Calls the tools once, then answers with what they returned (or the retry prompts they gave)."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        returns = [part for part in last.parts if isinstance(part, ToolReturnPart | RetryPromptPart)]
        if not returns:
            return ModelResponse(parts=list(calls))
        return ModelResponse(parts=[TextPart(' + '.join(str(part.content) for part in returns))])

    return FunctionModel(respond)


def researcher() -> Agent[None, str]:
    """The child: looks up two facts with two tools, then reports them."""
    agent = Agent(
        tools_then_text(ToolCallPart('lookup', {'topic': 'tides'}, 'r-1'), ToolCallPart('measure', {}, 'r-2')),
        name='researcher',
    )

    @agent.tool_plain
    def lookup(topic: str) -> str:
        tool_log.append(f'lookup {topic}')
        return f'{topic} follow the moon'

    @agent.tool_plain
    def measure() -> str:
        tool_log.append('measure')
        return 'twice a day'

    return agent


def approving_researcher() -> Agent[None, str]:
    """A child that looks a fact up, then publishes it: publishing needs a person's approval."""
    agent = Agent(
        tools_then_text(ToolCallPart('lookup', {'topic': 'tides'}, 'r-1'), ToolCallPart('publish', {}, 'r-2')),
        name='researcher',
    )

    @agent.tool_plain
    def lookup(topic: str) -> str:
        tool_log.append(f'lookup {topic}')
        return f'{topic} follow the moon'

    @agent.tool_plain(requires_approval=True)
    def publish() -> str:
        tool_log.append('publish')
        return 'published'

    return agent


class Slow:
    """A child whose one tool waits until cancelled, saying when it started and when it was cancelled."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()

    def agent(self) -> Agent[None, str]:
        agent = Agent(tools_then_text(ToolCallPart('dig', {}, 'r-1')), name='researcher')

        @agent.tool_plain
        async def dig() -> str:
            self.started.set()
            try:
                await asyncio.Event().wait()  # only a cancellation ends it
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
            return 'never'

        return agent


def failing_researcher() -> Agent[None, str]:
    """A child whose model keeps calling a tool that does not exist, until the run gives up."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart('no_such_tool', {}, f'x-{len(messages)}')])

    return Agent(FunctionModel(respond), name='researcher', retries=1)


def router(child: Agent[None, str]) -> Agent[None, str]:
    """The parent: one tool, which asks `child` and returns its answer (or, if the child fails, asks for a retry)."""
    agent = Agent(tools_then_text(ToolCallPart('ask_researcher', {'question': 'why tides?'}, 'p-1')), name='router')

    @agent.tool
    async def ask_researcher(ctx: RunContext[None], question: str) -> str:
        try:
            result = await child.run(question, usage=ctx.usage)
        except AgentRunError as exc:
            raise ModelRetry(f'The researcher failed: {exc}') from exc
        return result.output

    return agent


def sync_router(child: Agent[None, str]) -> Agent[None, str]:
    """The parent with a sync tool, which asks `child` with `run_sync` (run in a thread, in process as durably)."""
    agent = Agent(tools_then_text(ToolCallPart('ask_researcher', {'question': 'why tides?'}, 'p-1')), name='router')

    @agent.tool_plain
    def ask_researcher(question: str) -> str:
        return child.run_sync(question).output

    return agent


def agents_of(child: Agent[None, str]) -> dict[str, Any]:
    """Both agents, under the names a worker serves them by."""
    return {'router': router(child), 'researcher': child}
