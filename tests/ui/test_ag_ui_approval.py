"""Tools that need approval: the run ends with an interrupt outcome, the client's resume answers it."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import ResumeEntry, RunAgentInput, RunFinishedEvent, ToolCallResultEvent
from pydantic import ValidationError

from agent import Agent
from agent.tools import DeferredToolRequests, ToolApproved, ToolDenied
from agent.ui.ag_ui import AGUIAdapter, ApprovalAnswer

from ._ag_ui import calling_agent, client_check, encode, run_events, run_input, types

PATH_ARGS = '{"path": "/tmp/report.txt"}'


def delete_agent(deleted: list[str]) -> Agent[Any, Any]:
    """Calls `delete`, which needs approval; answers with the tool result's text."""
    agent = calling_agent('delete', PATH_ARGS, answer='Result:', output_type=[str, DeferredToolRequests])

    @agent.tool_plain(requires_approval=True)
    def delete(path: str) -> str:
        deleted.append(path)
        return f'deleted {path}'

    return agent


async def _interrupted_run(agent: Agent[Any, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Run until the approval interrupt; return its events and the real client's view of them."""
    events = await run_events(AGUIAdapter(agent, run_input()))
    client = client_check(encode(events))
    assert client['error'] is None
    return events, client


def _resumed_input(client: dict[str, Any], *resume: dict[str, Any]) -> RunAgentInput:
    """The next run input as the client sends it: its messages from the stream, plus the resume entries."""
    return RunAgentInput.model_validate(
        {
            'threadId': 'thread-1',
            'runId': 'run-2',
            'messages': [{'id': 'user-1', 'role': 'user', 'content': 'Hello'}, *client['agent']['messages']],
            'resume': list(resume),
        }
    )


def _text(events: list[Any]) -> str:
    return ''.join(e.delta for e in events if e.type.value == 'TEXT_MESSAGE_CONTENT')


async def test_a_call_needing_approval_ends_the_run_with_an_interrupt():
    deleted: list[str] = []

    events, client = await _interrupted_run(delete_agent(deleted))

    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    outcome = finished.model_dump(by_alias=True)['outcome']
    assert outcome == {
        'type': 'interrupt',
        'interrupts': [
            {
                'id': 'approval:call-1',
                'reason': 'tool_approval',
                'message': f'Allow the call delete({PATH_ARGS})?',
                'toolCallId': 'call-1',
                'responseSchema': ApprovalAnswer.model_json_schema(),
            }
        ],
    }
    assert deleted == []
    assert 'TOOL_CALL_RESULT' not in types(events)
    # The real client records the interrupt as pending: the thread cannot go on without answering it.
    assert [i['id'] for i in client['agent']['pendingInterrupts']] == ['approval:call-1']
    assert client['agent']['outcome']['type'] == 'interrupt'


async def test_an_approved_resume_runs_the_tool():
    deleted: list[str] = []
    agent = delete_agent(deleted)
    _, client = await _interrupted_run(agent)
    resume = {'interruptId': 'approval:call-1', 'status': 'resolved', 'payload': {'approved': True}}

    events = await run_events(AGUIAdapter(agent, _resumed_input(client, resume)))

    assert deleted == ['/tmp/report.txt']
    [result] = [e for e in events if isinstance(e, ToolCallResultEvent)]
    assert (result.tool_call_id, result.content) == ('call-1', 'deleted /tmp/report.txt')
    assert _text(events) == 'Result: deleted /tmp/report.txt'
    assert 'outcome' not in events[-1].model_dump(by_alias=True, exclude_none=True)  # a plain success names none
    assert client_check(encode(events))['error'] is None


async def test_a_denied_resume_tells_the_model_the_reason_and_skips_the_tool():
    deleted: list[str] = []
    agent = delete_agent(deleted)
    _, client = await _interrupted_run(agent)
    resume = {
        'interruptId': 'approval:call-1',
        'status': 'resolved',
        'payload': {'approved': False, 'reason': 'That report is still needed.'},
    }

    events = await run_events(AGUIAdapter(agent, _resumed_input(client, resume)))

    assert deleted == []
    assert _text(events) == 'Result: That report is still needed.'
    assert client_check(encode(events))['error'] is None


async def test_approval_with_edited_arguments_runs_the_tool_with_them():
    deleted: list[str] = []
    agent = delete_agent(deleted)
    _, client = await _interrupted_run(agent)
    payload = {'approved': True, 'editedArgs': {'path': '/tmp/copy.txt'}}

    await run_events(
        AGUIAdapter(
            agent, _resumed_input(client, {'interruptId': 'approval:call-1', 'status': 'resolved', 'payload': payload})
        )
    )

    assert deleted == ['/tmp/copy.txt']


@pytest.mark.parametrize(
    ('status', 'payload', 'expected'),
    [
        ('resolved', {'approved': True}, ToolApproved()),
        ('resolved', {'approved': False}, ToolDenied()),
        ('resolved', {'approved': False, 'reason': 'No.'}, ToolDenied('No.')),
        # Anything short of `approved: true` denies: a tool needing approval never runs on an ambiguous answer.
        ('resolved', {'approved': 'yes'}, ToolDenied()),
        ('resolved', {'approved': 1}, ToolDenied()),
        ('resolved', None, ToolDenied()),
        ('resolved', 'ok', ToolDenied()),
        ('cancelled', {'approved': True}, ToolDenied('The user cancelled the approval of this tool call.')),
    ],
)
def test_resume_entries_become_deferred_approvals(status: Any, payload: Any, expected: Any):
    entry = ResumeEntry(interrupt_id='approval:call-7', status=status, payload=payload)
    adapter = AGUIAdapter(calling_agent('x'), run_input(resume=[entry]))

    results = adapter.deferred_tool_results

    assert results is not None
    assert results.approvals == {'call-7': expected}


def test_no_resume_means_no_deferred_results():
    assert AGUIAdapter(calling_agent('x'), run_input()).deferred_tool_results is None


def test_a_resume_entry_for_an_unknown_interrupt_is_rejected():
    body = run_input(resume=[ResumeEntry(interrupt_id='something-else', status='resolved')]).model_dump_json(
        by_alias=True
    )

    with pytest.raises(ValidationError) as info:
        AGUIAdapter.build_run_input(body.encode())

    [error] = info.value.errors()
    assert error['loc'] == ('resume', 0, 'interruptId')
    assert "'something-else' is not the id of an interrupt this agent sent" in error['msg']
