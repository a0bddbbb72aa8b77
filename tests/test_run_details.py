"""The words the Web UI shows of a run: activity summaries, current details, static summary and details."""

from __future__ import annotations

from datetime import UTC, datetime

from agent.messages import ImageUrl, ToolCallPart
from agent.tools import DeferredToolRequests
from workflows._decisions import DecisionRecord
from workflows._run_details import (
    DECISIONS_SHOWN,
    RunView,
    current_details,
    decision_line,
    model_request_summary,
    start_metadata,
    tool_call_summary,
)
from workflows._types import AgentRunInput

AT = datetime(2025, 1, 1, tzinfo=UTC)


def test_a_tool_call_summary_reads_like_the_call() -> None:
    call = ToolCallPart('move_file', '{"src": "a.txt", "dst": "archive/a.txt", "overwrite": false}', 'c1')
    assert tool_call_summary(call) == "move_file(src='a.txt', dst='archive/a.txt', overwrite=False)"


def test_a_long_call_is_cut_to_one_line_of_at_most_80_characters_keeping_the_tool_name() -> None:
    call = ToolCallPart('write_file', {'path': 'notes.txt', 'content': 'line one\nline two ' * 20}, 'c1')
    summary = tool_call_summary(call)
    assert len(summary) <= 80
    assert summary.startswith("write_file(path='notes.txt', content='line one\\nline two")
    assert summary.endswith('…)')
    assert '\n' not in summary


def test_one_long_argument_does_not_hide_the_ones_after_it() -> None:
    call = ToolCallPart('search', {'query': 'x' * 200, 'limit': 5}, 'c1')
    assert tool_call_summary(call).endswith(', limit=5)')


def test_a_model_request_summary_names_the_model_and_the_step() -> None:
    assert model_request_summary('openai:gpt-4o', 3) == 'openai:gpt-4o (step 3)'


def test_the_current_details_name_each_call_waiting_for_a_human_or_a_result() -> None:
    waiting = DeferredToolRequests(
        approvals=[ToolCallPart('delete_file', {'path': 'old.txt'}, 'c1')],
        calls=[ToolCallPart('ask_manager', {'question': 'ok?'}, 'c2')],
    )
    assert current_details(RunView('awaiting_deferred_tools', 1, waiting)) == (
        "- Waiting for approval: delete_file(path='old.txt')\n- Waiting for the result of: ask_manager(question='ok?')"
    )
    single = DeferredToolRequests(approvals=waiting.approvals)
    assert current_details(RunView('awaiting_deferred_tools', 1, single)) == (
        "Waiting for approval: delete_file(path='old.txt')"
    )


def test_the_current_details_say_what_runs_or_else_the_state() -> None:
    assert current_details(RunView('running', 0, doing=('Calling lookup()',))) == 'Calling lookup()'
    assert current_details(RunView('running', 0)) == 'Running'
    assert current_details(RunView('awaiting_message', 0)) == 'Waiting for the next message'
    assert current_details(RunView('completed', 0)) == 'Completed'


def test_each_decision_is_one_line_naming_the_call_what_was_decided_and_who_decided() -> None:
    assert decision_line(DecisionRecord('t-1', 'transfer', 'approve', AT, ['alice', 'bob'])) == (
        't-1 transfer: approved by alice, bob'
    )
    assert decision_line(DecisionRecord('t-2', 'transfer', 'deny', AT, ['bob'], 'not this\nmonth')) == (
        't-2 transfer: denied by bob: not this month'
    )
    assert decision_line(DecisionRecord('t-3', 'transfer', 'override', AT, ['erin'])) == (
        't-3 transfer: approved with changed arguments by erin'
    )
    assert decision_line(DecisionRecord('q-1', 'ask', 'result', AT, ['carol'])) == 'q-1 ask: answered by carol'
    # A denial no one made is an expiry; its message is the model's, not the operator's.
    expired = DecisionRecord('t-4', 'transfer', 'deny', AT, [], 'The approval request expired before it was approved.')
    assert decision_line(expired) == 't-4 transfer: expired'
    long = decision_line(DecisionRecord('t-5', 'transfer', 'deny', AT, ['bob'], 'because ' * 50))
    assert len(long) == 160
    assert long.endswith('…')


def test_the_current_details_list_the_latest_decisions_under_what_the_run_does() -> None:
    records = tuple(DecisionRecord(f'c{i}', 'lookup', 'approve', AT, ['ada']) for i in range(DECISIONS_SHOWN + 3))
    details = current_details(RunView('running', 0, doing=('Calling lookup()',), decisions=records))
    first, blank, heading, *shown = details.splitlines()
    assert (first, blank, heading) == ('Calling lookup()', '', 'Decisions:')
    assert shown[0] == '- (3 earlier: see the status query)'
    assert shown[1:] == [f'- c{i} lookup: approved by ada' for i in range(3, DECISIONS_SHOWN + 3)]


def test_a_run_is_labelled_with_its_agent_and_the_start_of_its_prompt() -> None:
    summary, details = start_metadata(AgentRunInput(agent='support', prompt='Reset   my\npassword', model='test'))
    assert summary == 'support: Reset my password'
    assert details == '- Agent: support\n- Model: test\n- Prompt: Reset my password'


def test_a_prompt_with_other_content_names_its_kind() -> None:
    image = ImageUrl('https://example.com/cat.png')
    summary, _ = start_metadata(AgentRunInput(agent='vision', prompt=['What is this?', image]))
    assert summary == 'vision: What is this? [image-url]'


def test_a_conversation_without_a_prompt_is_labelled_with_its_id() -> None:
    summary, details = start_metadata(AgentRunInput(agent='support', conversation=True, conversation_id='c-42'))
    assert summary == 'support: conversation c-42'
    assert details == '- Agent: support\n- Conversation: c-42'
