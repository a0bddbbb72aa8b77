"""Agents for the delegation crash test, run in a worker subprocess the test kills while the child's tool runs:
`router` prepares, then asks `researcher`, whose second tool is slow on its first attempt. Every tool logs each run
to `$CRASH_LOG`."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from temporalio import activity

from agent import Agent, RunContext
from agent.messages import ToolCallPart

from .delegation_agents import tools_then_text


def _log(line: str) -> None:
    with Path(os.environ['CRASH_LOG']).open('a') as log:
        log.write(line + '\n')


researcher = Agent(
    tools_then_text(ToolCallPart('lookup', {}, 'r-1'), ToolCallPart('dig', {}, 'r-2')), name='researcher'
)


@researcher.tool
def lookup(ctx: RunContext[None]) -> str:
    _log(f'lookup {ctx.tool_call_id}')
    return 'looked up'


@researcher.tool
async def dig(ctx: RunContext[None]) -> str:
    _log(f'dig {ctx.tool_call_id}')
    if activity.info().attempt == 1:
        await asyncio.sleep(60)  # the test kills the worker meanwhile; the retry on the next worker is quick
    return 'dug'


router = Agent(
    tools_then_text(ToolCallPart('prepare', {}, 'p-1'), ToolCallPart('ask_researcher', {}, 'p-2')), name='router'
)


@router.tool
def prepare(ctx: RunContext[None]) -> str:
    _log(f'prepare {ctx.tool_call_id}')
    return 'prepared'


@router.tool
async def ask_researcher(ctx: RunContext[None]) -> str:
    _log(f'ask_researcher {ctx.tool_call_id}')
    return (await researcher.run('dig in', usage=ctx.usage)).output
