"""How `agents status` prints decision records and open approvals: one line each, whatever was decided."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from doors.cli._output import decision_line, open_approval_line
from workflows import DecisionRecord, PendingApproval
from workflows._decisions import Vote, args_digest

AT = datetime(2026, 11, 27, 10, 31, 5, tzinfo=UTC)
DIGEST = args_digest({'amount': 900})
SHORT = f'sha256:{DIGEST.removeprefix("sha256:")[:8]}…'


@pytest.mark.parametrize(
    ('record', 'line'),
    [
        (
            DecisionRecord('t-1', 'transfer', 'approve', AT, ['alice', 'bob'], args_digest=DIGEST),
            f'  t-1 transfer: approved by alice, bob at 2026-11-27 10:31:05 UTC ({SHORT})',
        ),
        (
            DecisionRecord(
                't-1',
                'transfer',
                'deny',
                AT,
                ['carol'],
                'not\nthis month',
                DIGEST,
                votes=[Vote('alice', AT, 'approve'), Vote('carol', AT, 'deny')],
            ),
            f'  t-1 transfer: denied by carol (after approval by alice) at 2026-11-27 10:31:05 UTC ({SHORT}): '
            'not this month',
        ),
        (
            DecisionRecord('t-1', 'transfer', 'deny', AT, [], 'The request expired.', DIGEST),
            f'  t-1 transfer: denied at 2026-11-27 10:31:05 UTC ({SHORT}): The request expired.',
        ),
        (
            DecisionRecord('t-1', 'transfer', 'override', AT, ['alice'], args_digest=DIGEST),
            f'  t-1 transfer: approved with other arguments by alice at 2026-11-27 10:31:05 UTC ({SHORT})',
        ),
        (
            DecisionRecord('c-1', 'lookup', 'result', AT, ['ops'], args_digest=DIGEST),
            f'  c-1 lookup: result by ops at 2026-11-27 10:31:05 UTC ({SHORT})',
        ),
        (
            DecisionRecord('c-1', 'lookup', 'result', AT, ['ops'], 'Not found.', DIGEST),
            f'  c-1 lookup: failed by ops at 2026-11-27 10:31:05 UTC ({SHORT}): Not found.',
        ),
    ],
)
def test_a_decision_record_is_one_line_naming_what_was_decided_by_whom_when_and_why(
    record: DecisionRecord, line: str
) -> None:
    assert decision_line(record) == line


def test_an_open_approval_says_how_many_approvals_it_has_of_those_it_needs_and_when_it_expires() -> None:
    assert open_approval_line(PendingApproval('t-1', 'transfer', 1)) == '  t-1 transfer: 0 of 1 approval'
    waiting = PendingApproval('t-1', 'transfer', 2, ['alice'], datetime(2026, 11, 28, 10, 30, tzinfo=UTC))
    assert open_approval_line(waiting) == '  t-1 transfer: 1 of 2 approvals (alice), expires 2026-11-28 10:30:00 UTC'
