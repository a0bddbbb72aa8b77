"""Take `docs/chat.png`, docs/chat.md's picture of the chat page, from that page's own command.

```bash
python docs/screenshot.py            # writes docs/chat.png (or the path given as its argument)
```

It starts `agents chat --dev --agents doors.demo:demo_agent` (the scripted demo agent: no API key) on a fresh
database in a temporary folder, opens the printed address in Debian's Chromium (Playwright), sends a message,
denies the deletion the agent asks for with a reason and gets its answer, then sends a second message and waits
for its approval: the picture shows an answered turn, a pending approval with its buttons, and the inbox listing
the conversation. The tests check that the picture exists and that docs/chat.md shows it; they never retake it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

CHROMIUM = '/usr/bin/chromium'
OUTPUT = Path(__file__).resolve().parent / 'chat.png'
VIEWPORT = {'width': 1200, 'height': 800}
STARTUP_SECONDS = 60.0  # the command starts a dev server (a first start creates its database)
TIMEOUT_MS = 15_000


def start_chat(folder: Path) -> tuple[subprocess.Popen[str], str]:
    """`agents chat --dev --agents doors.demo:demo_agent` in `folder` (a free page port); its process and URL."""
    agents = os.path.join(sysconfig.get_path('scripts'), 'agents')
    command = [agents, 'chat', '--dev', '--agents', 'doors.demo:demo_agent', '--port', '0', '--db', 'chat.db']
    process = subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        if match := re.match(r'Chat with .*?: (http\S+)', line):
            return process, match.group(1)
    process.kill()
    raise SystemExit('The chat command did not print its address.')


def stop(process: subprocess.Popen[str]) -> None:
    """Ctrl-C, as a person stops it."""
    process.send_signal(signal.SIGINT)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()


def take(url: str, output: Path) -> None:
    """Drive the page at `url` to an answered turn and a pending approval, and save it to `output`."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=['--headless=new', '--no-sandbox'])
        page = browser.new_page(viewport=VIEWPORT)  # pyright: ignore[reportArgumentType]
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url)

        page.get_by_label('Message').fill('Tidy up the folder, please.')
        page.get_by_role('button', name='Send').click()
        page.get_by_label('Reason for denying (optional)').fill('Keep it until Friday.')
        page.get_by_role('button', name='Deny').click()
        expect(page.get_by_text('I found old-report.txt and left it alone')).to_be_visible()

        page.get_by_label('Message').fill('Anything else to clean up?')
        page.get_by_role('button', name='Send').click()
        expect(page.get_by_role('button', name='Approve')).to_be_visible()
        expect(page.get_by_role('link', name=re.compile('Tidy up the folder'))).to_be_visible()
        # A window as tall as the conversation, so the picture has all of it (header, both turns, the approval,
        # the inbox) with the message box where a person sees it, at the bottom.
        height = page.evaluate('document.documentElement.scrollHeight')
        page.set_viewport_size({'width': VIEWPORT['width'], 'height': max(VIEWPORT['height'], height)})
        expect(page.get_by_role('button', name='Approve')).to_be_in_viewport()
        page.screenshot(path=str(output))
        browser.close()


def main() -> None:
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_chat(Path(folder))
        try:
            take(url, output)
        finally:
            stop(process)
    print(f'Wrote {output}')


if __name__ == '__main__':
    main()
