"""The demo command of the README's "Try it" and docs/getting-started.md's "The demo" runs as the pages describe.

The command runs as a person runs it, from a folder of their own, answering `y` at the prompt and then pressing
Enter to stop the dev server. (`agents demo chat`, named in the same sections, runs in
`tests/durable/test_docs_chat.py`.)
"""

from __future__ import annotations

import os
import shlex
import sysconfig
from pathlib import Path

from tests._docs import blocks, commands

from ._processes import run

AGENTS = os.path.join(sysconfig.get_path('scripts'), 'agents')
SECTIONS = (('README.md', 'Try it'), ('docs/getting-started.md', 'The demo'))


def demo_commands() -> set[str]:
    """The distinct commands of the sections' bash blocks (the pages show the same one)."""
    return {
        command
        for page, name in SECTIONS
        for block in blocks(page, 'bash', section=name)
        for command in commands(block.source)
    }


def test_both_pages_show_the_one_demo_command() -> None:
    (command,) = demo_commands()
    assert shlex.split(command, comments=True) == ['agents', 'demo']


def test_the_demo_asks_at_the_terminal_and_prints_the_result_and_the_web_ui_link(tmp_path: Path) -> None:
    (command,) = demo_commands()
    words = shlex.split(command, comments=True)
    done = run([AGENTS, *words[1:]], cwd=tmp_path, input='y\n\n', timeout=120)  # killed with its server past that

    assert done.returncode == 0, done.stderr
    assert 'The agent wants to call delete_file({"path": "old-report.txt"})' in done.stdout
    assert 'Approve deleting old-report.txt? [y/n] y\nApproved.\n' in done.stdout
    assert 'Result: I found old-report.txt and deleted it.' in done.stdout
    assert 'See the run in the Temporal Web UI: http://' in done.stdout
    assert 'Chat with the same agent in a browser: agents chat --agents doors.demo:demo_agent --dev' in done.stdout
    assert done.stdout.endswith('Press Enter to stop the dev server (the link works until then). \n')
