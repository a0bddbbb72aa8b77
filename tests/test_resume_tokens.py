"""Resume tokens of durable waits: URL-safe, they name the workflow, the run and the wait; a malformed one is told."""

from __future__ import annotations

import re

import pytest

from workflows._resume_tokens import InvalidToken, ResumeToken, TokenRefused, decode_token, encode_token


@pytest.mark.parametrize(
    ('workflow_id', 'run_id', 'key'),
    [
        ('agent-support-1', '01a21c17-74c6-7b4f-a92c-3aea8be00670', 'deferred_tool_calls.1'),
        ('chat-c/42 ü "quoted"', 'r', 'approve_refund.12'),
    ],
)
def test_a_token_is_url_safe_and_names_what_it_was_made_from(workflow_id: str, run_id: str, key: str) -> None:
    token = encode_token(workflow_id, run_id, key)

    assert re.fullmatch(r'ev1\.[A-Za-z0-9_-]+', token)
    assert decode_token(token) == ResumeToken(workflow_id, run_id, key)
    assert ResumeToken(workflow_id, run_id, key).encode() == token
    assert decode_token(f'  {token}\n') == ResumeToken(workflow_id, run_id, key)  # as pasted from a terminal


@pytest.mark.parametrize(
    ('token', 'reason'),
    [
        ('', 'The resume token is empty.'),
        ('abc', "The resume token does not start with 'ev1.'"),
        ('ev1.', 'is damaged'),
        ('ev1.WyJ3Ii', 'is damaged'),  # cut short
        ('ev1.WyJ3IiwiciIsImsuMSJd=', 'is damaged'),  # padded
        ('ev1.Wy*3IiwiciIsImsuMSJd', 'is damaged'),
        ('ev1.e30', 'does not name a workflow id, a run id and a wait key'),  # {}
        ('ev1.WyJ3IiwiIiwiayJd', 'does not name a workflow id, a run id and a wait key'),  # an empty run id
        ('ev1.' + 'A' * 5000, 'characters long'),
    ],
)
def test_a_malformed_token_is_refused_with_one_line_saying_what_is_wrong(token: str, reason: str) -> None:
    with pytest.raises(InvalidToken) as refused:
        decode_token(token)

    assert reason in str(refused.value)
    assert '\n' not in str(refused.value)
    assert isinstance(refused.value, TokenRefused)
    assert isinstance(refused.value, ValueError)
