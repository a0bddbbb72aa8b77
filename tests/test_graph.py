"""`agent.graph`: the names a Pydantic AI user imports from `pydantic_graph` to handle the agent's nodes."""

from __future__ import annotations

from typing import Any

from agent import Agent, CallToolsNode, ModelRequestNode, UserPromptNode
from agent.graph import BaseNode, End
from agent.models.test import TestModel


async def test_every_node_of_an_agent_run_is_a_base_node_until_the_end():
    agent = Agent(TestModel())

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    kinds: list[str] = []
    async with agent.iter('hello') as run:
        async for node in run:
            if isinstance(node, End):
                kinds.append('end')
            elif isinstance(node, BaseNode):
                kinds.append(type(node).__name__)

    assert kinds == ['UserPromptNode', 'ModelRequestNode', 'CallToolsNode', 'ModelRequestNode', 'CallToolsNode', 'end']
    assert run.result is not None


def test_the_agent_node_classes_share_the_base_node_class():
    node_types: list[type[Any]] = [UserPromptNode, ModelRequestNode, CallToolsNode]
    assert all(issubclass(node_type, BaseNode) for node_type in node_types)
    assert not issubclass(End, BaseNode)
