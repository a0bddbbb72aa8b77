"""`for_run` and `for_run_step`: the toolset a run (or a run step) uses in place of the registered one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent import Agent, RunContext
from agent.toolsets import AbstractToolset, CombinedToolset, DynamicToolset, FunctionToolset, ToolsetTool
from tests._agent_helpers import call, scripted, text
from tests._toolset_helpers import make_ctx, math_toolset


@dataclass
class CountingToolset(AbstractToolset[Any]):
    """Offers one tool, `calls`, returning how many times it ran on this instance; each run gets a fresh one."""

    runs: list[CountingToolset] = field(default_factory=list['CountingToolset'])
    steps: list[int] = field(default_factory=list[int])
    count: int = 0

    async def for_run(self, ctx: RunContext[Any]) -> AbstractToolset[Any]:
        fresh = CountingToolset(self.runs, self.steps)
        self.runs.append(fresh)
        return fresh

    async def for_run_step(self, ctx: RunContext[Any]) -> AbstractToolset[Any]:
        self.steps.append(ctx.run_step)
        return self

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        inner = await FunctionToolset[Any]([self.calls]).get_tools(ctx)
        return {
            name: ToolsetTool(toolset=self, tool_def=t.tool_def, max_retries=1, args_validator=t.args_validator)
            for name, t in inner.items()
        }

    def calls(self) -> int:
        """How many times this tool ran in this run."""
        self.count += 1
        return self.count

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        return self.calls()


async def test_each_run_uses_the_toolset_for_run_returns_and_asks_for_run_step_before_each_request():
    registered = CountingToolset()
    agent = Agent(
        scripted(call('calls'), call('calls'), text('done'), call('calls'), text('done')), toolsets=[registered]
    )

    first = await agent.run('go')
    second = await agent.run('go')

    returns = [
        p.content
        for m in first.new_messages() + second.new_messages()
        for p in getattr(m, 'parts', [])
        if p.part_kind == 'tool-return'
    ]
    assert returns == [1, 2, 1]  # the second run counts afresh: it got its own instance
    assert registered.count == 0
    assert len(registered.runs) == 2
    assert registered.steps == [1, 2, 3, 1, 2]


async def test_wrappers_and_combinations_pass_for_run_down_and_keep_themselves_when_nothing_changes():
    counting = CountingToolset()
    plain = math_toolset()
    combined = CombinedToolset[Any]([plain.prefixed('m'), counting.prefixed('c')])

    per_run = await combined.for_run(make_ctx())
    same = await CombinedToolset[Any]([plain.prefixed('m')]).for_run(make_ctx())

    assert isinstance(per_run, CombinedToolset)
    assert per_run is not combined
    assert per_run.toolsets[0] is combined.toolsets[0]
    assert per_run.toolsets[1].wrapped is counting.runs[0]  # type: ignore[attr-defined]
    assert (await same.for_run_step(make_ctx())) is same
    assert isinstance(same, CombinedToolset)


async def test_a_dynamic_toolset_gives_each_run_its_own_copy():
    toolset = DynamicToolset[Any](lambda ctx: math_toolset(), per_run_step=False, id='dyn')

    per_run = await toolset.for_run(make_ctx())

    assert isinstance(per_run, DynamicToolset)
    assert per_run is not toolset
    assert (per_run.id, per_run.per_run_step) == ('dyn', False)
