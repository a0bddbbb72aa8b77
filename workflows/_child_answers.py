"""Answers a run takes for its children's calls (paths such as `p-1/r-2`, see `workflows._children`): checked at the
parent's door as far as the parent can tell, then forwarded to each child by the `submit_deferred_tool_results`
signal, whose entries the child applies as if sent to it directly (what it cannot take, it lists as rejected)."""

from __future__ import annotations

from temporalio import workflow

from agent._deferred import DeferredToolResults

from ._children import PATH_SEPARATOR, ChildPending, Children
from ._registry import get_durable_agent

__all__ = ('CHILD_SIGNAL', 'child_refusals', 'forward_to_children', 'report_to_parent')

CHILD_SIGNAL = 'child_deferred_tools'
"""The signal by which a child run tells its parent what it waits for (one `ChildPending`)."""


def child_refusals(children: Children, theirs: dict[str, DeferredToolResults]) -> list[tuple[str, str]]:
    """`(path, reason)` for each answer meant for a child that the child would refuse, as far as the parent can
    tell: a call the child does not wait for, or an approval its agent's rules do not allow from the answer's caller
    (or that caller gave already)."""
    refused: list[tuple[str, str]] = []
    task_queue = workflow.info().task_queue
    for workflow_id, results in theirs.items():
        refused.extend(children.refusals(workflow_id, results))
        child = children.running[workflow_id]
        durable = get_durable_agent(child.agent, task_queue)
        for call_id in results.approvals:
            call = children.call(workflow_id, call_id)
            rule = durable.approval_rules.get(call.tool_name) if call is not None else None
            if call is None or rule is None:
                continue
            caller = results.answered_by.get(call_id)
            reason = rule.allows(caller, call, durable.roles)
            opened = children.open_approval(workflow_id, call_id)
            if reason is None and opened is not None and caller in opened.approved_by:
                reason = f'{caller!r} already approved tool call {call_id!r}; it needs more approvals from others.'
            if reason is not None:
                refused.append((child.tool_call_id + PATH_SEPARATOR + call_id, reason))
    return refused


async def forward_to_children(children: Children, theirs: dict[str, DeferredToolResults]) -> None:
    """Send each child its answers (ids without their path; `answered_by` says who gave them)."""
    for workflow_id, results in theirs.items():
        children.forwarded(workflow_id, results)  # listed as answered until the child says what it still waits for
        await workflow.get_external_workflow_handle(workflow_id).signal('submit_deferred_tool_results', results)


async def report_to_parent(report: ChildPending) -> None:
    """Tell the run's parent what this run waits for now."""
    parent = workflow.info().parent
    assert parent is not None
    await workflow.get_external_workflow_handle(parent.workflow_id).signal(CHILD_SIGNAL, report)
