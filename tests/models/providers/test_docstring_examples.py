"""The code examples in the provider modules' docstrings run as written (keys come from the environment)."""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

from agent.models import Model
from agent.providers import Provider

_PYTHON_BLOCK = re.compile(r'```python\n(.*?)```', re.S)
MODULES = (
    'agent.models.openai',
    'agent.models._openai_chat',
    'agent.models._anthropic',
    'agent.models._google',
    'agent.providers.openai',
)
EXAMPLES = [
    pytest.param(block, id=f'{name}-{index}')
    for name in MODULES
    for index, block in enumerate(_PYTHON_BLOCK.findall(inspect.getsource(importlib.import_module(name))))
]


def test_the_provider_modules_have_examples():
    assert len(EXAMPLES) >= len(MODULES)


@pytest.mark.parametrize('source', EXAMPLES)
def test_a_docstring_example_runs(source: str, monkeypatch: pytest.MonkeyPatch):
    for variable in ('OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY'):
        monkeypatch.setenv(variable, 'key-from-env')
    monkeypatch.delenv('OPENAI_BASE_URL', raising=False)
    namespace: dict[str, object] = {}

    exec(compile(inspect.cleandoc(source), '<docstring>', 'exec'), namespace)

    assert any(isinstance(value, Model | Provider) for value in namespace.values())
