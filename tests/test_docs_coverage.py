"""Every code block of the README and of `docs/` is run by a test, so an example cannot rot unnoticed.

Python blocks all run in `tests/test_docs_python.py`, which collects every one of every page. Shell blocks run where
`EXECUTED_BY` says, by the section they are in: a new shell block in a section listed there joins what that module
runs (its module reads the section's blocks, and checks how many it expects); one in a section listed nowhere fails
here until a test runs it and the section is added. Blocks that show output rather than code are `text`; no other
kind of block may appear.

One pair of commands is not run by pytest: the set-up commands (the README's "Set-up", docs/getting-started.md's
"Install"), which install the project and run the whole suite. `.ci/run` runs them on every CI run, and
`tests/test_docs_setup.py` holds them equal to its commands.
"""

from __future__ import annotations

from tests import test_docs_python
from tests._docs import ROOT, blocks, pages

DURABLE_RUNS_TEST = 'tests/durable/test_docs_durable_runs.py'
CHAT_TEST = 'tests/durable/test_docs_chat.py'
DEPLOYS_TEST = 'tests/durable/test_docs_deploys.py'

EXECUTED_BY: dict[tuple[str, str], str] = {
    ('README.md', 'Set-up'): 'tests/test_docs_setup.py',
    ('README.md', 'Try it'): 'tests/test_docs_demo.py',
    ('README.md', 'A first durable agent'): 'tests/durable/test_docs_first_agent.py',
    ('docs/getting-started.md', 'Install'): 'tests/test_docs_setup.py',
    ('docs/getting-started.md', 'The demo'): 'tests/test_docs_demo.py',
    ('docs/getting-started.md', 'Real models'): 'tests/models/providers/test_docs_real_models.py',
    ('docs/durable-runs.md', 'Serve agents'): DURABLE_RUNS_TEST,
    ('docs/durable-runs.md', 'Start a run from any Temporal client'): DURABLE_RUNS_TEST,
    ('docs/durable-runs.md', 'Drive runs from a terminal or from Python'): DURABLE_RUNS_TEST,
    ('docs/durable-runs.md', 'Run on a schedule'): DURABLE_RUNS_TEST,
    ('docs/approvals.md', 'Answer from a terminal'): DURABLE_RUNS_TEST,
    ('docs/approvals.md', 'RequestInput in durable runs'): 'tests/durable/test_external_event_doors.py',
    ('docs/chat.md', 'Chat in the browser'): CHAT_TEST,
    ('docs/chat.md', 'Serve the page and run the workers elsewhere'): CHAT_TEST,
    ('docs/observability.md', 'Trace durable runs'): 'tests/durable/test_docs_observability.py',
    ('README.md', 'Changing agents while runs wait'): DEPLOYS_TEST,
    ('docs/deploys.md', 'Check before you deploy'): DEPLOYS_TEST,
    ('docs/deploys.md', 'A deploy job that checks first'): DEPLOYS_TEST,
}
"""The test module that runs the shell blocks of each (page, section)."""

KINDS = {'python', 'bash', 'text'}


def test_every_block_is_python_bash_or_text() -> None:
    odd = [f'{b.page}:{b.line}: ```{b.language}' for page in pages() for b in blocks(page) if b.language not in KINDS]
    assert odd == [], 'Mark code as python or bash (and run it in a test), output as text.'


def test_every_python_block_is_run_by_the_python_examples_test() -> None:
    everywhere = [block for page in pages() for block in blocks(page, 'python')]
    assert everywhere == test_docs_python.BLOCKS


def test_every_shell_block_is_in_a_section_a_test_runs() -> None:
    unrun = [
        f'{b.page}:{b.line} (section "{b.section}")'
        for page in pages()
        for b in blocks(page, 'bash')
        if (b.page, b.section) not in EXECUTED_BY
    ]
    assert unrun == [], 'Run these blocks in a test and list their sections in EXECUTED_BY.'


def test_each_listed_section_has_shell_blocks_and_its_test_reads_that_section() -> None:
    for (page, section), module in EXECUTED_BY.items():
        assert blocks(page, 'bash', section=section), f'{page} "{section}" has no shell block: drop it from the list'
        source = (ROOT / module).read_text()
        assert f"'{page}'" in source, f'{module} does not read {page}'
        assert f"'{section}'" in source, f'{module} does not read the section "{section}" of {page}'
