"""The chat commands of docs/chat.md, and `agents demo chat` of the README, work as written, judged in a real browser.

The bash blocks of docs/chat.md's "Chat in the browser" and "Serve the page and run the workers elsewhere" run here;
the README's "Try it" and docs/getting-started.md's "The demo" name `agents demo chat`, which runs here too. Each
command runs as a person would run it, in a folder of their own with no `TEMPORAL_*` settings but those the section
names; the page is the one at the address the command prints, driven in Debian's Chromium. The placeholders of the
workers' command (`<token>`, `<events-url>`) are filled with what the page's command printed. Every command is
stopped with Ctrl-C (SIGINT) and must exit cleanly.
"""

from __future__ import annotations

import queue
import re
import shlex
import signal
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests._docs import DOCS, blocks, page_path, section
from tests._processes import kill_group, popen
from tests.ui.web.test_browser import CHROMIUM, CHROMIUM_ARGS
from worker import temporal_cli_path
from workflows._search_attributes import dev_server_search_attribute_args

from ._cli_helpers import AGENTS, user_env

CHAT = 'docs/chat.md'
IN_THE_BROWSER = 'Chat in the browser'
ELSEWHERE = 'Serve the page and run the workers elsewhere'
STARTUP_SECONDS = 60.0  # a command that starts a dev server (and creates its database) on a busy machine
STOP_SECONDS = 30.0
TURN_MS = 15_000

MYAPP_AGENTS = """\
from agent import Agent

support = Agent('test', name='support')  # answers 'success (no tool calls)', streamed
"""


def bash_lines(heading: str) -> list[str]:
    """The commands of the section's one bash block, one a line."""
    (block,) = blocks(CHAT, 'bash', section=heading)
    return [line.strip() for line in block.source.splitlines() if line.strip()]


@dataclass
class Running:
    """A command that keeps running, and what it has printed so far."""

    process: subprocess.Popen[str]
    lines: queue.Queue[str] = field(default_factory=lambda: queue.Queue[str]())
    seen: list[str] = field(default_factory=list[str])

    def wait_for(self, pattern: str) -> re.Match[str]:
        """The first printed line that matches `pattern` (lines before it are kept in `seen`)."""
        deadline = time.monotonic() + STARTUP_SECONDS
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            self.seen.append(line)
            if (match := re.search(pattern, line)) is not None:
                return match
            if line == '':  # the command ended
                break
        raise AssertionError(f'no line matching {pattern!r}; it printed:\n{"".join(self.seen)}')


@contextmanager
def run(command: str, folder: Path, **env: str) -> Iterator[Running]:
    """Start `command` (a line of the page: leading `NAME=value` words set the environment) in `folder`."""
    words = shlex.split(command, comments=True)
    while re.fullmatch(r'[A-Z_]+=.*', words[0]):
        name, _, value = words.pop(0).partition('=')
        env[name] = value
    assert words[0] == 'agents', command
    with popen(
        [AGENTS, *words[1:]], cwd=folder, env=user_env(**env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    ) as process:
        running = Running(process)
        assert process.stdout is not None
        stdout = process.stdout

        def read() -> None:
            for line in stdout:
                running.lines.put(line)
            running.lines.put('')

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            yield running
        finally:
            process.send_signal(signal.SIGINT)
            try:
                code = process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                kill_group(process.pid)  # with what it started
                process.wait(STOP_SECONDS)
                code = None
            reader.join(STOP_SECONDS)
            stdout.close()
            while not running.lines.empty():
                running.seen.append(running.lines.get())
            assert code == 0, f'{command!r} did not stop cleanly on Ctrl-C ({code}):\n{"".join(running.seen)}'


@pytest.fixture(scope='module')
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: the browser tests need Debian's Chromium (`apt-get install chromium`).")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@contextmanager
def opened(browser: Browser, url: str) -> Iterator[Page]:
    """The page at `url`, failing the test on any console error or uncaught exception."""
    context = browser.new_context()
    context.set_default_timeout(TURN_MS)
    errors: list[str] = []
    page = context.new_page()
    page.on('console', lambda message: errors.append(message.text) if message.type in ('error', 'warning') else None)
    page.on('pageerror', lambda error: errors.append(f'page error: {error}'))
    page.goto(url)
    try:
        yield page
    finally:
        context.close()
    assert errors == []


def send(page: Page, text: str) -> None:
    page.get_by_label('Message').fill(text)
    page.get_by_role('button', name='Send').click()


@pytest.fixture(scope='module')
def server_address() -> Iterator[str]:
    """A Temporal dev server of the module's own (the page's workers use the default task queue).

    A process, not `start_dev_server`: Playwright's sync API owns this thread's event loop once the browser runs.
    """
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        port = probe.getsockname()[1]
    command = [temporal_cli_path(), 'server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', str(port)]
    command += ['--log-level', 'error', *dev_server_search_attribute_args()]
    with popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as process:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:  # bounded: the server listens once it serves
            try:
                socket.create_connection(('127.0.0.1', port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, 'the dev server exited'
                assert time.monotonic() < deadline, 'the dev server did not start'
                time.sleep(0.1)
        yield f'127.0.0.1:{port}'


def test_the_section_shows_the_committed_screenshot_of_the_page():
    (image,) = re.findall(r'!\[[^\]]+\]\(([^)]+)\)', section(CHAT, IN_THE_BROWSER))
    picture = (page_path(CHAT).parent / image).resolve()
    assert picture == DOCS / 'chat.png'
    data = picture.read_bytes()
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    width, height = struct.unpack('>II', data[16:24])  # the IHDR chunk: a picture large enough to read
    assert width >= 1000
    assert height >= 700


def test_the_demo_command_opens_a_page_where_a_turn_asks_for_approval_and_is_answered(browser: Browser, tmp_path: Path):
    (command,) = bash_lines(IN_THE_BROWSER)
    assert shlex.split(command) == ['agents', 'chat', '--dev', '--agents', 'doors.demo:demo_agent']

    with run(command, tmp_path) as chat:
        url = chat.wait_for(r'Chat with file_cleaner: (http://127\.0\.0\.1:\d+/#token=\S+)').group(1)
        assert any('export TEMPORAL_ADDRESS=' in line for line in chat.seen)
        with opened(browser, url) as page:
            send(page, 'Tidy up the folder, please.')
            expect(page.get_by_label('Arguments of delete_file')).to_contain_text('old-report.txt', timeout=TURN_MS)
            page.get_by_role('button', name='Approve').click()
            expect(page.get_by_text('I found old-report.txt and deleted it.')).to_be_visible(timeout=TURN_MS)
            expect(page.get_by_role('button', name='Approve')).to_have_count(0)


def test_the_demo_chat_command_the_readme_names_opens_the_chat_page(browser: Browser, tmp_path: Path):
    assert 'agents demo chat' in section('README.md', 'Try it')
    assert 'agents demo chat' in section('docs/getting-started.md', 'The demo')

    with run('agents demo chat', tmp_path) as chat:
        url = chat.wait_for(r'Chat with file_cleaner: (http://127\.0\.0\.1:\d+/#token=\S+)').group(1)
        with opened(browser, url) as page:
            send(page, 'Tidy up the folder, please.')
            expect(page.get_by_label('Arguments of delete_file')).to_contain_text('old-report.txt', timeout=TURN_MS)
            expect(page.get_by_role('button', name='Approve')).to_be_visible()


def test_the_page_without_a_worker_streams_turns_run_by_a_worker_started_elsewhere(
    browser: Browser, tmp_path: Path, server_address: str
):
    serve_page, serve_agents = bash_lines(ELSEWHERE)
    (tmp_path / 'myapp').mkdir()
    (tmp_path / 'myapp' / '__init__.py').write_text('')
    (tmp_path / 'myapp' / 'agents.py').write_text(MYAPP_AGENTS)
    # Connected by the environment alone, as the section says.
    environment = {'TEMPORAL_ADDRESS': server_address}

    with run(serve_page, tmp_path, **environment) as chat:
        url = chat.wait_for(r'Chat with support: (http://\S+)').group(1)
        published = chat.wait_for(r'AGENT_CHAT_EVENTS_URL=(\S+) AGENT_CHAT_EVENTS_TOKEN=(\S+)')
        events_url, token = published.group(1), published.group(2)
        worker_command = serve_agents.replace('<token>', token).replace('<events-url>', events_url)
        assert '<' not in worker_command
        with run(worker_command, tmp_path, **environment) as worker:
            worker.wait_for(r'Worker running support')
            with opened(browser, url) as page:
                send(page, 'Hello from the docs')
                answer = page.locator('li.message.assistant > .text').last
                expect(answer).to_have_text('success (no tool calls)', timeout=TURN_MS)
