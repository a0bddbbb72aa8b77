"""Activity inputs: plain dataclasses, versioned wire contracts (new fields only with defaults)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent._deferred import DeferredToolRequests
from agent._parts import ModelMessage, ModelResponse, ToolCallPart
from agent._run_context import RunContext
from agent.exceptions import UserError
from agent.models import Model, ModelRequestParameters
from agent.usage import RunUsage

from ._delegation import DelegatedRun, DelegationOutcome
from ._tool_result_size import DEFAULT_MAX_TOOL_RESULT_BYTES
from ._tool_results import ResultKind

__all__ = (
    'ActivityRunContext',
    'CallToolInput',
    'CallToolOutput',
    'DeferredNotice',
    'ModelRequestInput',
    'ModelRequestOutput',
    'NotCrossed',
    'ProcessedHistory',
)

CROSSING_FIELDS = (
    'deps, run_id, conversation_id, run_step, usage, metadata, tool_name, tool_call_id, retry, max_retries, '
    'tool_call_approved, tool_call_metadata, model_settings'
)


class NotCrossed(list[Any]):
    """Stands for a `RunContext` field that does not cross into activities; using it raises `UserError`.

    (A list subclass so it type-checks where lists are expected; it is never a real value.)
    """

    def __init__(self, name: str) -> None:
        super().__init__()
        self._name = name

    def _fail(self, *_: Any, **__: Any) -> Any:
        raise UserError(
            f'RunContext.{self._name} is not available inside an activity of a durable run. '
            f'The fields that cross are: {CROSSING_FIELDS}. Pass what the tool needs in deps or the tool arguments.'
        )

    __iter__ = __len__ = __getitem__ = __contains__ = __bool__ = __eq__ = _fail
    __str__ = _fail
    append = extend = index = count = _fail

    def __getattr__(self, name: str) -> Any:
        return self._fail()

    def __repr__(self) -> str:
        return f'<RunContext.{self._name}: not available in a durable activity>'

    __hash__ = None


class _NoQueue(list[Any]):
    """The run's message queue as seen from an activity: `ctx.enqueue` cannot reach the workflow."""

    def append(self, _item: Any) -> None:
        raise UserError(
            'RunContext.enqueue() is not available inside an activity of a durable run: the workflow owns the '
            'message queue. Enqueue from a workflow-side hook instead, or return the content as the tool result.'
        )


@dataclass
class ActivityRunContext:
    """The `RunContext` fields that cross into activities (an explicit allow-list)."""

    run_id: str
    """The run's id."""
    conversation_id: str
    """The conversation's id."""
    run_step: int
    """The current step."""
    usage: RunUsage = field(default_factory=RunUsage)
    """Usage so far (a snapshot)."""
    deps: Any = None
    """The run's deps, as data."""
    metadata: dict[str, Any] | None = None
    """Run metadata."""
    tool_name: str | None = None
    """The tool being called, for tool activities."""
    tool_call_id: str | None = None
    """The call's id: an idempotency key for the tool."""
    retry: int = 0
    """Retries of this tool so far."""
    max_retries: int = 0
    """Retries allowed for this tool."""
    tool_call_approved: bool = False
    """Whether the call was approved by a human."""
    tool_call_metadata: Any = None
    """Metadata supplied with the approval."""
    model_settings: dict[str, Any] | None = None
    """The merged model settings of the step, for model requests."""
    model: str | None = None
    """The model the run named instead of the agent's own (`None`: the agent's), which the activity builds as
    `ctx.model` (for a tool's own requests, an MCP server's sampling)."""
    loaded_capability_ids: list[str] = field(default_factory=list[str])
    """The deferred capabilities the model has loaded, whose activity-side hooks may fire."""

    @classmethod
    def from_run_context(cls, ctx: RunContext[Any], *, model: str | None = None) -> ActivityRunContext:
        """Copy the allowed fields out of a workflow-side `RunContext`, with the model the run named, if any.

        (The workflow's `ctx.model` only stands in for the run's model, so the run's choice is passed by name.)
        """
        return cls(
            run_id=ctx.run_id or '',
            conversation_id=ctx.conversation_id or '',
            run_step=ctx.run_step,
            usage=ctx.usage,
            deps=ctx.deps,
            metadata=ctx.metadata,
            tool_name=ctx.tool_name,
            tool_call_id=ctx.tool_call_id,
            retry=ctx.retry,
            max_retries=ctx.max_retries,
            tool_call_approved=ctx.tool_call_approved,
            tool_call_metadata=ctx.tool_call_metadata,
            model_settings=dict(ctx.model_settings) if ctx.model_settings is not None else None,
            model=model,
            loaded_capability_ids=sorted(ctx.loaded_capability_ids),
        )

    def to_run_context(self, *, agent: Any, model: Model, deps: Any) -> RunContext[Any]:
        """Rebuild a `RunContext` on the activity side; reading a field that did not cross raises `UserError`."""
        return RunContext[Any](
            deps=deps,
            model=model,
            usage=self.usage,
            agent=agent,
            prompt=NotCrossed('prompt'),
            messages=NotCrossed('messages'),
            pending_messages=_NoQueue(),
            tool_manager=NotCrossed('tool_manager'),
            run_id=self.run_id,
            conversation_id=self.conversation_id,
            run_step=self.run_step,
            metadata=self.metadata,
            tool_name=self.tool_name,
            tool_call_id=self.tool_call_id,
            retry=self.retry,
            max_retries=self.max_retries,
            tool_call_approved=self.tool_call_approved,
            tool_call_metadata=self.tool_call_metadata,
            model_settings=self.model_settings,  # pyright: ignore[reportArgumentType]
            loaded_capability_ids=set(self.loaded_capability_ids),
        )


@dataclass
class ModelRequestInput:
    """Input of `agent.<agent>.model_request` (see `activities._message_store` for the references)."""

    ctx: ActivityRunContext
    """The run context fields that cross."""
    messages: list[ModelMessage]
    """Messages of the conversation the worker may not have seen yet (all of them when nothing is referenced)."""
    parameters: ModelRequestParameters | None
    """Tools and output mode; `None` when named by `parameters_key` and sent before in this run."""
    model_settings: dict[str, Any] | None = None
    """The merged settings of the step."""
    model: str | None = None
    """A model named by the run (instead of the agent's own)."""
    history: list[str] = field(default_factory=list[str])
    """The whole conversation as message hashes, when it does not simply extend `prefix`."""
    prefix: str | None = None
    """The conversation of the previous request (see `prefix_key`), which `added` extends."""
    message_keys: list[str] = field(default_factory=list[str])
    """The hashes of `messages`, in the same order."""
    added: list[str] | None = None
    """The hashes of every message this request adds to `prefix`, sent before or not (`None`: `message_keys`)."""
    contents: dict[str, str] = field(default_factory=dict[str, str])
    """Tool results left out of `messages`: `"<message index>.<part index>"` to the result's content key."""
    parameters_key: str | None = None
    """The hash naming `parameters`."""


@dataclass
class CallToolInput:
    """Input of `agent.<agent>.call_tool`."""

    ctx: ActivityRunContext
    """The run context fields that cross."""
    call: ToolCallPart
    """The call being executed."""
    args: dict[str, Any]
    """The validated arguments."""
    max_result_bytes: int = DEFAULT_MAX_TOOL_RESULT_BYTES
    """A result whose JSON is larger is refused with a retry prompt (see `activities._tool_result_size`)."""
    delegated: list[DelegationOutcome] = field(default_factory=list['DelegationOutcome'])
    """The outcomes of the runs the tool delegated on its earlier rounds, in call order (see
    `activities._delegation`)."""


@dataclass
class DeferredNotice:
    """Input of the notifier activity: which calls are waiting, in which run."""

    agent: str
    """The registered agent's name."""
    requests: DeferredToolRequests
    """The calls still waiting for results."""
    workflow_id: str
    """The workflow to signal or update with the results."""
    run_id: str
    """The agent run's id."""
    reminder: int = 0
    """0 for the first notice, then 1, 2, ... for reminders."""


@dataclass
class CallToolOutput:
    """Output of `agent.<agent>.call_tool`: the result, and usage counted while the tool ran."""

    result: Any
    """The tool's result."""
    usage: RunUsage = field(default_factory=RunUsage)
    """Usage added during the call (e.g. by a sub-agent run with `usage=ctx.usage`), merged into the run's."""
    content_key: str | None = None
    """The key this worker keeps the result's JSON under, so the next model request can name it."""
    result_kind: ResultKind = 'value'
    """How to rebuild `result` from JSON (see `activities._tool_results`)."""
    delegation: DelegatedRun | None = None
    """Set when the tool started a run of a served agent: the workflow runs it as a child run and runs the tool
    again with its outcome (`result` is then unset)."""


@dataclass
class ModelRequestOutput:
    """Output of `agent.<agent>.model_request`."""

    response: ModelResponse | None
    """The model's response (`None` when `messages_missing`)."""
    messages_missing: bool = False
    """The worker lacked referenced messages; the workflow must send the request again in full."""
    response_key: str | None = None
    """The hash this worker keeps the response under, so the next request can name it."""
    processed_history: ProcessedHistory | None = None
    """What the activity-side `before_model_request` hooks made of the history (`None`: they left it as sent)."""
    agent_version: str | None = None
    """The version of the agent on the worker that answered (`workflows.agent_fingerprint`): the run's first response
    records the version it started on (see `workflows._agent_version`). `None` from workers before it existed."""


@dataclass
class ProcessedHistory:
    """The history the activity-side `before_model_request` hooks (history processors) left, which the run adopts.

    Named relative to the request's messages so that a processor that only drops or reorders sends nothing back
    but indexes; only messages it made or changed travel in full.
    """

    order: list[int]
    """Per message of the processed history: the index of the request's message it is, or -1 for the next of
    `changed`."""
    changed: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """The messages the hooks made or changed, in order."""
