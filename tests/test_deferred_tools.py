"""Deferred tools: approvals and external calls end a run with `DeferredToolRequests`; results resume it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pydantic
import pytest

from agent import (
    Agent,
    ApprovalRequired,
    CallDeferred,
    DeferredToolRequests,
    DeferredToolResults,
    ModelRetry,
    RunContext,
    ToolApproved,
    ToolDenied,
    UserError,
)
from agent.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturn,
    ToolReturnPart,
)
from agent.models.function import AgentInfo, FunctionModel
from agent.tools import ToolDefinition
from agent.toolsets import ExternalToolset


def first_calls_then_echo(*calls: ToolCallPart) -> FunctionModel:
    """Calls the given tools once, then answers with a summary of the results it got back."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=list(calls))
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        summary = [
            f'{p.tool_name}={p.content}' if isinstance(p, ToolReturnPart) else f'{p.tool_name}!{p.content}'
            for p in last.parts
            if isinstance(p, ToolReturnPart | RetryPromptPart)
        ]
        return ModelResponse(parts=[TextPart('; '.join(summary))])

    return FunctionModel(respond)


def build_agent(log: list[Any]) -> Agent[None, str | DeferredToolRequests]:
    model = first_calls_then_echo(
        ToolCallPart('delete', {'path': 'a'}, 'del-a'),
        ToolCallPart('delete', {'path': 'b'}, 'del-b'),
        ToolCallPart('fetch_remote', {'key': 'k'}, 'ext-1'),
        ToolCallPart('read', {'path': 'c'}, 'read-c'),
    )
    agent: Agent[None, str | DeferredToolRequests] = Agent(model, output_type=[str, DeferredToolRequests])

    @agent.tool(requires_approval=True)
    def delete(ctx: RunContext[None], path: str) -> str:
        log.append(('delete', path, ctx.tool_call_approved, ctx.tool_call_metadata, ctx.tool_call_id))
        return f'deleted {path}'

    @agent.tool_plain
    def fetch_remote(key: str) -> str:
        raise CallDeferred(metadata={'queue': 'remote'})

    @agent.tool_plain
    def read(path: str) -> str:
        log.append(('read', path))
        return f'contents of {path}'

    return agent


def test_deferred_calls_end_the_run_with_requests_and_keep_completed_results() -> None:
    log: list[Any] = []
    agent = build_agent(log)
    result = agent.run_sync('clean up')
    requests = result.output
    assert isinstance(requests, DeferredToolRequests)
    assert [c.tool_call_id for c in requests.approvals] == ['del-a', 'del-b']
    assert [c.tool_call_id for c in requests.calls] == ['ext-1']
    assert requests.metadata == {'ext-1': {'queue': 'remote'}}
    assert log == [('read', 'c')]
    trailing = result.all_messages()[-1]
    assert isinstance(trailing, ModelRequest)
    assert [(p.tool_name, p.content) for p in trailing.parts] == [('read', 'contents of c')]  # type: ignore[union-attr]


def test_resuming_runs_approved_calls_returns_denials_and_external_results_without_rerunning() -> None:
    log: list[Any] = []
    agent = build_agent(log)
    first = agent.run_sync('clean up')
    requests = first.output
    assert isinstance(requests, DeferredToolRequests)
    results = requests.build_results(
        approvals={'del-a': ToolApproved(override_args={'path': 'a-safe'}), 'del-b': ToolDenied('Not that one.')},
        calls={'ext-1': 'remote value'},
        metadata={'del-a': {'approved_by': 'ops'}},
    )
    # The results travel as JSON, as they would from a UI or a signal.
    results = pydantic.TypeAdapter(DeferredToolResults).validate_json(
        pydantic.TypeAdapter(DeferredToolResults).dump_json(results)
    )
    history = ModelMessagesTypeAdapter.validate_json(first.all_messages_json())
    second = agent.run_sync(message_history=history, deferred_tool_results=results)

    # The model gets the earlier result and the new ones as one request: the earlier first, then the function
    # tools' (the external call is one), then the approvals'.
    assert second.output == 'read=contents of c; fetch_remote=remote value; delete=deleted a-safe; delete=Not that one.'
    assert log == [('read', 'c'), ('delete', 'a-safe', True, {'approved_by': 'ops'}, 'del-a')]
    # The history keeps the first run's request as it was; this run's own request holds only the new results.
    assert second.all_messages()[: len(history)] == history
    answered = [
        p
        for m in second.new_messages()
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    ]
    assert [(p.tool_call_id, p.outcome) for p in answered] == [
        ('ext-1', 'success'),
        ('del-a', 'success'),
        ('del-b', 'denied'),
    ]


def test_approve_all_and_external_retry_results() -> None:
    log: list[Any] = []
    agent = build_agent(log)
    first = agent.run_sync('clean up')
    requests = first.output
    assert isinstance(requests, DeferredToolRequests)
    results = requests.build_results(calls={'ext-1': ModelRetry('remote is down')}, approve_all=True)
    second = agent.run_sync(message_history=first.all_messages(), deferred_tool_results=results)
    assert second.output == ('read=contents of c; fetch_remote!remote is down; delete=deleted a; delete=deleted b')


def test_external_results_can_be_tool_return_objects() -> None:
    agent = build_agent([])
    first = agent.run_sync('clean up')
    requests = first.output
    assert isinstance(requests, DeferredToolRequests)
    results = requests.build_results(approvals={'del-a': False, 'del-b': False}, calls={'ext-1': ToolReturn({'n': 1})})
    second = agent.run_sync(message_history=first.all_messages(), deferred_tool_results=results)
    assert second.output == (
        "read=contents of c; fetch_remote={'n': 1}; delete=The tool call was denied.; delete=The tool call was denied."
    )


def test_build_results_rejects_unknown_and_misfiled_ids() -> None:
    requests = DeferredToolRequests(
        calls=[ToolCallPart('ext', {}, 'ext-1')], approvals=[ToolCallPart('danger', {}, 'app-1')]
    )
    with pytest.raises(
        ValueError,
        match=r"'nope', which is not in this `DeferredToolRequests\.approvals` and matches no pending request",
    ):
        requests.build_results(approvals={'nope': True})
    with pytest.raises(
        ValueError,
        match=r"'app-1', which is not in this `DeferredToolRequests\.calls`: it is a pending request in `approvals`",
    ):
        requests.build_results(calls={'app-1': 'x'})
    with pytest.raises(ValueError, match='metadata has tool call ids'):
        requests.build_results(metadata={'ghost': {}})


def test_remaining_reports_unresolved_requests() -> None:
    requests = DeferredToolRequests(
        calls=[ToolCallPart('ext', {}, 'ext-1')],
        approvals=[ToolCallPart('danger', {}, 'app-1'), ToolCallPart('danger', {}, 'app-2')],
        metadata={'app-2': {'x': 1}},
    )
    partial = DeferredToolResults(approvals={'app-1': True})
    remaining = requests.remaining(partial)
    assert remaining is not None
    assert [c.tool_call_id for c in remaining.approvals] == ['app-2']
    assert remaining.metadata == {'app-2': {'x': 1}}
    partial.update(DeferredToolResults(approvals={'app-2': False}, calls={'ext-1': 1}))
    assert requests.remaining(partial) is None


def test_to_tool_call_results_normalizes_values() -> None:
    results = DeferredToolResults(approvals={'a': True, 'b': False}, calls={'c': 3, 'd': ModelRetry('again')})
    normalized = results.to_tool_call_results()
    assert normalized['a'] == ToolApproved()
    assert normalized['b'] == ToolDenied()
    assert normalized['c'] == ToolReturn(3)
    assert normalized['d'] == ModelRetry('again')


def test_tool_raising_approval_required_runs_once_approved() -> None:
    model = first_calls_then_echo(ToolCallPart('transfer', {'amount': 500}, 't-1'))
    agent: Agent[None, Any] = Agent(model, output_type=[str, DeferredToolRequests])
    calls: list[tuple[int, bool]] = []

    @agent.tool
    def transfer(ctx: RunContext[None], amount: int) -> str:
        calls.append((amount, ctx.tool_call_approved))
        if amount > 100 and not ctx.tool_call_approved:
            raise ApprovalRequired(metadata={'reason': 'large transfer'})
        return f'sent {amount}'

    first = agent.run_sync('pay')
    assert isinstance(first.output, DeferredToolRequests)
    assert first.output.metadata == {'t-1': {'reason': 'large transfer'}}
    second = agent.run_sync(
        message_history=first.all_messages(), deferred_tool_results=first.output.build_results(approve_all=True)
    )
    assert second.output == 'transfer=sent 500'
    assert calls == [(500, False), (500, True)]


def test_external_toolset_calls_are_deferred() -> None:
    external = ExternalToolset(
        [
            ToolDefinition(
                name='ask_user', parameters_json_schema={'type': 'object', 'properties': {'q': {'type': 'string'}}}
            )
        ]
    )
    agent: Agent[None, Any] = Agent(
        first_calls_then_echo(ToolCallPart('ask_user', {'q': 'colour?'}, 'ask-1')),
        toolsets=[external],
        output_type=[str, DeferredToolRequests],
    )
    first = agent.run_sync('hi')
    assert isinstance(first.output, DeferredToolRequests)
    assert [c.tool_name for c in first.output.calls] == ['ask_user']
    second = agent.run_sync(
        message_history=first.all_messages(), deferred_tool_results=DeferredToolResults(calls={'ask-1': 'blue'})
    )
    assert second.output == 'ask_user=blue'


def test_deferred_calls_without_deferred_output_type_raise_a_clear_error() -> None:
    agent = Agent(first_calls_then_echo(ToolCallPart('danger', {}, 'd-1')))

    @agent.tool_plain(requires_approval=True)
    def danger() -> str:
        return 'boom'

    with pytest.raises(UserError) as raised:
        agent.run_sync('go')
    assert str(raised.value).startswith(
        'A deferred tool call was present, but `DeferredToolRequests` is not among output types. To resolve this, '
        'add `DeferredToolRequests` to the list of output types for this agent. (Deferred calls: danger.'
    )


def test_resuming_with_unknown_or_already_answered_ids_is_rejected() -> None:
    log: list[Any] = []
    agent = build_agent(log)
    first = agent.run_sync('clean up')
    with pytest.raises(UserError, match=r"Expected: \['del-a', 'del-b', 'ext-1'\], got: \['ghost'\]"):
        agent.run_sync(
            message_history=first.all_messages(), deferred_tool_results=DeferredToolResults(approvals={'ghost': True})
        )
    with pytest.raises(UserError, match="Tool call 'read-c' was already executed and its result cannot be overridden"):
        agent.run_sync(
            message_history=first.all_messages(), deferred_tool_results=DeferredToolResults(calls={'read-c': 'x'})
        )
    assert log == [('read', 'c')]


def test_history_ending_in_unanswered_tool_calls_needs_deferred_results() -> None:
    agent = build_agent([])
    first = agent.run_sync('clean up')
    with pytest.raises(UserError, match='pass deferred_tool_results'):
        agent.run_sync('and now?', message_history=first.all_messages()[:-1])


def test_approval_results_accept_bare_objects_from_clients() -> None:
    adapter = pydantic.TypeAdapter(DeferredToolResults)
    results = adapter.validate_python(
        {'approvals': {'a': {'message': 'too risky'}, 'b': {'override_args': {'x': 1}}, 'c': True}}
    )
    assert results.approvals == {'a': ToolDenied('too risky'), 'b': ToolApproved(override_args={'x': 1}), 'c': True}


def test_approving_a_call_of_a_tool_made_external_fails_rather_than_running_it() -> None:
    ran: list[int] = []

    def call_lookup(messages: list[Any], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart('lookup', {'x': 1}, 'l-1')])

    agent = Agent(FunctionModel(call_lookup), output_type=[str, DeferredToolRequests])

    def external(ctx: RunContext[None], tool_def: ToolDefinition) -> ToolDefinition:
        return replace(tool_def, kind='external')

    @agent.tool_plain(prepare=external)
    def lookup(x: int) -> int:
        ran.append(x)
        return x

    first = agent.run_sync('go')
    assert isinstance(first.output, DeferredToolRequests)
    assert [call.tool_call_id for call in first.output.calls] == ['l-1']

    with pytest.raises(RuntimeError, match=r'^External tools cannot be called$'):
        agent.run_sync(
            message_history=first.all_messages(), deferred_tool_results=DeferredToolResults(approvals={'l-1': True})
        )
    assert ran == []
