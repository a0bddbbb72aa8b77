"""Toolset instructions: parts from function toolsets, passed through wrappers, gathered by combinations."""

from __future__ import annotations

from typing import Any

from agent import Agent, RunContext
from agent.messages import InstructionPart, ModelMessage, ModelRequest, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel
from agent.toolsets import CombinedToolset, DynamicToolset, FunctionToolset, WrapperToolset
from agent.toolsets.abstract import ToolsetInstructions

from ._toolset_helpers import make_ctx


class Shouting(WrapperToolset[Any]):
    """A wrapper that changes what the toolset it wraps says."""

    async def get_instructions(self, ctx: RunContext[Any]) -> ToolsetInstructions:
        found = await self.wrapped.get_instructions(ctx)
        assert isinstance(found, list)
        return [str(part).upper() for part in found]


def _instructions_seen(agent: Agent[Any, str]) -> list[str | None]:
    seen: list[str | None] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        seen.append(last.instructions)
        return ModelResponse(parts=[TextPart('ok')])

    agent.model = FunctionModel(respond)
    return seen


async def test_wrappers_pass_on_instructions_and_combinations_gather_them_in_order() -> None:
    first = FunctionToolset[Any](instructions='Use the ruler.')
    second = FunctionToolset[Any](instructions=[lambda: None, lambda: 'Measure twice.'])
    silent = FunctionToolset[Any]()
    combined = CombinedToolset([first.prefixed('a').filtered(lambda ctx, td: True), silent, second.renamed({})])

    assert await combined.get_instructions(make_ctx()) == [
        InstructionPart('Use the ruler.', dynamic=False),
        InstructionPart('Measure twice.', dynamic=True),
    ]
    assert await CombinedToolset([silent]).get_instructions(make_ctx()) is None


async def test_a_wrapper_can_change_the_instructions_a_run_sends() -> None:
    agent = Agent[Any, str](toolsets=[Shouting(FunctionToolset[Any](instructions='keep it short'))])
    seen = _instructions_seen(agent)

    await agent.run('hi')

    assert seen == ['KEEP IT SHORT']


async def test_blank_toolset_instructions_are_left_out_and_dynamic_toolsets_give_theirs() -> None:
    class Mixed(WrapperToolset[Any]):
        async def get_instructions(self, ctx: RunContext[Any]) -> ToolsetInstructions:
            return ['', '  ', InstructionPart(' ', dynamic=True), 'first', InstructionPart('second')]

    built = DynamicToolset[Any](lambda ctx: FunctionToolset[Any](instructions=f'step {ctx.run_step}'))
    agent = Agent[Any, str](toolsets=[Mixed(FunctionToolset[Any]()), built])
    seen = _instructions_seen(agent)

    await agent.run('hi')

    assert seen == ['first\n\nsecond\n\nstep 1']
