"""The README's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).parent.parent / 'README.md'
BLOCKS = re.findall(r'```python\n(.*?)```', README.read_text(), flags=re.DOTALL)


def test_readme_has_python_examples() -> None:
    assert BLOCKS


@pytest.mark.parametrize('source', BLOCKS)
def test_readme_example_runs(source: str, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(source, str(README), 'exec'), {'__name__': 'readme_example'})
    assert capsys.readouterr().out.strip()
