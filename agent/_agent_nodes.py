"""`Agent.is_*_node`: narrowing the nodes an `agent.iter()` loop walks through to their types."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypeIs

from ._agent_graph import CallToolsNode, ModelRequestNode, UserPromptNode
from .graph import End
from .result import FinalResult

__all__ = ('AgentNodeChecksMixin',)


class AgentNodeChecksMixin:
    """The static checks `Agent` offers for the node types of a run's graph."""

    @staticmethod
    def is_user_prompt_node(node: Any) -> TypeIs[UserPromptNode[Any, Any]]:
        """Whether `node` is the node that builds the first request from the user prompt."""
        return isinstance(node, UserPromptNode)

    @staticmethod
    def is_model_request_node(node: Any) -> TypeIs[ModelRequestNode[Any, Any]]:
        """Whether `node` is a model request node."""
        return isinstance(node, ModelRequestNode)

    @staticmethod
    def is_call_tools_node(node: Any) -> TypeIs[CallToolsNode[Any, Any]]:
        """Whether `node` is the node that handles a model response (running its tool calls)."""
        return isinstance(node, CallToolsNode)

    @staticmethod
    def is_end_node(node: Any) -> TypeIs[End[FinalResult[Any]]]:
        """Whether `node` is the `End` of the run."""
        return isinstance(node, End)
