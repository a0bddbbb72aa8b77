"""An agent for the crash test: run in a worker subprocess that the test kills mid-tool."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from agent import Agent, RunContext
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from workflows import ActivityOptions, DurableAgent


def _respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    returned = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if not returned:
        return ModelResponse(parts=[ToolCallPart('quick_step', {}, 'quick-1')])
    if len(returned) == 1:
        return ModelResponse(parts=[ToolCallPart('slow_step', {}, 'slow-1')])
    return ModelResponse(parts=[TextPart(' | '.join(str(p.content) for p in returned))])


crash_agent = Agent(FunctionModel(_respond), name='crash_agent')


def _log(line: str) -> None:
    with Path(os.environ['CRASH_LOG']).open('a') as log:
        log.write(line + '\n')


@crash_agent.tool
def quick_step(ctx: RunContext[None]) -> str:
    _log(f'quick_step {ctx.tool_call_id}')
    return 'quick done'


@crash_agent.tool
async def slow_step(ctx: RunContext[None]) -> str:
    _log(f'slow_step {ctx.tool_call_id}')
    # Long enough for the test to kill the worker while this runs (the S4 scenario's 2 s tool).
    await asyncio.sleep(float(os.environ.get('CRASH_TOOL_SECONDS', '2')))
    return 'slow done'


crash_agent_local = DurableAgent(
    crash_agent, model_activity=ActivityOptions(local=True), tool_activity=ActivityOptions(local=True)
)
"""The same agent with every model request and tool call as a local activity."""
