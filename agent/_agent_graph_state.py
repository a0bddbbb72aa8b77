"""The run's state and dependencies: `GraphAgentState` (plain data a suspended run resumes from),
`RunCheckpoint`, and `GraphAgentDeps` (everything else a node needs, rebuilt whenever a run is (re)started)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic

from typing_extensions import TypeVar

from ._content import UserContent
from ._deferred import DeferredToolResults
from ._events import AgentStreamEvent
from ._instructions import InstructionSource, SystemPromptRunner
from ._parts import ModelMessage, ModelRequest
from ._ports import RunPorts
from ._run_context import PendingMessage, RunContext
from ._tool_manager import ToolManager
from ._unusable_response import check_incomplete_tool_call
from .exceptions import UnexpectedModelBehavior
from .output import OutputSchema, OutputValidator
from .settings import ModelSettings
from .usage import RunUsage, UsageLimits

if TYPE_CHECKING:
    from .agent import Agent
    from .capabilities import AbstractCapability
    from .models import Model
    from .toolsets import AbstractToolset

__all__ = ('EventSink', 'GraphAgentDeps', 'GraphAgentState', 'RunCheckpoint', 'check_output_retries')

DepsT = TypeVar('DepsT', default=None)
OutputT = TypeVar('OutputT', default=str)

EventSink = Callable[[AgentStreamEvent], Awaitable[None]]


@dataclass
class GraphAgentState:
    """Everything a run has accumulated: plain data that can be serialized and resumed."""

    message_history: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """The whole conversation, including messages from earlier runs."""
    usage: RunUsage = field(default_factory=RunUsage)
    """Usage so far."""
    retries: int = 0
    """Output retries used so far."""
    tool_retries: dict[str, int] = field(default_factory=dict[str, int])
    """Failures so far per tool (reset when the tool succeeds)."""
    run_step: int = 0
    """Model requests made in this run."""
    run_id: str = ''
    """The run's id."""
    conversation_id: str = ''
    """The conversation's id."""


@dataclass
class RunCheckpoint:
    """Where a run stood when it was suspended between two steps, to continue it elsewhere as the same run.

    The messages travel separately: the run continues from a message history that ends with the request it was
    about to send (see `RunPorts.resumed_run`).
    """

    run_id: str
    """The run's id (kept, so the continued run is the same run)."""
    run_step: int = 0
    """Model requests made so far."""
    usage: RunUsage = field(default_factory=RunUsage)
    """Usage so far (limits apply to the whole run)."""
    retries: int = 0
    """Output retries used so far."""
    tool_retries: dict[str, int] = field(default_factory=dict[str, int])
    """Failures so far per tool."""
    new_message_index: int = 0
    """Where the run's own messages start in the history."""


@dataclass(kw_only=True)
class GraphAgentDeps(Generic[DepsT, OutputT]):
    """What the nodes need besides state: the agent's configuration resolved for this run."""

    agent: Agent[DepsT, OutputT]
    user_deps: DepsT
    prompt: str | Sequence[UserContent] | None
    new_message_index: int
    model: Model
    run_model_settings: ModelSettings | None
    usage_limits: UsageLimits
    max_output_retries: int
    end_strategy: str
    output_schema: OutputSchema
    output_validators: list[OutputValidator]
    capability: AbstractCapability[DepsT]
    toolset: AbstractToolset[DepsT]
    instructions: list[InstructionSource]
    system_prompts: list[str | SystemPromptRunner]
    settings_layers: list[Any]
    native_tools: list[Any]
    ports: RunPorts
    metadata: dict[str, Any] | None
    pending_messages: list[PendingMessage]
    deferred_tool_results: DeferredToolResults | None = None
    prepare_output_tools: Callable[..., Any] | None = None
    validation_context: Any = None
    event_sink: EventSink | None = None
    recompute_metadata: Callable[[RunContext[Any]], Awaitable[dict[str, Any] | None]] | None = None
    """Set when the metadata comes from a function: it is computed again when the run ends, from the final state."""
    tool_manager: ToolManager[DepsT] | None = None
    last_max_tokens: int | None = None
    capabilities: dict[str, AbstractCapability[DepsT]] = field(default_factory=dict[str, 'AbstractCapability[DepsT]'])
    """The run's capabilities by id (`RunContext.capabilities`)."""
    loaded_capability_ids: set[str] = field(default_factory=set[str])
    """The deferred capabilities loaded so far (shared by every step's `RunContext`, so a load sticks)."""
    resumed_request: ModelRequest | None = None
    """The request the run resumed from the end of the history it was given (it stays part of that history)."""

    def run_context(self, state: GraphAgentState, **changes: Any) -> RunContext[DepsT]:
        """A `RunContext` over the live state (messages, usage, retries and queue are shared, not copied)."""
        ctx = RunContext[DepsT](
            deps=self.user_deps,
            model=self.model,
            usage=state.usage,
            agent=self.agent,
            prompt=self.prompt,
            messages=state.message_history,
            retries=state.tool_retries,
            run_step=state.run_step,
            run_id=state.run_id,
            conversation_id=state.conversation_id,
            metadata=self.metadata,
            pending_messages=self.pending_messages,
            max_retries=self.max_output_retries,
            retry=state.retries,
            capabilities=self.capabilities,
            loaded_capability_ids=self.loaded_capability_ids,
        )
        # A callable validation context is resolved per context, from the run as it stands.
        source = self.validation_context
        ctx.validation_context = source(ctx) if callable(source) else source
        return replace(ctx, **changes) if changes else ctx

    async def emit(self, event: AgentStreamEvent) -> None:
        """Send an event to the run's event stream, if anyone is listening."""
        if self.event_sink is not None:
            await self.event_sink(event)


def check_output_retries(
    state: GraphAgentState, deps: GraphAgentDeps[Any, Any], error: str, *, max_retries: int | None = None
) -> None:
    """Count an output retry, raising once the budget (the agent's, or an output tool's own) is spent."""
    limit = deps.max_output_retries if max_retries is None else max_retries
    state.retries += 1
    if state.retries > limit:
        # Output-tool arguments cut off by the token limit never validate: say so rather than "exceeded retries".
        check_incomplete_tool_call(state.message_history, deps.last_max_tokens)
        raise UnexpectedModelBehavior(f'Exceeded maximum output retries ({limit})', body=error)
