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
from agent.run import AgentRunResult, AgentRunResultEvent

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


async def ask_with_iter(child: Agent[None, str], question: str, ctx: RunContext[None]) -> str:
    """Drive the child node by node; say which nodes it went through, its output and the run's requests."""
    async with child.iter(question, usage=ctx.usage) as run:
        kinds = [type(node).__name__ async for node in run]
    assert run.result is not None
    return f'{run.result.output} | {" > ".join(kinds)} | {run.result.usage.requests} requests'


async def ask_with_run_stream(child: Agent[None, str], question: str, ctx: RunContext[None]) -> str:
    """Stream the child's output every way a streamed result offers, then read its result."""
    async with child.run_stream(question, usage=ctx.usage) as result:
        texts = [text async for text in result.stream_text()]
        outputs = [output async for output in result.stream_output()]
        responses = [response async for response in result.stream_response()]
        output = await result.get_output()
        kinds = [message.kind for message in result.new_messages()]
        usage = result.usage
    return (
        f'{output} | text {texts[-1]} | output {outputs[-1]} | response {responses[-1].text} | '
        f'{" ".join(kinds)} | {usage.requests} requests'
    )


async def ask_with_run_stream_events(child: Agent[None, str], question: str, ctx: RunContext[None]) -> str:
    """Follow the child's events to the last, its result."""
    async with child.run_stream_events(question, usage=ctx.usage) as events:
        last = [event async for event in events][-1]
    assert isinstance(last, AgentRunResultEvent)
    result: AgentRunResult[str] = last.result
    return f'{result.output} | {len(result.new_messages())} messages | {result.usage.requests} requests'


ASKS = {'iter': ask_with_iter, 'run_stream': ask_with_run_stream, 'run_stream_events': ask_with_run_stream_events}
"""The other ways to run the child from a tool, by the name of the entry point."""


def streaming_router(child: Agent[None, str], how: str) -> Agent[None, str]:
    """The parent, whose tool runs `child` through `ASKS[how]` and returns what that says (or, if the child fails,
    asks for a retry)."""
    agent = Agent(tools_then_text(ToolCallPart('ask_researcher', {'question': 'why tides?'}, 'p-1')), name='router')
    ask = ASKS[how]

    @agent.tool
    async def ask_researcher(ctx: RunContext[None], question: str) -> str:
        try:
            return await ask(child, question, ctx)
        except AgentRunError as exc:
            raise ModelRetry(f'The researcher failed: {exc}') from exc

    return agent


def sync_streaming_router(child: Agent[None, str]) -> Agent[None, str]:
    """The parent with a sync tool, which streams `child`'s text with `run_stream_sync` and counts its messages."""
    agent = Agent(tools_then_text(ToolCallPart('ask_researcher', {'question': 'why tides?'}, 'p-1')), name='router')

    @agent.tool_plain
    def ask_researcher(question: str) -> str:
        result = child.run_stream_sync(question)
        return f'{"".join(result.stream_text(delta=True))} | {len(result.new_messages())} messages'

    return agent


def agents_of(child: Agent[None, str]) -> dict[str, Any]:
    """Both agents, under the names a worker serves them by."""
    return {'router': router(child), 'researcher': child}
