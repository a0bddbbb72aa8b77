"""`python worker.py ...` and `python -m worker ...` are the `agents worker` command (and `--demo`, `agents demo`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def run(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize('entry', [['worker.py'], ['-m', 'worker']])
def test_worker_entry_points_are_agents_worker_with_its_errors(entry: list[str]) -> None:
    done = run(*entry, '--agents', 'nosuch.module:agent')
    assert done.returncode == 1
    assert done.stderr.startswith("agents: Cannot import 'nosuch' for --agents nosuch.module:agent")
    assert len(done.stderr.splitlines()) == 2


def test_worker_py_takes_the_chat_events_and_metrics_flags_of_agents_worker() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith('AGENT_CHAT_EVENTS')}
    done = run('worker.py', '--agents', 'doors.demo:demo_agent', '--chat-events-url', 'http://x/e', env=env)
    assert (done.returncode, done.stderr.splitlines()[0]) == (
        1,
        "agents: --chat-events-url needs the endpoint's token in $AGENT_CHAT_EVENTS_TOKEN.",
    )
    metrics = run('worker.py', '--agents', 'doors.demo:demo_agent', '--dev', '--prometheus-address', '127.0.0.1:0')
    assert metrics.returncode == 1
    assert '--prometheus-address' in metrics.stderr


def test_worker_py_demo_flag_is_agents_demo() -> None:
    done = run('worker.py', '--demo', 'sometimes')
    assert done.returncode == 2
    assert "agents demo: error: argument mode: invalid choice: 'sometimes'" in done.stderr
