"""`ApprovalRule` on its own: what a rule accepts, what registering an agent with rules refuses, the args digest."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from agent import Agent, UserError
from agent.messages import ToolCallPart
from agent.models.test import TestModel
from workflows import ApprovalRule, DurableAgent
from workflows._decisions import args_digest

CALL = ToolCallPart('transfer', {'amount': 900, 'to': 'acme'}, 't-1')


def bank() -> Agent[None, str]:
    agent = Agent(TestModel(), name='bank')

    @agent.tool_plain(requires_approval=True)
    def transfer(amount: int, to: str) -> str:
        return f'sent {amount} to {to}'

    return agent


@pytest.mark.parametrize(
    ('fields', 'error'),
    [
        ({'required_approvals': 0}, 'required_approvals must be at least 1, got 0'),
        ({'required_approvals': True}, 'required_approvals must be a whole number'),
        ({'expires_after_seconds': -5}, 'expires_after_seconds must be positive, got -5'),
        ({'on_expiry': 'ignore'}, "on_expiry must be 'deny' or 'escalate', got 'ignore'"),
        ({'approvers': 'alice'}, "a set of identities, not one string: write {'alice'}"),
    ],
)
def test_a_malformed_rule_is_refused_when_it_is_made(fields: dict[str, Any], error: str) -> None:
    with pytest.raises((ValueError, TypeError), match=error.replace('(', r'\(').replace('{', r'\{')):
        ApprovalRule(**fields)


@pytest.mark.parametrize(
    ('rules', 'roles', 'error'),
    [
        ({'wire': ApprovalRule()}, {}, "approval rule for tool 'wire', but no such tool; its tools are: transfer"),
        (
            {'transfer': ApprovalRule(approvers={'role:finance'})},
            {'legal': {'lee'}},
            "names role 'finance', which roles= does not define (defined: legal)",
        ),
        (
            {'transfer': ApprovalRule(approvers={'alice', 'role:finance'}, required_approvals=3)},
            {'finance': {'alice', 'bob'}},
            'needs 3 approvals but allows only 2 approver(s): alice, bob',
        ),
    ],
)
def test_registering_an_agent_refuses_rules_that_cannot_work(
    rules: dict[str, ApprovalRule], roles: dict[str, set[str]], error: str
) -> None:
    with pytest.raises(UserError) as refused:
        DurableAgent(bank(), approval_rules=rules, roles=roles).check('bank')
    assert str(refused.value).startswith("Agent 'bank'")
    assert error in str(refused.value)


def test_who_a_rule_allows() -> None:
    roles = {'finance': {'erin'}}
    by_set = ApprovalRule(approvers={'alice', 'role:finance'})
    assert by_set.allows('alice', CALL, roles) is None
    assert by_set.allows('erin', CALL, roles) is None
    assert by_set.allows('mallory', CALL, roles) == "'mallory' may not approve calls of 'transfer'."
    assert by_set.allows(None, CALL, roles) is not None  # a rule naming approvers needs a name

    # A function of the caller and the call: here, large transfers need the treasurer.
    def treasurer_or_small(caller: str, call: ToolCallPart) -> bool:
        return caller == 'treasurer' or call.args_as_dict()['amount'] < 500

    by_amount = ApprovalRule(approvers=treasurer_or_small)
    assert by_amount.allows('treasurer', CALL, {}) is None
    assert by_amount.allows('alice', CALL, {}) is not None
    assert by_amount.allows('alice', ToolCallPart('transfer', {'amount': 10, 'to': 'x'}, 't-2'), {}) is None

    anyone = ApprovalRule()
    assert anyone.allows(None, CALL, {}) is None  # one approval from anyone, named or not
    assert ApprovalRule(required_approvals=2).allows(None, CALL, {}) is not None  # distinct approvers need names


def test_the_args_digest_is_of_canonical_json_whatever_the_key_order() -> None:
    canonical = '{"amount":900,"to":"acmé"}'
    expected = 'sha256:' + hashlib.sha256(canonical.encode()).hexdigest()
    assert args_digest({'to': 'acmé', 'amount': 900}) == expected
    assert args_digest({'amount': 900, 'to': 'acmé'}) == expected
    assert args_digest({'amount': 901, 'to': 'acmé'}) != expected
