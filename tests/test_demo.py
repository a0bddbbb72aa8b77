"""The README's demo command runs end to end on an embedded dev server, approving or denying."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


@pytest.mark.parametrize(
    ('decision', 'expected'),
    [('approve', 'I found old-report.txt and deleted it.'), ('deny', 'left it alone (The tool call was denied.)')],
)
def test_demo_runs_end_to_end(decision: str, expected: str) -> None:
    done = subprocess.run(
        [sys.executable, 'worker.py', '--demo', decision],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert 'The agent wants to call delete_file({"path": "old-report.txt"})' in done.stdout
    assert expected in done.stdout
    assert '/namespaces/default/workflows/demo-' in done.stdout


def test_demo_asks_at_the_terminal() -> None:
    done = subprocess.run(
        [sys.executable, 'worker.py', '--demo'],
        cwd=ROOT,
        input='y\n',
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert 'Approve deleting old-report.txt? [y/N]' in done.stdout
    assert 'deleted it.' in done.stdout
