"""Deferred tool calls: requests that wait for a human approval or an external result, and their results."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import Annotated, Any, Literal, TypeAlias

import pydantic
import pydantic_core

from ._content import ToolReturn
from ._parts import RetryPromptPart, ToolCallPart
from .exceptions import ModelRetry, ToolFailed

__all__ = (
    'DeferredToolApprovalResult',
    'DeferredToolCallResult',
    'DeferredToolKind',
    'DeferredToolRequests',
    'DeferredToolResult',
    'DeferredToolResults',
    'ToolApproved',
    'ToolDenied',
)


@dataclass(kw_only=True)
class ToolApproved:
    """Indicates that a tool call has been approved and that the tool function should be executed."""

    override_args: dict[str, Any] | None = None
    """Optional tool call arguments to use instead of the original arguments."""
    kind: Literal['tool-approved'] = 'tool-approved'


@dataclass
class ToolDenied:
    """Indicates that a tool call has been denied and that a denial message should be returned to the model."""

    message: str = 'The tool call was denied.'
    """The message to return to the model."""
    _: KW_ONLY
    kind: Literal['tool-denied'] = 'tool-denied'


def _approval_discriminator(value: Any) -> str | None:
    if isinstance(value, ToolApproved | ToolDenied):
        return value.kind
    if isinstance(value, dict):
        kind = value.get('kind')  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if kind is not None:
            return str(kind)  # pyright: ignore[reportUnknownArgumentType]
        # A bare object from a client: a message means a denial, anything else an approval.
        return 'tool-denied' if 'message' in value else 'tool-approved'
    return None


DeferredToolApprovalResult: TypeAlias = Annotated[
    Annotated[ToolApproved, pydantic.Tag('tool-approved')] | Annotated[ToolDenied, pydantic.Tag('tool-denied')],
    pydantic.Discriminator(_approval_discriminator),
]
"""Result for a tool call that required human-in-the-loop approval."""


def _call_result_discriminator(value: Any) -> str:
    if isinstance(value, ToolReturn):
        return 'tool-return'
    if isinstance(value, ModelRetry):
        return 'model-retry'
    if isinstance(value, ToolFailed):
        return 'tool-failed'
    if isinstance(value, RetryPromptPart):
        return 'retry-prompt'
    if isinstance(value, dict):
        tag = value.get('kind') or value.get('part_kind')  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if tag in ('tool-return', 'model-retry', 'tool-failed', 'retry-prompt'):
            return str(tag)
    return 'value'


DeferredToolCallResult: TypeAlias = Annotated[
    Annotated[ToolReturn, pydantic.Tag('tool-return')]
    | Annotated[ModelRetry, pydantic.Tag('model-retry')]
    | Annotated[ToolFailed, pydantic.Tag('tool-failed')]
    | Annotated[RetryPromptPart, pydantic.Tag('retry-prompt')]
    | Annotated[Any, pydantic.Tag('value')],
    pydantic.Discriminator(_call_result_discriminator),
]
"""Result for a tool call that required external execution: a value, `ToolReturn`, `ModelRetry`, `ToolFailed` or
`RetryPromptPart`."""

DeferredToolResult: TypeAlias = ToolApproved | ToolDenied | ToolReturn | ModelRetry | ToolFailed | RetryPromptPart
"""Result for a tool call that required approval or external execution, in normalized form."""


@dataclass(kw_only=True)
class DeferredToolResults:
    """Results for deferred tool calls from a previous run (or from a human, while a durable run waits).

    The tool call ids must match those in the `DeferredToolRequests` the run produced.
    """

    calls: dict[str, DeferredToolCallResult] = field(default_factory=dict[str, Any])
    """Map of tool call IDs to results for tool calls that required external execution."""
    approvals: dict[str, bool | DeferredToolApprovalResult] = field(default_factory=dict[str, Any])
    """Map of tool call IDs to results for tool calls that required human-in-the-loop approval."""
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    """Metadata per tool call ID, available to the tool as `ctx.tool_call_metadata`."""
    # Left out of the JSON while empty, so results that name no one encode exactly as before the field existed
    # (the workflow's signal and update refuse fields they do not know).
    answered_by: Annotated[dict[str, str], pydantic.Field(exclude_if=lambda answered_by: not answered_by)] = field(
        default_factory=dict[str, str]
    )
    """Who answered each call, keyed by tool call ID: a person's ID, a bot's or a policy's name.

    Carried with the results as given (nothing checks it, so authorize whoever answers before recording who they
    are); not recorded in the message history. JSON that lacks it reads as no one.
    """

    def update(self, other: DeferredToolResults) -> None:
        """Update this `DeferredToolResults` with entries from another, in place."""
        self.calls.update(other.calls)
        self.approvals.update(other.approvals)
        for call_id, meta in other.metadata.items():
            self.metadata[call_id] = {**self.metadata.get(call_id, {}), **meta}
        self.answered_by.update(other.answered_by)

    def to_tool_call_results(self) -> dict[str, DeferredToolResult]:
        """Normalize: `True`/`False` approvals become `ToolApproved`/`ToolDenied`; plain values become `ToolReturn`."""
        results: dict[str, DeferredToolResult] = {}
        for call_id, approval in self.approvals.items():
            if approval is True:
                results[call_id] = ToolApproved()
            elif approval is False:
                results[call_id] = ToolDenied()
            else:
                results[call_id] = approval
        for call_id, value in self.calls.items():
            if isinstance(value, ToolReturn | ModelRetry | ToolFailed | RetryPromptPart):
                results[call_id] = value
            else:
                results[call_id] = ToolReturn(value)
        return results

    @property
    def tool_call_ids(self) -> set[str]:
        """Every tool call id this object resolves."""
        return set(self.calls) | set(self.approvals)


DeferredToolKind: TypeAlias = Literal['approval', 'question', 'external']
"""What a pending deferred call waits for: an approval (answered in `DeferredToolResults.approvals`), or the
result of an external call (in `DeferredToolResults.calls`). Pydantic AI 2.x also has questions, calls deferred
with `CallDeferred(kind='question')`; no call is one here."""


class _SerializerOnFirstUse:
    """A class's own pydantic serializer, built the first time it is asked for (a schema costs tens of ms)."""

    def __init__(self) -> None:
        self._serializer: pydantic_core.SchemaSerializer | None = None

    def __get__(self, instance: object, owner: type) -> pydantic_core.SchemaSerializer:
        if self._serializer is None:
            self._serializer = pydantic.TypeAdapter(owner).serializer
        return self._serializer


# Written through its own schema wherever pydantic has none for it (a workflow's signal or update argument, a value
# in an `Any` field), so that an empty `answered_by` is left out there too: a client of this release then sends the
# same JSON as before, which a workflow of an earlier release, refusing fields it does not know, still takes.
setattr(DeferredToolResults, '__pydantic_serializer__', _SerializerOnFirstUse())  # noqa: B010


@dataclass(kw_only=True)
class DeferredToolRequests:
    """Tool calls that require approval or external execution.

    Usable as an agent's `output_type`: the run then ends with this object as its output when the model
    calls deferred tools. Answer it with `DeferredToolResults` using the same tool call ids.
    """

    calls: list[ToolCallPart] = field(default_factory=list[ToolCallPart])
    """Tool calls that require external execution."""
    approvals: list[ToolCallPart] = field(default_factory=list[ToolCallPart])
    """Tool calls that require human-in-the-loop approval."""
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    """Metadata for deferred tool calls, keyed by `tool_call_id`."""

    def build_results(
        self,
        approvals: dict[str, bool | DeferredToolApprovalResult] | None = None,
        calls: dict[str, DeferredToolCallResult | Any] | None = None,
        metadata: dict[str, dict[str, Any]] | None = None,
        approve_all: bool = False,
        *,
        answered_by: dict[str, str] | None = None,
    ) -> DeferredToolResults:
        """Create a `DeferredToolResults` for these requests.

        Args:
            approvals: Results for calls that required approval; keys must be ids in `self.approvals`.
            calls: Results for calls that required external execution; keys must be ids in `self.calls`.
            metadata: Per-call metadata, keyed by `tool_call_id`.
            approve_all: Approve (with a default `ToolApproved()`) every approval request not in `approvals`.
            answered_by: Who answered each call, keyed by `tool_call_id`.

        Raises:
            ValueError: If a key in `approvals`/`calls` doesn't match a pending request of that kind, or a key in
                `metadata`/`answered_by` matches no pending request.
        """
        approvals = dict(approvals or {})
        calls = dict(calls or {})
        approval_ids = [call.tool_call_id for call in self.approvals]
        call_ids = [call.tool_call_id for call in self.calls]
        _check_known('approvals', approvals, approval_ids, call_ids)
        _check_known('calls', calls, call_ids, approval_ids)
        for label, keyed in (('metadata', metadata), ('answered_by', answered_by)):
            unknown = set(keyed or {}) - set(approval_ids) - set(call_ids)
            if unknown:
                raise ValueError(f'{label} has tool call ids with no pending request: {sorted(unknown)}')
        if approve_all:
            for call_id in approval_ids:
                approvals.setdefault(call_id, ToolApproved())
        return DeferredToolResults(
            approvals=approvals, calls=calls, metadata=dict(metadata or {}), answered_by=dict(answered_by or {})
        )

    def remaining(self, results: DeferredToolResults) -> DeferredToolRequests | None:
        """Return the requests still unresolved after applying `results`, or `None` if all are resolved."""
        resolved = results.tool_call_ids
        approvals = [call for call in self.approvals if call.tool_call_id not in resolved]
        calls = [call for call in self.calls if call.tool_call_id not in resolved]
        if not approvals and not calls:
            return None
        pending = {call.tool_call_id for call in approvals + calls}
        return DeferredToolRequests(
            calls=calls,
            approvals=approvals,
            metadata={k: v for k, v in self.metadata.items() if k in pending},
        )

    def kind(self, tool_call_id: str) -> DeferredToolKind:
        """What the pending call with this id waits for: `'approval'` (in `approvals`) or `'external'` (in `calls`).

        Raises:
            ValueError: No pending call has this id.
        """
        if any(call.tool_call_id == tool_call_id for call in self.approvals):
            return 'approval'
        if any(call.tool_call_id == tool_call_id for call in self.calls):
            return 'external'
        raise ValueError(f'No pending deferred tool call has id {tool_call_id!r}')

    @property
    def tool_call_ids(self) -> list[str]:
        """The ids of all pending calls, approvals first."""
        return [call.tool_call_id for call in self.approvals] + [call.tool_call_id for call in self.calls]


def _check_known(label: str, given: dict[str, Any], expected: list[str], other_kind: list[str]) -> None:
    for call_id in given:
        if call_id in expected:
            continue
        if call_id in other_kind:
            other = 'calls' if label == 'approvals' else 'approvals'
            raise ValueError(
                f'`{label}` contains tool call ID {call_id!r}, which is not in this `DeferredToolRequests.{label}`: '
                f'it is a pending request in `{other}`'
            )
        raise ValueError(
            f'`{label}` contains tool call ID {call_id!r}, which is not in this `DeferredToolRequests.{label}` '
            f'and matches no pending request; pending ids: {expected}'
        )
