"""How a run ends when node hooks or callers hand it an `End`: this package's, or Pydantic Graph's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import pytest

from agent import Agent, RunContext, UserError
from agent.capabilities import AbstractCapability
from agent.graph import End
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel
from agent.result import FinalResult

T = TypeVar('T')


@dataclass
class GraphEnd(Generic[T]):
    """Stands in for `pydantic_graph.End` (that package is not a dependency): a class of that name and module."""

    data: T


GraphEnd.__name__ = GraphEnd.__qualname__ = 'End'
GraphEnd.__module__ = 'pydantic_graph.nodes'


def failing_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise ValueError('model exploded')


async def test_a_pydantic_graph_end_returned_by_a_node_hook_ends_the_run() -> None:
    @dataclass
    class Recover(AbstractCapability[Any]):
        async def on_node_run_error(self, ctx: RunContext[Any], *, node: Any, error: BaseException) -> Any:
            return GraphEnd(FinalResult('recovered'))

    result = await Agent(FunctionModel(failing_model), capabilities=[Recover()]).run('go')

    assert result.output == 'recovered'


async def test_a_loop_testing_for_the_pydantic_graph_end_its_hook_returned_ends() -> None:
    @dataclass
    class Recover(AbstractCapability[Any]):
        async def on_node_run_error(self, ctx: RunContext[Any], *, node: Any, error: BaseException) -> Any:
            return GraphEnd(FinalResult('recovered'))

    agent = Agent(FunctionModel(failing_model), capabilities=[Recover()])
    async with agent.iter('go') as run:
        node: Any = run.next_node
        while not isinstance(node, GraphEnd):
            node = await run.next(node)
    assert node.data.output == 'recovered'
    assert run.result is not None
    assert run.result.output == 'recovered'


async def test_next_refuses_the_end_node_instead_of_returning_it_forever() -> None:
    agent = Agent(FunctionModel(lambda _m, _i: ModelResponse(parts=[TextPart('done')])))
    async with agent.iter('go') as run:
        node: Any = run.next_node
        while not isinstance(node, End):
            node = await run.next(node)
        with pytest.raises(UserError, match=r'given the End node: the run has already ended'):
            await run.next(node)  # pyright: ignore[reportArgumentType]  # the mistake under test
    assert run.result is not None
    assert run.result.output == 'done'
