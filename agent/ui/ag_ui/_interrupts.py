"""Tool approvals as AG-UI interrupts, and the client's resume entries as `DeferredToolResults`.

A run that stops for approval (a tool with `requires_approval`) ends with `RUN_FINISHED` whose outcome is an
interrupt: one `Interrupt` per call, id `approval:<tool call id>`, carrying the JSON schema of the answer it
expects. The client answers on the next run with `RunAgentInput.resume`, one entry per interrupt:

    {"interruptId": "approval:call_1", "status": "resolved", "payload": {"approved": true}}
    {"interruptId": "approval:call_2", "status": "resolved", "payload": {"approved": false, "reason": "Not now"}}

Only a payload with `approved` exactly `true` runs the tool (with `editedArgs`, when given, in place of the
model's arguments); anything else, a cancelled entry included, denies it and the model is told why. A tool that
needs approval must never run on an ambiguous answer.
"""

from __future__ import annotations

from typing import Any, Final

from ag_ui.core import Interrupt, ResumeEntry
from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from agent.messages import ToolCallPart
from agent.tools import DeferredToolApprovalResult, DeferredToolRequests, DeferredToolResults, ToolApproved, ToolDenied

__all__ = (
    'APPROVAL_INTERRUPT_PREFIX',
    'ApprovalAnswer',
    'approval_interrupts',
    'interrupt_tool_call_id',
    'resume_to_deferred_tool_results',
)

APPROVAL_INTERRUPT_PREFIX: Final = 'approval:'
"""The prefix of an approval interrupt's id; the rest is the tool call id. Clients may store the id: keep it stable."""

CANCELLED_MESSAGE: Final = 'The user cancelled the approval of this tool call.'
"""What the model is told about a call whose interrupt the client cancelled."""


class ApprovalAnswer(BaseModel):
    """The answer to an approval interrupt, as the client puts it in `ResumeEntry.payload`."""

    model_config = ConfigDict(populate_by_name=True, title='ToolApproval')

    approved: StrictBool
    """Whether the tool call may run; only `true` (not `1`, not `"true"`) approves it."""
    reason: str | None = None
    """Why it was denied, told to the model."""
    edited_args: dict[str, Any] | None = Field(default=None, alias='editedArgs')
    """Arguments to run the tool with instead of the model's."""


_ANSWER_SCHEMA: dict[str, Any] = ApprovalAnswer.model_json_schema()


def approval_interrupts(requests: DeferredToolRequests) -> list[Interrupt]:
    """One interrupt per tool call waiting for approval."""
    return [_interrupt(call, requests.metadata.get(call.tool_call_id)) for call in requests.approvals]


def _interrupt(call: ToolCallPart, metadata: dict[str, Any] | None) -> Interrupt:
    return Interrupt(
        id=f'{APPROVAL_INTERRUPT_PREFIX}{call.tool_call_id}',
        reason='tool_approval',
        message=f'Allow the call {call.tool_name}({call.args_as_json_str()})?',
        tool_call_id=call.tool_call_id,
        response_schema=_ANSWER_SCHEMA,
        metadata=metadata,
    )


def interrupt_tool_call_id(interrupt_id: str) -> str | None:
    """The tool call id of an approval interrupt's id, or `None` when it is not one."""
    if interrupt_id.startswith(APPROVAL_INTERRUPT_PREFIX):
        return interrupt_id[len(APPROVAL_INTERRUPT_PREFIX) :] or None
    return None


def resume_to_deferred_tool_results(resume: list[ResumeEntry]) -> DeferredToolResults | None:
    """The approvals answered by the client's resume entries; `None` when there are none.

    Entries whose id is not an approval interrupt's are left out (the adapter rejects such a request first).
    """
    approvals: dict[str, bool | DeferredToolApprovalResult] = {}
    for entry in resume:
        tool_call_id = interrupt_tool_call_id(entry.interrupt_id)
        if tool_call_id is not None:
            approvals[tool_call_id] = _approval(entry)
    return DeferredToolResults(approvals=approvals) if approvals else None


def _approval(entry: ResumeEntry) -> ToolApproved | ToolDenied:
    if entry.status == 'cancelled':
        return ToolDenied(CANCELLED_MESSAGE)
    try:
        answer = ApprovalAnswer.model_validate(entry.payload)
    except ValidationError:
        return ToolDenied()
    if answer.approved:
        return ToolApproved(override_args=answer.edited_args)
    return ToolDenied(answer.reason) if answer.reason else ToolDenied()
