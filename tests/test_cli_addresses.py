"""An address that is not HOST:PORT is told in one line by every command that connects, not by a traceback."""

from __future__ import annotations

import pytest

from doors.cli import run

COMMANDS = [
    ['status', 'w'],
    ['pending', 'w'],
    ['result', 'w'],
    ['watch', 'w'],
    ['approve', 'w', 'call-1'],
    ['deny', 'w', 'call-1'],
    ['run', 'support', 'hi'],
    ['inbox'],
    ['schedule', 'list'],
    ['schedule', 'delete', 's'],
    ['worker', '--agents', 'tests.durable.crash_agent:crash_agent'],
]


@pytest.mark.parametrize('command', COMMANDS, ids=lambda command: ' '.join(command[:2]))
@pytest.mark.parametrize(
    ('address', 'why'),
    [
        ('not an address', 'is not HOST:PORT (invalid international domain name)'),
        ('localhost:99999', 'is not HOST:PORT (invalid port number)'),
        ('http://localhost:7233', "is a URL: give HOST:PORT, e.g. 'localhost:7233'"),
    ],
)
def test_a_bad_address_is_one_line_and_exit_status_1(
    command: list[str], address: str, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([*command, '--address', address]) == 1
    out, err = capsys.readouterr()
    assert out == ''
    assert err.splitlines() == [err.strip()], err
    assert err.startswith(f'agents: The Temporal address {address!r} {why}'), err


def test_debug_keeps_the_traceback_of_a_bad_address(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(['status', 'w', '--address', 'not an address', '--debug']) == 1
    err = capsys.readouterr().err
    assert err.startswith('Traceback (most recent call last):')
    assert 'ValueError: invalid target URL: invalid international domain name' in err
    assert err.endswith("agents: The Temporal address 'not an address' is not HOST:PORT (invalid international "
                        'domain name): give one like localhost:7233.\n')  # fmt: skip
