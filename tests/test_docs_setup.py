"""CI runs exactly the set-up commands the README and docs/getting-started.md show.

The two commands install the project and run the checks and the test suite, so no test runs them (a test cannot
run the suite it belongs to, nor install system packages): `.ci/run` does, on every CI run. This pins that its
commands are the pages' own, step for step, so the pages cannot drift from what CI proves. `.ci/run`'s one addition is
a retry of the Chromium install after refreshing Debian's package lists (`|| (apt-get update && ...)`), which repeats
the same command.
"""

from __future__ import annotations

import re

from tests._docs import ROOT, blocks, commands

SECTIONS = (('README.md', 'Set-up'), ('docs/getting-started.md', 'Install'))


def page_commands(page: str, section: str) -> list[str]:
    return [command for block in blocks(page, 'bash', section=section) for command in commands(block.source)]


def steps(command: str) -> list[str]:
    return command.split(' && ')


def ci_steps() -> list[str]:
    """The steps `.ci/run` runs after its preamble (`set`, `cd`), a retry group left out."""
    lines = [line for line in (ROOT / '.ci' / 'run').read_text().splitlines() if line and not line.startswith('#')]
    assert lines[:2] == ['set -euo pipefail', 'cd "$(dirname "$0")/.."'], lines
    found: list[str] = []
    for line in lines[2:]:
        first, retry, rest = line.partition(' || (')
        if retry:
            assert re.fullmatch(rf'apt-get update && {re.escape(first)}\)', rest), line
        found += steps(first)
    return found


def test_the_pages_show_the_same_two_set_up_commands() -> None:
    readme, getting_started = (page_commands(page, section) for page, section in SECTIONS)
    assert readme == getting_started
    assert readme == [
        "apt-get install -y chromium && pip install -e '.[dev]' && npm ci",
        'ruff check . && ruff format --check . && pyright && pytest',
    ]


def test_ci_runs_the_pages_commands_step_for_step() -> None:
    for page, section in SECTIONS:
        assert ci_steps() == [step for command in page_commands(page, section) for step in steps(command)]
