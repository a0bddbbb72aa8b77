"""The demo runs end to end on an embedded dev server, approving or denying, and behaves at the terminal.

Driven as a person would: the installed `agents demo ...`, with its input through stdin.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sysconfig
import time
import urllib.request
from pathlib import Path

import pytest

from ._processes import popen, run

ROOT = Path(__file__).parent.parent
AGENTS = os.path.join(sysconfig.get_path('scripts'), 'agents')
PROMPT = 'Approve deleting old-report.txt? [y/n] '


def demo(*args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """`agents demo ARGS...` to its end; killed with its dev server if it takes over 120 s."""
    return run([AGENTS, 'demo', *args], cwd=ROOT, input=input, timeout=120)


def read_until(process: subprocess.Popen[str], text: str, timeout: float = 60) -> str:
    """What `process` has printed once it has printed `text` (bounded by `timeout`)."""
    assert process.stdout is not None
    out = ''
    deadline = time.monotonic() + timeout
    while text not in out:
        assert time.monotonic() < deadline, out
        if select.select([process.stdout], [], [], 1)[0]:
            chunk = os.read(process.stdout.fileno(), 4096).decode()
            if not chunk:  # it ended first: say how, with what it printed to stderr
                process.wait(timeout=30)
                err = process.stderr.read() if process.stderr is not None else b''
                raise AssertionError(f'exit {process.returncode}; stdout: {out!r}; stderr: {err!r}')
            out += chunk
    return out


@pytest.mark.parametrize(
    ('decision', 'expected', 'usage'),
    [
        ('approve', 'I found old-report.txt and deleted it.', 'Usage: 3 model requests, 2 tool calls'),
        ('deny', 'left it alone (The tool call was denied.)', 'Usage: 3 model requests, 1 tool call\n'),
    ],
)
def test_demo_runs_end_to_end(decision: str, expected: str, usage: str) -> None:
    done = demo(decision)
    assert done.returncode == 0, done.stderr
    assert 'The agent wants to call delete_file({"path": "old-report.txt"})' in done.stdout
    assert expected in done.stdout
    assert '/namespaces/default/workflows/demo-' in done.stdout
    assert usage in done.stdout
    assert 'Chat with the same agent in a browser: agents chat --agents doors.demo:demo_agent --dev' in done.stdout
    assert 'The dev server stops now' in done.stdout


def test_demo_asks_at_the_terminal_after_saying_where_the_server_is_and_asks_again_on_empty_input() -> None:
    done = demo(input='\nmaybe\ny\n')
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.index('Temporal dev server at 127.0.0.1:') < out.index(PROMPT)
    assert 'Temporal Server:' not in out  # the server's own banner, which used to land after the prompt
    assert out.count(PROMPT) == 3
    assert out.count('Please answer y (approve) or n (deny).') == 2
    assert 'deleted it.' in out
    assert 'Traceback' not in done.stderr


def test_demo_denies_when_the_input_ends_instead_of_failing() -> None:
    done = demo(input='')
    assert done.returncode == 0, done.stderr
    assert 'No answer (the input has ended): denying.' in done.stdout
    assert 'left it alone' in done.stdout


def test_demo_keeps_the_web_ui_link_alive_until_enter() -> None:
    with popen([AGENTS, 'demo'], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as process:
        assert process.stdin is not None
        read_until(process, PROMPT)
        process.stdin.write('y\n')
        process.stdin.flush()
        out = read_until(process, 'Press Enter to stop the dev server')
        link = out.split('See the run in the Temporal Web UI: ', 1)[1].split()[0]
        with urllib.request.urlopen(link, timeout=30) as page:  # the Web UI serves the run's page
            assert page.status == 200
        process.stdin.write('\n')
        process.stdin.flush()
        assert process.wait(timeout=60) == 0


def test_the_first_ctrl_c_at_the_prompt_exits_at_once() -> None:
    with popen(
        [AGENTS, 'demo'], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        read_until(process, PROMPT)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=15) == 130
        assert 'Traceback' not in (process.stderr.read() if process.stderr else '')
