"""Keys are taken out of failure text: the worker's own keys by value, other keys by their shape."""

from __future__ import annotations

import pytest
from temporalio.api.failure.v1 import Failure

from activities._fitted_failures import MESSAGE_LIMIT, RETRIED_FAILURE_LIMIT, fit
from activities._redaction import REDACTED, redact, remember_model_key
from agent.models.openai import OpenAIChatModel
from agent.providers.openai import OpenAIProvider


@pytest.mark.parametrize(
    ('text', 'secret'),
    [
        ('Incorrect API key provided: sk-proj-Zq81vL0cRkT5wXy2Nn7MaB3dEfGhJ.', 'sk-proj-Zq81vL0cRkT5wXy2Nn7MaB3dEfGhJ'),
        ('invalid x-api-key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv', 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv'),
        ('API key not valid: AIzaSyD-4kLmNoPqRsTuVwXyZ0123456789abcd', 'AIzaSyD-4kLmNoPqRsTuVwXyZ0123456789abcd'),
        ('sent "Authorization: Bearer eyJhbGciOi.payload.sig"', 'eyJhbGciOi.payload.sig'),
        ('GET /v1beta/models?alt=sse&key=abc123secret HTTP/1.1', 'abc123secret'),
        ('{"api_key": "corp-0f9e8d7c"}', 'corp-0f9e8d7c'),
    ],
)
def test_key_shapes_are_redacted_and_the_text_around_them_kept(text: str, secret: str) -> None:
    assert redact(text) == text.replace(secret, REDACTED)


def test_the_workers_own_keys_are_redacted_whatever_their_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('ANTHROPIC_API_KEY', 'plain-env-key-1234')
    provider = OpenAIProvider(base_url='https://llm.example.com/v1', api_key='plain-given-key-5678')
    remember_model_key(OpenAIChatModel('m', provider=provider))
    assert redact('saw plain-env-key-1234 and plain-given-key-5678') == f'saw {REDACTED} and {REDACTED}'


def test_ordinary_text_is_left_alone() -> None:
    text = "Unknown model provider 'acme' in 'acme:gpt'. Set the `OPENAI_API_KEY` environment variable; sk-learn."
    assert redact(text) == text


def test_a_retried_failure_keeps_the_start_of_every_message_within_four_kilobytes() -> None:
    failure = Failure(message='The tool gave up', stack_trace='frame\n' * 2000)
    failure.cause.message = 'The report could not be built: ' + 'x' * 100_000
    failure.cause.stack_trace = 'inner frame\n' * 2000
    assert fit(failure, RETRIED_FAILURE_LIMIT)
    assert failure.ByteSize() <= RETRIED_FAILURE_LIMIT
    assert failure.message == 'The tool gave up'
    assert failure.cause.message.startswith('The report could not be built: xxx')
    assert failure.cause.message.endswith('[cut: 100,031 characters in all]')


def test_a_huge_message_is_redacted_only_as_far_as_it_is_kept_and_says_how_long_it_was() -> None:
    key = 'sk-proj-Zq81vL0cRkT5wXy2Nn7MaB3dEfGhJ'
    # A key inside what is kept, and megabytes after it: only the start is redacted (a workflow task has seconds).
    message = 'x' * (MESSAGE_LIMIT - 100) + f' {key} ' + 'y' * 3_000_000
    failure = Failure(message=message, stack_trace=failure_trace(key))
    fit(failure)
    assert key not in failure.message
    assert REDACTED in failure.message
    assert failure.message.endswith(f'[cut: {len(message):,} characters in all]')
    assert len(failure.message) <= MESSAGE_LIMIT
    assert failure.stack_trace.endswith(f'last frame with {REDACTED}')
    assert failure.stack_trace.startswith(f'[cut: {len(failure_trace(key)):,} characters in all]')


def test_a_redacted_message_that_fits_gets_no_cut_note() -> None:
    failure = Failure(message='bad key sk-proj-Zq81vL0cRkT5wXy2Nn7MaB3dEfGhJ')
    fit(failure)
    assert failure.message == f'bad key {REDACTED}'


def failure_trace(key: str) -> str:
    return 'frame\n' * 500_000 + f'last frame with {key}'
