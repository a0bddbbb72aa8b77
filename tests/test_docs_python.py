"""Every Python example of the README and of `docs/` runs as written.

A block that prints must print something: an example whose output vanished (an exception swallowed, a loop never
entered) fails. A block that prints nothing is a module other tests import (the README's `myapp/agents.py`, run as
a worker's agents by `tests/durable/test_docs_first_agent.py`): here it must at least import cleanly.
"""

from __future__ import annotations

import pytest

from tests._docs import Block, blocks, page_path, pages

BLOCKS = [block for page in pages() for block in blocks(page, 'python')]


def test_the_pages_have_python_examples() -> None:
    assert {block.page for block in BLOCKS} >= {'README.md', 'docs/getting-started.md', 'docs/approvals.md'}


@pytest.mark.parametrize('block', BLOCKS, ids=[f'{block.page}:{block.line}' for block in BLOCKS])
def test_the_example_runs(block: Block, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(block.source, f'{page_path(block.page)}:{block.line}', 'exec'), {'__name__': 'docs_example'})
    if 'print(' in block.source:
        assert capsys.readouterr().out.strip()
