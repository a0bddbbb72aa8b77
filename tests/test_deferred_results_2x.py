"""What Pydantic AI 2.x added to deferred tool results: `ToolFailed` answers, `answered_by`, `requests.kind()`.

`answered_by` is a new field of a wire type (the workflow's input and signals carry `DeferredToolResults`), so the
JSON of earlier releases, which lacks it, must still read, and results without it must encode as they did.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest

from agent import (
    Agent,
    CallDeferred,
    DeferredToolRequests,
    DeferredToolResults,
    RunContext,
    ToolFailed,
)
from agent.capabilities import HandleDeferredToolCalls
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from workflows._data_converter import data_converter

RESULTS = pydantic.TypeAdapter(DeferredToolResults)


def calls_then_reports(*calls: ToolCallPart) -> FunctionModel:
    """Calls the tools once, then answers with each result it got: `name:outcome:content`."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        returns = [p for p in last.parts if isinstance(p, ToolReturnPart)]
        if not returns:
            return ModelResponse(parts=list(calls))
        return ModelResponse(parts=[TextPart('; '.join(f'{p.tool_name}:{p.outcome}:{p.content}' for p in returns))])

    return FunctionModel(respond)


def external_agent() -> Agent[None, str | DeferredToolRequests]:
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        calls_then_reports(ToolCallPart('charge', {'amount': 5}, 'charge-1')), output_type=[str, DeferredToolRequests]
    )

    @agent.tool_plain
    def charge(amount: int) -> str:
        raise CallDeferred()

    return agent


def test_a_tool_failed_result_of_an_external_call_reaches_the_model_as_a_failed_return() -> None:
    agent = external_agent()
    first = agent.run_sync('Charge 5')
    assert isinstance(first.output, DeferredToolRequests)

    results = DeferredToolResults(calls={'charge-1': ToolFailed('The card was declined.')})
    second = agent.run_sync(message_history=first.all_messages(), deferred_tool_results=results)

    assert second.output == 'charge:failed:The card was declined.'
    answer = second.new_messages()[0]
    assert isinstance(answer, ModelRequest)
    assert answer.parts == [
        ToolReturnPart(
            'charge', 'The card was declined.', 'charge-1', timestamp=answer.parts[0].timestamp, outcome='failed'
        )
    ]


def test_a_handler_answering_with_tool_failed_fails_the_call_in_the_same_run_without_a_retry() -> None:
    def fail_all(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        return requests.build_results(calls={c.tool_call_id: ToolFailed('Service down.') for c in requests.calls})

    agent = Agent(calls_then_reports(ToolCallPart('charge', {'amount': 5}, 'charge-1')))
    agent = Agent(agent.model, capabilities=[HandleDeferredToolCalls(fail_all)])
    retries: list[int] = []

    @agent.tool
    def charge(ctx: RunContext[None], amount: int) -> str:
        retries.append(ctx.retry)
        raise CallDeferred()

    result = agent.run_sync('Charge 5')

    assert result.output == 'charge:failed:Service down.'
    assert retries == [0]


def test_tool_failed_in_deferred_results_survives_a_json_round_trip() -> None:
    results = DeferredToolResults(calls={'a': ToolFailed('nope'), 'b': 'plain'})

    data = json.loads(RESULTS.dump_json(results))
    assert data['calls']['a'] == {'message': 'nope', 'kind': 'tool-failed'}
    again = RESULTS.validate_json(json.dumps(data))

    assert again.calls == {'a': ToolFailed('nope'), 'b': 'plain'}
    assert isinstance(again.to_tool_call_results()['a'], ToolFailed)


def test_build_results_carries_answered_by_and_refuses_ids_that_are_not_pending() -> None:
    requests = DeferredToolRequests(
        approvals=[ToolCallPart('delete', {}, 'del-1')], calls=[ToolCallPart('charge', {}, 'ext-1')]
    )

    results = requests.build_results({'del-1': True}, answered_by={'del-1': 'alice', 'ext-1': 'billing-bot'})

    assert results.answered_by == {'del-1': 'alice', 'ext-1': 'billing-bot'}
    with pytest.raises(ValueError, match=r"answered_by has tool call ids with no pending request: \['other'\]"):
        requests.build_results(answered_by={'other': 'mallory'})


def test_update_merges_answered_by() -> None:
    results = DeferredToolResults(approvals={'a': True}, answered_by={'a': 'alice'})

    results.update(DeferredToolResults(approvals={'b': False}, answered_by={'b': 'bob', 'a': 'carol'}))

    assert results.answered_by == {'a': 'carol', 'b': 'bob'}


def test_answered_by_round_trips_and_json_without_it_still_reads() -> None:
    results = DeferredToolResults(approvals={'a': True}, answered_by={'a': 'alice'})
    assert RESULTS.validate_json(RESULTS.dump_json(results)) == results

    earlier = RESULTS.validate_json('{"approvals": {"a": true}, "calls": {"b": 1}, "metadata": {}}')

    assert earlier == DeferredToolResults(approvals={'a': True}, calls={'b': 1})
    assert earlier.answered_by == {}


def payload_json(value: Any) -> dict[str, Any]:
    (payload,) = data_converter.payload_converter.to_payloads([value])
    return json.loads(payload.data)


def test_the_workflow_wire_format_leaves_out_an_empty_answered_by_and_reads_json_without_it() -> None:
    # What a workflow's input or signal carries: without anyone named, the JSON is what earlier releases sent.
    assert 'answered_by' not in payload_json(DeferredToolResults(approvals={'a': True}))
    assert payload_json(DeferredToolResults(approvals={'a': True}, answered_by={'a': 'alice'}))['answered_by'] == {
        'a': 'alice'
    }

    (payload,) = data_converter.payload_converter.to_payloads([{'approvals': {'a': True}}])
    (decoded,) = data_converter.payload_converter.from_payloads([payload], [DeferredToolResults])

    assert decoded == DeferredToolResults(approvals={'a': True})


def test_kind_says_what_a_pending_call_waits_for() -> None:
    requests = DeferredToolRequests(
        approvals=[ToolCallPart('delete', {}, 'del-1')], calls=[ToolCallPart('charge', {}, 'ext-1')]
    )

    assert requests.kind('del-1') == 'approval'
    assert requests.kind('ext-1') == 'external'
    with pytest.raises(ValueError, match="No pending deferred tool call has id 'gone'"):
        requests.kind('gone')
