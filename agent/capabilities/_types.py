"""Type aliases used in capability signatures: hook handlers, graph nodes, tool arguments and configuration.

Aliases that take the dependencies type (`AgentNode[DepsT]`, `WrapNodeRunHandler[DepsT]`, ...) are
`TypeAliasType`s, so they can be subscripted at runtime as well as by type checkers. Names of modules that
import this package (the agent graph, run results) are written as strings and resolved only by type checkers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from typing_extensions import TypeAliasType

from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse
from agent._run_context import RunContext
from agent._template import TemplateStr
from agent._tool import AgentDepsT, SystemPromptFunc
from agent.settings import ModelSettings

if TYPE_CHECKING:
    from agent._agent_graph import CallToolsNode, ModelRequestNode, UserPromptNode
    from agent.graph import End
    from agent.result import FinalResult
    from agent.run import AgentRunResult

__all__ = (
    'AgentBuiltinTool',
    'AgentInstructions',
    'AgentModelSettings',
    'AgentNode',
    'CapabilityDescription',
    'NodeResult',
    'RawToolArgs',
    'ValidatedToolArgs',
    'WrapModelRequestHandler',
    'WrapNodeRunHandler',
    'WrapRunHandler',
    'WrapToolExecuteHandler',
    'WrapToolValidateHandler',
)

RawToolArgs: TypeAlias = str | dict[str, Any]
"""A tool call's arguments as the model sent them: a JSON string or an already-parsed dict."""

ValidatedToolArgs: TypeAlias = dict[str, Any]
"""A tool call's arguments after validation against the tool's schema."""

AgentNode = TypeAliasType(
    'AgentNode',
    'UserPromptNode[AgentDepsT, Any] | ModelRequestNode[AgentDepsT, Any] | CallToolsNode[AgentDepsT, Any]',
    type_params=(AgentDepsT,),
)
"""A node of the agent graph: `UserPromptNode`, `ModelRequestNode` or `CallToolsNode`."""

NodeResult = TypeAliasType(
    'NodeResult',
    'AgentNode[AgentDepsT] | End[FinalResult[Any]]',
    type_params=(AgentDepsT,),
)
"""What running a graph node produces: the next node, or `End` carrying the run's final result."""

WrapRunHandler: TypeAlias = Callable[[], Awaitable['AgentRunResult[Any]']]
"""The handler `wrap_run` receives: runs the whole agent run and returns its result."""

WrapNodeRunHandler = TypeAliasType(
    'WrapNodeRunHandler',
    Callable[[AgentNode[AgentDepsT]], Awaitable[NodeResult[AgentDepsT]]],
    type_params=(AgentDepsT,),
)
"""The handler `wrap_node_run` receives: runs the given node and returns the next node or `End`."""

WrapModelRequestHandler: TypeAlias = Callable[[ModelRequestContext], Awaitable[ModelResponse]]
"""The handler `wrap_model_request` receives: sends the request and returns the model's response."""

WrapToolValidateHandler: TypeAlias = Callable[[RawToolArgs], Awaitable[ValidatedToolArgs]]
"""The handler `wrap_tool_validate` receives: validates raw arguments against the tool's schema."""

WrapToolExecuteHandler: TypeAlias = Callable[[ValidatedToolArgs], Awaitable[Any]]
"""The handler `wrap_tool_execute` receives: runs the tool with validated arguments and returns its result."""

_InstructionsPart = TypeAliasType(
    '_InstructionsPart',
    str | TemplateStr | SystemPromptFunc[AgentDepsT],
    type_params=(AgentDepsT,),
)

AgentInstructions = TypeAliasType(
    'AgentInstructions',
    _InstructionsPart[AgentDepsT] | Sequence[_InstructionsPart[AgentDepsT]] | None,
    type_params=(AgentDepsT,),
)
"""Instructions for the model, or a sequence of them.

Each one is a string, a `TemplateStr` rendered against the run's dependencies, or a function (sync or async,
taking the `RunContext` or nothing) returning a string, or `None` to contribute nothing on that step.
"""

AgentModelSettings = TypeAliasType(
    'AgentModelSettings',
    ModelSettings | Callable[[RunContext[AgentDepsT]], ModelSettings],
    type_params=(AgentDepsT,),
)
"""Model settings, or a function computing them for each step.

The function's `ctx.model_settings` holds the settings merged from every layer resolved before it.
"""

AgentBuiltinTool = TypeAliasType(
    'AgentBuiltinTool',
    Any | Callable[[RunContext[AgentDepsT]], Any],
    type_params=(AgentDepsT,),
)
"""A native (provider-executed) tool, or a function (sync or async) producing one, or `None`, for each step."""

CapabilityDescription = TypeAliasType(
    'CapabilityDescription',
    str | SystemPromptFunc[AgentDepsT],
    type_params=(AgentDepsT,),
)
"""A capability's description: a string, or a function (sync or async, taking the `RunContext` or nothing)."""
