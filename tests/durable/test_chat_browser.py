"""The chat page over durable conversations in a real browser, with the workers in their own processes.

The chat server runs here (a uvicorn thread with its own event loop); the workers are `python -m worker`
subprocesses that publish their turns' events to it over HTTP (`--chat-events-url`), so a worker can be killed
with SIGKILL while it streams and another one takes over.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest
import uvicorn
from playwright.sync_api import Browser, Locator, Page, Response, expect, sync_playwright
from temporalio.testing import WorkflowEnvironment

from doors.chat import TURN_EVENTS_PATH
from doors.chat.__main__ import build_chat_server
from tests._processes import kill_group
from tests.ui.web.test_browser import CHROMIUM, CHROMIUM_ARGS, TOKEN, Pages, conversation, send
from worker import CHAT_EVENTS_TOKEN_ENV, CHAT_EVENTS_URL_ENV, connect

ROOT = Path(__file__).resolve().parents[2]
AGENT = 'tests.durable.chat_browser_agent:assistant'
EVENTS_TOKEN = 'durable-browser-events-token'
BOUND = 10.0  # seconds a server or worker process may take to start
STARTUP_BOUND = 60.0  # seconds a worker may take to poll its task queue on a busy machine (it imports the project)
# A turn's first words reach the page within seconds, and later than Playwright's default 5 s on a busy machine.
expect.set_options(timeout=20_000)
# A killed worker's model request is retried once its heartbeat times out, on a new worker, whose process takes
# several seconds to start on a busy machine; the wait for the page to follow the turn again covers both.
RECOVERY_MS = int(STARTUP_BOUND * 1000) + 60_000
INBOX_MS = 10_000  # visibility is eventually consistent and the inbox polls
BROWSER_REPORT_OF_503 = 'Failed to load resource: the server responded with a status of 503 (Service Unavailable)'


@contextmanager
def chat_server(address: str, task_queue: str) -> Iterator[str]:
    """Serve the durable chat app (with the workers' events endpoint) in a thread; yields its base URL."""
    listener = socket.create_server(('127.0.0.1', 0))
    port = listener.getsockname()[1]
    servers: list[uvicorn.Server] = []
    failures: list[BaseException] = []

    async def serve() -> None:
        client = await connect(address)
        chat = build_chat_server(client, ['assistant'], task_queue=task_queue, token=TOKEN, events_token=EVENTS_TOKEN)
        server = uvicorn.Server(
            uvicorn.Config(chat.app, log_level='warning', lifespan='off', timeout_graceful_shutdown=1)
        )
        servers.append(server)
        try:
            await server.serve(sockets=[listener])
        finally:
            chat.backend.close()

    def run() -> None:
        try:
            asyncio.run(serve())
        except BaseException as exc:
            failures.append(exc)

    thread = threading.Thread(target=run, name='chat-server', daemon=True)
    thread.start()
    deadline = time.monotonic() + BOUND
    while not (servers and servers[0].started):  # bounded: the server is up when uvicorn says so
        if failures or not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f'The chat server did not start: {failures!r}')
        time.sleep(0.01)
    try:
        yield f'http://127.0.0.1:{port}'
    finally:
        servers[0].should_exit = True
        thread.join(BOUND)
        listener.close()


class Workers:
    """`python -m worker` subprocesses publishing their turns' events to the chat server over HTTP."""

    def __init__(self, address: str, task_queue: str, events_url: str, gates: Path, logs: Path) -> None:
        self.address = address
        self.task_queue = task_queue
        self.events_url = events_url
        self.gates = gates
        self.logs = logs
        self.processes: list[subprocess.Popen[bytes]] = []
        self._log_files: list[IO[bytes]] = []

    def start(self) -> subprocess.Popen[bytes]:
        """Start a worker and return once it polls the task queue (the page answers 503 while none does)."""
        path = self.logs / f'worker-{len(self.processes)}.log'
        log = path.open('wb')
        self._log_files.append(log)
        env = {
            **os.environ,
            CHAT_EVENTS_URL_ENV: self.events_url,
            CHAT_EVENTS_TOKEN_ENV: EVENTS_TOKEN,
            'CHAT_GATES': str(self.gates),
            'PYTHONPATH': str(ROOT),
        }
        command = [sys.executable, '-m', 'worker', '--agents', AGENT, '--address', self.address]
        command += ['--task-queue', self.task_queue, '--graceful-shutdown', '0']
        # A group of its own, so that `stop` can kill whatever it might have started with it.
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.processes.append(process)
        deadline = time.monotonic() + STARTUP_BOUND
        while b'Worker running' not in path.read_bytes():  # bounded: a worker that cannot start fails the test
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f'The worker did not start: {path.read_bytes()[-2000:].decode(errors="replace")}')
            time.sleep(0.05)
        return process

    def kill_running(self) -> None:
        """SIGKILL every running worker: no chance to finish or report anything."""
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                process.wait(BOUND)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
        for process in self.processes:
            try:
                process.wait(BOUND)
            except subprocess.TimeoutExpired:
                kill_group(process.pid)
                process.wait(BOUND)
        for log in self._log_files:
            log.close()


@pytest.fixture(scope='module')
def queue() -> str:
    return f'chat-browser-{uuid.uuid4().hex[:8]}'


@pytest.fixture(scope='module')
def base_url(temporal_env: WorkflowEnvironment, queue: str) -> Iterator[str]:
    with chat_server(temporal_env.client.service_client.config.target_host, queue) as url:
        yield url


@pytest.fixture(scope='module')
def gates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the test opens the agent's gates (see `chat_browser_agent`)."""
    return tmp_path_factory.mktemp('gates')


@pytest.fixture(scope='module')
def workers(
    temporal_env: WorkflowEnvironment, queue: str, base_url: str, gates: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Workers]:
    workers = Workers(
        temporal_env.client.service_client.config.target_host,
        queue,
        f'{base_url}{TURN_EVENTS_PATH}',
        gates,
        tmp_path_factory.mktemp('workers'),
    )
    workers.start()
    try:
        yield workers
    finally:
        workers.stop()


@pytest.fixture(scope='module')
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: the browser tests need Debian's Chromium (`apt-get install chromium`).")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def pages(browser: Browser, base_url: str, workers: Workers) -> Iterator[Pages]:
    pages = Pages(browser, base_url)
    yield pages
    pages.context.close()
    assert pages.errors == []


def open_gate(gates: Path, name: str) -> None:
    (gates / name).touch()


def answers(page: Page) -> Locator:
    return page.locator('li.message.assistant > .text')


def resumed_stream(response: Response) -> bool:
    """The page resumed a running turn's stream."""
    return response.url.endswith('/stream') and response.status == 200


def unavailable(response: Response) -> bool:
    """The chat server could not serve a request of the page: no worker polls the task queue."""
    return response.status == 503


def take_reports_of_unavailable(pages: Pages) -> int:
    """Take the browser's own reports of 503 answers out of `pages.errors`; return how many there were.

    Chromium logs every answer with an error status as a console error, whatever the page does with it. The page
    waits out a 503 (no worker yet) and says so quietly; any other console error or uncaught error still fails the
    test.
    """
    reports = [e for e in pages.errors if e == f'console error: {BROWSER_REPORT_OF_503}']
    for report in reports:
        pages.errors.remove(report)
    return len(reports)


def assert_shown_once(page: Page, text: str) -> None:
    """`text` is the page's only answer, and appears in the conversation exactly once."""
    expect(answers(page)).to_have_text([text])
    assert conversation(page).inner_text().count(text) == 1
    expect(page.get_by_role('alert')).to_have_count(0)


def test_a_message_streams_in_from_a_worker_process(pages: Pages, gates: Path):
    page = pages.open()
    send(page, 'tell me about gate-stream rivers')

    expect(answers(page).last).to_have_text('You')
    expect(page.get_by_role('button', name='Stop')).to_be_visible()
    open_gate(gates, 'gate-stream')

    assert_shown_once(page, 'You said: tell me about gate-stream rivers')
    expect(page.get_by_role('button', name='Send')).to_be_visible()


def test_an_approved_tool_call_continues_the_durable_run(pages: Pages):
    page = pages.open()
    send(page, 'please delete the report')

    expect(page.get_by_label('Arguments of delete_file')).to_contain_text('/tmp/report.txt')
    page.get_by_role('button', name='Approve').click()

    expect(page.get_by_text('Deleted: /tmp/report.txt is gone')).to_be_visible()
    expect(page.get_by_role('button', name='Approve')).to_have_count(0)


def test_a_denial_reason_reaches_the_model_of_the_durable_run(pages: Pages):
    page = pages.open()
    send(page, 'delete the report now')

    page.get_by_label('Reason for denying (optional)').fill('that report is still needed')
    page.get_by_role('button', name='Deny').click()

    expect(page.get_by_text('Not deleted, because: that report is still needed')).to_be_visible()


def test_the_inbox_in_another_tab_lists_a_waiting_durable_conversation(pages: Pages):
    chat = pages.open()
    send(chat, 'delete the inbox test file')
    expect(chat.get_by_role('button', name='Approve')).to_be_visible()

    inbox_tab = pages.open()
    entry = inbox_tab.get_by_role('link', name=re.compile('delete the inbox test file'))
    expect(entry).to_contain_text('delete_file', timeout=INBOX_MS)
    entry.click()

    inbox_tab.get_by_role('button', name='Approve').click()
    expect(inbox_tab.get_by_text('Deleted: /tmp/report.txt is gone')).to_be_visible()


def test_a_reload_mid_stream_resumes_the_answer_once(pages: Pages, gates: Path):
    page = pages.open()
    send(page, 'reload gate-reload in the middle')
    expect(answers(page).last).to_have_text('You')

    page.reload()

    expect(answers(page)).to_have_text(['You'])
    open_gate(gates, 'gate-reload')
    assert_shown_once(page, 'You said: reload gate-reload in the middle')
    expect(conversation(page).get_by_text('reload gate-reload in the middle', exact=True)).to_have_count(1)


def test_a_turn_whose_worker_is_killed_mid_stream_finishes_on_a_new_worker_shown_once(
    pages: Pages, workers: Workers, gates: Path
):
    page = pages.open()
    send(page, 'survive gate-crash the worker crash')
    expect(answers(page).last).to_have_text('You')

    # Once the heartbeat times out, the model request runs again on the new worker and streams its first word
    # again: the hub drops the dead attempt's events, the page's stream ends unfinished, and the page resumes (on a
    # busy machine the server may answer 503 until the new worker serves queries, which the page waits out).
    with page.expect_response(resumed_stream, timeout=RECOVERY_MS):
        workers.kill_running()
        workers.start()
    expect(answers(page)).to_have_text(['You'])
    open_gate(gates, 'gate-crash')

    assert_shown_once(page, 'You said: survive gate-crash the worker crash')
    expect(page.get_by_role('button', name='Send')).to_be_visible()
    take_reports_of_unavailable(pages)


def test_a_page_reopened_while_no_worker_serves_its_turn_waits_quietly_and_finishes_it_once_one_does(
    pages: Pages, workers: Workers, gates: Path
):
    page = pages.open()
    send(page, 'wait out gate-outage the worker outage')
    expect(answers(page).last).to_have_text('You')
    workers.kill_running()

    # With no worker the server cannot read the conversation: the reopened page is answered 503, and waits.
    with page.expect_response(unavailable, timeout=RECOVERY_MS):
        page.reload()
    expect(page.get_by_role('status')).to_have_text('Reconnecting…')
    expect(page.get_by_role('alert')).to_have_count(0)

    # A worker at last: the page reads the conversation, follows the turn the new worker finishes, and stops waiting.
    with page.expect_response(resumed_stream, timeout=RECOVERY_MS):
        workers.start()
    expect(page.get_by_role('status')).to_have_count(0)
    expect(answers(page)).to_have_text(['You'])
    open_gate(gates, 'gate-outage')

    assert_shown_once(page, 'You said: wait out gate-outage the worker outage')
    expect(page.get_by_role('button', name='Send')).to_be_visible()
    assert take_reports_of_unavailable(pages) >= 1
