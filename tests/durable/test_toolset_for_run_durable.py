"""A durable run's tools are called on the toolset's per-run and per-step instances, as in-process."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from temporalio.client import Client

from agent import Agent, RunContext
from agent.capabilities import AbstractCapability
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from agent.toolsets import AbstractToolset, FunctionToolset, ToolsetTool
from worker import build_worker
from workflows import AgentRunInput, AgentWorkflow

from ._parity_harness import call_then_answer

pytestmark = pytest.mark.asyncio(loop_scope='session')


class PerRunTools(AbstractToolset[str]):
    """Has tools only on the instance `for_run` builds for a run, bound to the run's deps."""

    def __init__(self) -> None:
        self.for_run_deps: list[str] = []

    async def for_run(self, ctx: RunContext[str]) -> AbstractToolset[str]:
        self.for_run_deps.append(ctx.deps)
        owner = ctx.deps
        tools = FunctionToolset[str]()

        @tools.tool_plain
        def whoami() -> str:
            return f'the tools of {owner}'

        return tools

    async def get_tools(self, ctx: RunContext[str]) -> dict[str, ToolsetTool[str]]:
        return {}

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[str], tool: ToolsetTool[str]
    ) -> Any:
        raise AssertionError('the registered instance has no tools to call')


class PerStepTools(AbstractToolset[None]):
    """Has tools only on the instances `for_run_step` builds, which tell the step they were built for."""

    def __init__(self, step: int | None = None) -> None:
        self.step = step

    async def for_run_step(self, ctx: RunContext[None]) -> AbstractToolset[None]:
        return PerStepTools(ctx.run_step)

    async def get_tools(self, ctx: RunContext[None]) -> dict[str, ToolsetTool[None]]:
        if self.step is None:
            return {}
        step = self.step
        tools = FunctionToolset[None]()

        @tools.tool_plain
        def which_step() -> str:
            return f'step {step}'

        return await tools.get_tools(ctx)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[None], tool: ToolsetTool[None]
    ) -> Any:
        raise AssertionError('its tools are called on the toolset that made them')


@dataclass
class PerRunCapabilityTools(AbstractCapability[str]):
    """Brings tools only on the instance its `for_run` builds for a run, bound to the run's deps."""

    owner: str | None = None

    async def for_run(self, ctx: RunContext[str]) -> PerRunCapabilityTools:
        return PerRunCapabilityTools(ctx.deps)

    def get_toolset(self) -> FunctionToolset[str] | None:
        if self.owner is None:
            return None
        owner = self.owner
        tools = FunctionToolset[str]()

        @tools.tool_plain
        def whoami() -> str:
            return f'the capability tools of {owner}'

        return tools


def whoami_model() -> FunctionModel:
    return call_then_answer([ToolCallPart('whoami', {}, 'w-1')], lambda returns: str(returns[0].content))


async def run_durably(client: Client, task_queue: str, agent_name: str, deps: Any = None) -> Any:
    output = await client.execute_workflow(
        AgentWorkflow.run,
        AgentRunInput(agent=agent_name, prompt='Who are you?', deps=deps),
        id=f'for-run-{uuid.uuid4()}',
        task_queue=task_queue,
    )
    return output.output


async def test_a_tool_runs_on_the_per_run_instance_for_run_returns_like_in_process(
    client: Client, task_queue: str
) -> None:
    toolset = PerRunTools()
    agent = Agent(whoami_model(), deps_type=str, toolsets=[toolset], name='per_run_tools')
    local = await agent.run('Who are you?', deps='alice')
    async with build_worker(client, {'per_run_tools': agent}, task_queue=task_queue):
        durable = await run_durably(client, task_queue, 'per_run_tools', deps='alice')
    assert local.output == durable == 'the tools of alice'
    # In-process once; durably the workflow and the tool activity each asked, with the run's own deps.
    assert len(toolset.for_run_deps) >= 3
    assert set(toolset.for_run_deps) == {'alice'}


async def test_a_tool_runs_on_the_instance_for_run_step_returns_for_its_step_like_in_process(
    client: Client, task_queue: str
) -> None:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
        if len(returns) < 2:
            return ModelResponse(parts=[ToolCallPart('which_step', {}, f'step-call-{len(returns)}')])
        return ModelResponse(parts=[TextPart(', '.join(str(r.content) for r in returns))])

    agent = Agent(FunctionModel(respond), toolsets=[PerStepTools()], name='per_step_tools')
    local = await agent.run('Which steps?')
    async with build_worker(client, {'per_step_tools': agent}, task_queue=task_queue):
        durable = await run_durably(client, task_queue, 'per_step_tools')
    assert local.output == durable == 'step 1, step 2'


async def test_a_tool_runs_on_the_toolset_of_the_capabilitys_per_run_instance_like_in_process(
    client: Client, task_queue: str
) -> None:
    agent = Agent(whoami_model(), deps_type=str, capabilities=[PerRunCapabilityTools()], name='capability_tools')
    local = await agent.run('Who are you?', deps='carol')
    async with build_worker(client, {'capability_tools': agent}, task_queue=task_queue):
        durable = await run_durably(client, task_queue, 'capability_tools', deps='carol')
    assert local.output == durable == 'the capability tools of carol'


def dynamic_agent(arrived: list[str], both: asyncio.Event) -> Agent[str, str]:
    """A dynamic toolset built from each run's deps, whose tool waits until two runs are inside it at once."""
    agent = Agent(whoami_model(), deps_type=str, name='dynamic_tools')

    @agent.toolset
    def tools_for(ctx: RunContext[str]) -> FunctionToolset[str]:
        owner = ctx.deps
        tools = FunctionToolset[str]()

        @tools.tool_plain
        async def whoami() -> str:
            arrived.append(owner)
            if len(arrived) == 2:
                both.set()
            await asyncio.wait_for(both.wait(), timeout=5)
            return f'the tools of {owner}'

        return tools

    return agent


async def test_concurrent_runs_on_one_worker_each_call_the_toolset_built_from_their_own_deps(
    client: Client, task_queue: str
) -> None:
    in_process = dynamic_agent([], asyncio.Event())
    local = await asyncio.gather(*(in_process.run('Who are you?', deps=name) for name in ('alice', 'bob')))
    assert [r.output for r in local] == ['the tools of alice', 'the tools of bob']

    async with build_worker(client, {'dynamic_tools': dynamic_agent([], asyncio.Event())}, task_queue=task_queue):
        durable = await asyncio.gather(
            *(run_durably(client, task_queue, 'dynamic_tools', deps=name) for name in ('alice', 'bob'))
        )
    assert durable == ['the tools of alice', 'the tools of bob']
