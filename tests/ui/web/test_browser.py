"""The chat page in a real browser (Debian's Chromium driven by Playwright): what a person does, end to end."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Locator, Page, expect, sync_playwright

from agent.ui.web import InProcessChatBackend, bearer_token_auth, create_chat_app
from tests.ui.web._agents import chat_agent, other_agent
from tests.ui.web._server import serve

CHROMIUM = Path('/usr/bin/chromium')
CHROMIUM_ARGS = [
    '--headless=new',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
]
TOKEN = 'browser-test-token'
TIMEOUT_MS = 5000


@pytest.fixture(scope='module')
def base_url() -> Iterator[str]:
    backend = InProcessChatBackend({'assistant': chat_agent(delay=0.15), 'other': other_agent()})
    with serve(create_chat_app(backend, auth=bearer_token_auth(TOKEN))) as url:
        yield url


@pytest.fixture(scope='module')
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: the browser tests need Debian's Chromium (`apt-get install chromium`).")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Pages:
    """Opens pages in one browser context and records every console error and uncaught exception on them."""

    def __init__(self, browser: Browser, base_url: str) -> None:
        self.context = browser.new_context()
        self.context.set_default_timeout(TIMEOUT_MS)
        self.base_url = base_url
        self.errors: list[str] = []

    def open(self, fragment: str = f'#token={TOKEN}') -> Page:
        page = self.context.new_page()
        page.on('console', self._on_console)
        page.on('pageerror', lambda error: self.errors.append(f'page error: {error}'))
        page.goto(f'{self.base_url}/{fragment}')
        return page

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type in ('error', 'warning'):
            self.errors.append(f'console {message.type}: {message.text}')


@pytest.fixture
def pages(browser: Browser, base_url: str) -> Iterator[Pages]:
    pages = Pages(browser, base_url)
    yield pages
    pages.context.close()
    assert pages.errors == []


def conversation(page: Page) -> Locator:
    return page.get_by_role('region', name='Conversation')


def send(page: Page, text: str) -> None:
    page.get_by_label('Message').fill(text)
    page.get_by_role('button', name='Send').click()


def test_a_sent_message_gets_an_answer_that_streams_in(pages: Pages):
    page = pages.open()
    send(page, 'tell me a long story about streams')

    answer = page.locator('li.message.assistant > .text').last
    # Mid-stream: the first words are shown, the last is not yet, and the turn can be stopped.
    expect(answer).to_contain_text('You said: tell')
    expect(page.get_by_role('button', name='Stop')).to_be_visible()
    assert 'streams' not in answer.inner_text()
    expect(answer).to_have_text('You said: tell me a long story about streams')
    expect(page.get_by_role('button', name='Send')).to_be_visible()
    expect(page.get_by_text('Reasoning')).to_be_visible()


def test_an_approved_tool_call_runs_and_the_agent_answers(pages: Pages):
    page = pages.open()
    send(page, 'please delete the report')

    expect(page.get_by_label('Arguments of delete_file')).to_contain_text('/tmp/report.txt')
    page.get_by_role('button', name='Approve').click()

    expect(page.get_by_text('Deleted: /tmp/report.txt is gone')).to_be_visible()
    expect(page.get_by_label('Result of delete_file')).to_contain_text('/tmp/report.txt is gone')
    expect(page.get_by_role('button', name='Approve')).to_have_count(0)


def test_a_denial_reason_reaches_the_model(pages: Pages):
    page = pages.open()
    send(page, 'delete the report now')

    page.get_by_label('Reason for denying (optional)').fill('that report is still needed')
    page.get_by_role('button', name='Deny').click()

    expect(page.get_by_text('Not deleted, because: that report is still needed')).to_be_visible()
    expect(page.get_by_text('Denied: that report is still needed')).to_be_visible()


def test_the_inbox_in_another_tab_lists_a_waiting_conversation_and_opens_it(pages: Pages):
    chat = pages.open()
    send(chat, 'delete the inbox test file')
    expect(chat.get_by_role('button', name='Approve')).to_be_visible()
    conversation_url = chat.url

    inbox_tab = pages.open()
    entry = inbox_tab.get_by_role('link', name=re.compile('delete the inbox test file'))
    expect(entry).to_contain_text('delete_file')
    entry.click()

    assert inbox_tab.url == conversation_url
    expect(conversation(inbox_tab).get_by_text('delete the inbox test file', exact=True)).to_be_visible()
    inbox_tab.get_by_role('button', name='Approve').click()
    expect(inbox_tab.get_by_text('Deleted: /tmp/report.txt is gone')).to_be_visible()
    expect(inbox_tab.get_by_role('link', name=re.compile('delete the inbox test file'))).to_have_count(0)


def test_a_reloaded_conversation_is_restored_from_the_server(pages: Pages):
    page = pages.open()
    send(page, 'remember this line')
    expect(page.get_by_text('You said: remember this line')).to_be_visible()
    send(page, 'delete after reload')
    expect(page.get_by_role('button', name='Approve')).to_be_visible()

    page.reload()

    expect(page.get_by_text('You said: remember this line')).to_have_count(1)
    expect(conversation(page).get_by_text('remember this line', exact=True)).to_have_count(1)
    page.get_by_role('button', name='Approve').click()
    expect(page.get_by_text('Deleted: /tmp/report.txt is gone')).to_be_visible()


def test_a_reload_mid_stream_resumes_the_answer_once(pages: Pages):
    page = pages.open()
    send(page, 'one two three four five six seven eight')
    answer = page.locator('li.message.assistant > .text').last
    expect(answer).to_contain_text('You said:')

    page.reload()

    expected = 'You said: one two three four five six seven eight'
    expect(page.locator('li.message.assistant > .text')).to_have_text([expected])
    expect(conversation(page).get_by_text('one two three four five six seven eight', exact=True)).to_have_count(1)


def test_the_stop_button_ends_the_turn(pages: Pages):
    page = pages.open()
    send(page, 'a b c d e f g h i j k l m n o p')
    expect(page.locator('li.message.assistant > .text').last).to_contain_text('You said:')

    page.get_by_role('button', name='Stop').click()

    expect(page.get_by_role('button', name='Send')).to_be_visible()
    send(page, 'after the stop')
    expect(page.get_by_text('You said: after the stop')).to_be_visible()


def test_a_page_without_a_token_asks_for_one(pages: Pages):
    page = pages.open(fragment='')
    page.get_by_label('Access token').fill(TOKEN)
    page.get_by_role('button', name='Save token').click()
    expect(page.get_by_role('combobox', name='Agent')).to_have_value('assistant')
