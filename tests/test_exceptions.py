"""The exception hierarchy: where the names Pydantic AI users catch sit, and `ToolRetryError`'s message."""

from __future__ import annotations

import pickle

import pytest

from agent.exceptions import (
    AgentRunError,
    ConcurrencyLimitExceeded,
    ContentFilterError,
    IncompleteToolCall,
    ModelAPIError,
    ModelHTTPError,
    ToolRetryError,
    UnexpectedModelBehavior,
)
from agent.messages import RetryPromptPart


@pytest.mark.parametrize(
    ('error', 'base'),
    [
        (ContentFilterError, UnexpectedModelBehavior),
        (IncompleteToolCall, UnexpectedModelBehavior),
        (ConcurrencyLimitExceeded, AgentRunError),
    ],
)
def test_run_failures_are_caught_by_their_pydantic_ai_base_class(error: type[AgentRunError], base: type) -> None:
    with pytest.raises(base, match='cut short'):
        raise error('cut short')


def test_unexpected_model_behavior_subclasses_keep_the_body() -> None:
    error = ContentFilterError('filtered', body='{"finish_reason": "content_filter"}')

    assert str(error) == 'filtered, body:\n{"finish_reason": "content_filter"}'


def test_tool_retry_error_is_not_a_run_failure() -> None:
    assert not issubclass(ToolRetryError, AgentRunError)


def test_tool_retry_error_message_is_the_retry_text() -> None:
    error = ToolRetryError(RetryPromptPart('try a smaller number', tool_name='pick'))

    assert str(error) == 'try a smaller number'
    assert error.tool_retry.tool_name == 'pick'


def test_tool_retry_error_summarizes_validation_errors() -> None:
    part = RetryPromptPart(
        [{'type': 'missing', 'loc': ('city',), 'msg': 'Field required', 'input': {}}], tool_name='weather'
    )

    assert str(ToolRetryError(part)) == (
        "1 validation error for 'weather'\ncity\n  Field required [type=missing, input_value={}]"
    )


def test_tool_retry_error_summary_leaves_out_an_input_the_error_does_not_carry() -> None:
    part = RetryPromptPart([{'type': 'missing', 'loc': ('city',), 'msg': 'Field required'}], tool_name='weather')  # pyright: ignore[reportArgumentType]

    assert str(ToolRetryError(part)).endswith('Field required [type=missing]')


def test_model_api_and_http_errors_survive_pickling() -> None:
    api = pickle.loads(pickle.dumps(ModelAPIError('gpt-x', 'connection reset')))
    assert (type(api), api.model_name, api.message) == (ModelAPIError, 'gpt-x', 'connection reset')

    http = pickle.loads(pickle.dumps(ModelHTTPError(429, 'gpt-x', {'error': 'slow down'}, retry_after=2.5)))
    assert type(http) is ModelHTTPError
    assert (http.status_code, http.model_name, http.retry_after) == (429, 'gpt-x', 2.5)
    assert http.body == {'error': 'slow down'}
    assert str(http) == str(ModelHTTPError(429, 'gpt-x', {'error': 'slow down'}))


def test_tool_retry_error_survives_pickling() -> None:
    error = ToolRetryError(RetryPromptPart('again', tool_name='t'))

    restored = pickle.loads(pickle.dumps(error))

    assert restored.tool_retry == error.tool_retry
    assert str(restored) == 'again'
