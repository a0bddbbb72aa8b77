"""Small parts of the capability API: per-run instances, node-wrapping views, executors, instruction decorators."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from agent import Agent, RunContext
from agent.capabilities import AbstractCapability, Capability, CombinedCapability, Hooks, PrefixTools, WrapperCapability
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel
from agent.usage import RunUsage


async def test_combined_for_run_keeps_the_same_object_when_no_part_changes_and_a_new_one_otherwise() -> None:
    @dataclass
    class Stateless(AbstractCapability[Any]):
        pass

    @dataclass
    class PerRun(AbstractCapability[Any]):
        runs: int = 0

        async def for_run(self, ctx: RunContext[Any]) -> PerRun:
            return PerRun(runs=self.runs + 1)

    ctx = RunContext[Any](deps=None, model=TestModel(), usage=RunUsage())
    unchanged = CombinedCapability([Stateless(), Stateless()])
    assert await unchanged.for_run(ctx) is unchanged
    changing = CombinedCapability([Stateless(), PerRun()])
    fresh = await changing.for_run(ctx)
    assert fresh is not changing
    assert fresh.capabilities[1] == PerRun(runs=1)


def test_capability_metadata_views_for_node_wrapping_and_event_streams() -> None:
    async def wrap(ctx: RunContext[Any], *, node: Any, handler: Any) -> Any:
        return await handler(node)  # pragma: no cover

    hooks = Hooks()
    assert not hooks.has_wrap_node_run
    hooks.on.node_run(wrap)
    assert hooks.has_wrap_node_run
    assert WrapperCapability(wrapped=hooks).has_wrap_node_run
    assert CombinedCapability([Hooks(), hooks]).has_wrap_node_run
    assert not CombinedCapability([Hooks()]).has_wrap_run_event_stream
    assert WrapperCapability.get_serialization_name() is None
    assert PrefixTools.get_serialization_name() == 'PrefixTools'


async def test_agent_using_thread_executor_runs_sync_tools_on_the_given_pool() -> None:
    names: list[str] = []
    agent = Agent(TestModel())

    @agent.tool_plain
    def where() -> str:
        names.append(threading.current_thread().name)
        return 'ok'

    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix='chosen-pool')
    try:
        with Agent.using_thread_executor(pool):
            await agent.run('go')
    finally:
        pool.shutdown(wait=True)
    assert len(names) == 1
    assert names[0].startswith('chosen-pool')


async def test_capability_instructions_decorator_works_with_and_without_parentheses() -> None:
    cap = Capability[None]()

    @cap.instructions()
    def first() -> str:
        return 'First rule.'

    @cap.instructions
    def second() -> str:
        return 'Second rule.'

    seen: list[str | None] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info.instructions)
        return ModelResponse(parts=[TextPart('done')])

    await Agent(FunctionModel(respond), capabilities=[cap]).run('go')
    assert seen == ['First rule.\n\nSecond rule.']


async def test_for_run_sees_the_runs_ids_and_resolved_metadata() -> None:
    seen: dict[str, Any] = {}

    @dataclass
    class Capture(AbstractCapability[Any]):
        async def for_run(self, ctx: RunContext[Any]) -> Capture:
            seen.update(run_id=ctx.run_id, conversation_id=ctx.conversation_id, metadata=ctx.metadata)
            return self

    def metadata(ctx: RunContext[None]) -> dict[str, Any]:
        return {'conversation': ctx.conversation_id}

    result = await Agent(TestModel(), capabilities=[Capture()]).run('go', conversation_id='c-1', metadata=metadata)
    assert seen == {'run_id': result.run_id, 'conversation_id': 'c-1', 'metadata': {'conversation': 'c-1'}}
