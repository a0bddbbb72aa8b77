"""The chat's inbox: the owner's conversations whose turn waits for approvals."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from temporalio.client import Client
from temporalio.service import RPCError

from agent._deferred import DeferredToolRequests
from agent.ui.web import PendingApproval, WaitingConversation
from workflows._agent_workflow import AgentWorkflow

from ._worker_gate import WorkerGate
from ._workflow_ids import CHAT_WORKFLOW_PREFIX, conversation_id_of

__all__ = ('waiting_conversations',)


async def waiting_conversations(
    client: Client, gate: WorkerGate, task_queue: str, owner: str
) -> list[WaitingConversation]:
    """The conversations of `owner` on `task_queue` whose turn waits for approvals, newest first.

    Listed from the runs' search attributes (`AgentOwner`, `PendingApprovals`), which visibility updates a moment
    after a run starts waiting; each listed run is asked what waits (through `gate`), as it may have moved on since.

    Raises:
        BackendUnavailable: No worker answered in time.
    """
    query = (
        f'TaskQueue = {json.dumps(task_queue)} AND AgentOwner = {json.dumps(owner)} '
        "AND PendingApprovals > 0 AND ExecutionStatus = 'Running'"
    )
    waiting: list[WaitingConversation] = []
    unread = 'the inbox could not be read'
    checked = False
    async for execution in client.list_workflows(query):
        if not execution.id.startswith(CHAT_WORKFLOW_PREFIX):
            continue
        memo = await execution.memo()
        if memo.get('owner') != owner:
            continue
        handle = client.get_workflow_handle(execution.id)
        if not checked:
            await gate.check(unread)
            checked = True
        try:
            # Only what the owner may answer now under the agent's approval rules (not what they approved already).
            pending = await gate.query(handle.query(AgentWorkflow.pending_deferred_tools, owner), unread)
        except RPCError:
            continue  # ended (or unreachable) since visibility listed it
        if pending is None or not pending.approvals:
            continue
        waiting.append(
            WaitingConversation(
                conversation_id=conversation_id_of(execution.id),
                agent=str(memo.get('agent', '')),
                title=str(memo.get('title', '')),
                approvals=_approvals(pending),
                updated_at=execution.start_time or datetime.now(UTC),
            )
        )
    waiting.sort(key=lambda w: w.updated_at, reverse=True)
    return waiting


def _approvals(pending: DeferredToolRequests) -> tuple[PendingApproval, ...]:
    return tuple(
        PendingApproval(tool_call_id=call.tool_call_id, tool_name=call.tool_name, args=call.args_as_dict())
        for call in pending.approvals
    )
