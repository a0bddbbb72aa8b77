"""Who answers from the chat page, and who decided a conversation's approvals, as the page shows them.

The page's answers name the signed-in user twice (`page_caller`): as the conversation's owner, which the run checks as
for every update, and as who answers (`Caller.identity`), which the agent's approval rules check and the decision
records name. What was decided comes back from the run's `status` query: its latest decision records (carried over
when a conversation continues as new) and the approvals still open under a rule, with who approved them so far.
"""

from __future__ import annotations

from typing import Any

from temporalio.client import WorkflowHandle

from agent.ui.web import ConversationDecisions, OpenApproval, ToolCallDecision
from workflows._agent_workflow import AgentWorkflow
from workflows._types import Caller, RunStatus

from ._worker_gate import WorkerGate

__all__ = ('page_caller', 'read_decisions')


def page_caller(owner: str) -> Caller:
    """The caller of the page's answers: the signed-in user, as owner and as approver."""
    return Caller(owner=owner, identity=owner)


async def read_decisions(handle: WorkflowHandle[Any, Any], gate: WorkerGate, unread: str) -> ConversationDecisions:
    """The decisions and open approvals of the conversation workflow `handle`, from its `status` query.

    Raises:
        BackendUnavailable: No worker answered in time (`unread` says what was not done).
    """
    await gate.check(unread)
    status: RunStatus = await gate.query(handle.query(AgentWorkflow.status), unread)
    return ConversationDecisions(
        decisions=tuple(
            ToolCallDecision(
                tool_call_id=record.tool_call_id,
                tool_name=record.tool_name,
                decision=record.decision,
                by=tuple(record.by),
                reason=record.reason,
            )
            for record in status.decisions
        ),
        open_approvals=tuple(
            OpenApproval(
                tool_call_id=approval.tool_call_id,
                tool_name=approval.tool_name,
                required=approval.required,
                approved_by=tuple(approval.approved_by),
            )
            for approval in status.open_approvals
        ),
    )
