"""`RunContext`: what tools, hooks, instructions and validators know about the current run."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic

from opentelemetry.trace import NoOpTracer, Tracer
from typing_extensions import TypeVar

from ._content import UserContent
from ._enqueue import EnqueueContent, PendingMessage, PendingMessagePriority
from ._parts import ModelMessage
from .exceptions import UserError
from .usage import RunUsage

if TYPE_CHECKING:
    from .agent import Agent
    from .capabilities import AbstractCapability
    from .models import Model
    from .settings import ModelSettings
    from .tools import ToolDefinition

__all__ = (
    'DEFAULT_INSTRUMENTATION_VERSION',
    'AgentDepsT',
    'EnqueueContent',
    'PendingMessage',
    'PendingMessagePriority',
    'RunContext',
    'RunContextAgentDepsT',
)

RunContextAgentDepsT = TypeVar('RunContextAgentDepsT', default=None, covariant=True)
"""The type of the dependencies available through `RunContext.deps`."""

AgentDepsT = TypeVar('AgentDepsT', default=None, contravariant=True)
"""Type variable for agent dependencies, in the generic classes that take them (tools, toolsets, adapters)."""

DEFAULT_INSTRUMENTATION_VERSION = 2
"""Version of the telemetry attribute layout."""


@dataclass(repr=False, kw_only=True)
class RunContext(Generic[RunContextAgentDepsT]):
    """Information about the current call, passed to tools, hooks, instructions and validators."""

    deps: RunContextAgentDepsT
    """Dependencies for the agent."""
    model: Model
    """The model used in this run."""
    usage: RunUsage
    """LLM usage associated with the run."""
    agent: Agent[RunContextAgentDepsT, Any] | None = field(default=None, repr=False)
    """The agent running this context, or `None` if not set."""
    prompt: str | Sequence[UserContent] | None = None
    """The original user prompt passed to the run."""
    messages: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """Messages exchanged in the conversation so far."""
    validation_context: Any = None
    """Pydantic validation context for tool args and run outputs."""
    tracer: Tracer = field(default_factory=NoOpTracer)
    """The tracer to use for tracing the run."""
    trace_include_content: bool = False
    """Whether to include the content of the messages in the trace."""
    instrumentation_version: int = DEFAULT_INSTRUMENTATION_VERSION
    """Instrumentation settings version, if instrumentation is enabled."""
    retries: dict[str, int] = field(default_factory=dict[str, int])
    """Number of retries for each tool so far."""
    tool_call_id: str | None = None
    """The ID of the tool call."""
    tool_name: str | None = None
    """Name of the tool being called."""
    retry: int = 0
    """Number of retries so far (of this tool for tool calls, of the output for output validation)."""
    max_retries: int = 0
    """The maximum number of retries allowed (for this tool, or for output validation)."""
    run_step: int = 0
    """The current step in the run (the number of model requests made, counting the current one)."""
    tool_call_approved: bool = False
    """Whether a tool call that required approval has now been approved."""
    tool_call_metadata: Any = None
    """Metadata from `DeferredToolResults.metadata[tool_call_id]`, available when `tool_call_approved=True`."""
    partial_output: bool = False
    """Whether the output passed to an output validator is partial."""
    run_id: str | None = None
    """Unique identifier for the agent run."""
    conversation_id: str | None = None
    """Unique identifier for the conversation this run belongs to (spans runs sharing history)."""
    metadata: dict[str, Any] | None = None
    """Metadata associated with this agent run, if configured."""
    model_settings: ModelSettings | None = None
    """The resolved model settings for the current step; set in model request hooks, `None` elsewhere."""
    pending_messages: list[PendingMessage] | None = field(default=None, repr=False)
    """Internal: the run's queue of messages to inject; use `enqueue` to add to it."""
    tool_manager: Any = None
    """The tool manager for the current run step (not available inside durable activities)."""
    capabilities: dict[str, AbstractCapability[RunContextAgentDepsT]] = field(default_factory=lambda: {}, repr=False)
    """All capabilities registered for the current run, keyed by id."""
    loaded_capability_ids: set[str] = field(default_factory=set[str])
    """IDs of deferred capabilities the model has explicitly loaded."""
    capability_loaded: bool | None = None
    """Whether the capability whose hook is currently running is loaded (`None` outside capability dispatch)."""
    discovered_tool_names: set[str] = field(default_factory=set[str])
    """Names of deferred-loading tools revealed to the model so far."""
    tool_definitions: dict[str, ToolDefinition] | None = field(default=None, repr=False)
    """Internal: the tool definitions resolved for the current turn (see `tools`)."""

    @property
    def last_attempt(self) -> bool:
        """Whether this is the last attempt at running this tool (or output) before an error is raised."""
        return self.retry >= self.max_retries

    @property
    def available_capability_ids(self) -> set[str]:
        """IDs of the capabilities whose contributions are live: non-deferred ones plus loaded ones."""
        always = {
            cap_id for cap_id, cap in self.capabilities.items() if getattr(cap, 'defer_loading', False) is not True
        }
        return always | self.loaded_capability_ids

    def _tool_defs(self) -> dict[str, ToolDefinition] | None:
        if self.tool_definitions is not None:
            return self.tool_definitions
        manager: Any = self.tool_manager
        tools: dict[str, Any] | None = getattr(manager, 'tools', None) if manager is not None else None
        return None if tools is None else {name: tool.tool_def for name, tool in tools.items()}

    @property
    def tools(self) -> dict[str, ToolDefinition]:
        """All tool definitions present this turn, keyed by name (including still-deferred ones)."""
        return dict(self._tool_defs() or {})

    @property
    def available_tool_names(self) -> set[str]:
        """Names of the function tools the model can call on the current turn.

        The tools that are not deferred, those tool search revealed, and those of loaded deferred capabilities.
        Before the turn's tools are known (e.g. in `before_run`), the names tool search revealed so far.
        """
        defs = self._tool_defs()
        if defs is None:
            return set(self.discovered_tool_names)
        function_defs = {name: tool_def for name, tool_def in defs.items() if tool_def.kind != 'output'}
        always = {
            name
            for name, tool_def in function_defs.items()
            if tool_def.with_native != 'tool_search' and not tool_def.defer_loading
        }
        revealed = self.discovered_tool_names & set(function_defs)
        loaded = {
            name
            for name, tool_def in function_defs.items()
            if tool_def.capability_id is not None and tool_def.capability_id in self.loaded_capability_ids
        }
        return always | revealed | loaded

    def enqueue(self, *content: EnqueueContent, priority: PendingMessagePriority = 'asap') -> None:
        """Enqueue content to be injected into the conversation.

        Adjacent user content (strings, multi-modal items) is gathered into one `UserPromptPart`;
        request parts are coalesced with adjacent items into one `ModelRequest`; complete messages are
        kept as they are. The assembled sequence must end in a request. Calling with no content is a
        no-op. The queue is only drained between graph nodes, so this is safe from sync tools running
        in a worker thread.

        Args:
            *content: The items to inject.
            priority: `'asap'` delivers at the next model request (or redirects a run that would
                otherwise end); `'when_idle'` delivers only when the run would otherwise end.

        Raises:
            UserError: if this context is not backed by a running agent's queue.
        """
        if self.pending_messages is None:
            raise UserError(
                '`enqueue` is only available during an agent run (from a tool, a hook, an instructions function '
                'or `AgentRun.enqueue`): this context, e.g. the one `Agent.system_prompt_parts` builds, has no '
                'queue to deliver to.'
            )
        pending = PendingMessage.from_content(*content, priority=priority)
        if pending is not None:
            self.pending_messages.append(pending)

    def replace_with(self, **changes: Any) -> RunContext[RunContextAgentDepsT]:
        """A copy of this context with some fields changed (the queue and registries stay shared)."""
        return dataclasses.replace(self, **changes)

    def __repr__(self) -> str:
        shown = ('run_id', 'run_step', 'tool_name', 'tool_call_id', 'retry')
        inner = ', '.join(f'{name}={getattr(self, name)!r}' for name in shown if getattr(self, name))
        return f'RunContext({inner})'
