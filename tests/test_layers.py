"""The house reads one way: each top-level part imports only the parts below it.

    agent  ->  activities  ->  workflows  ->  worker  ->  doors  ->  deploy

`agent` is the runtime (no Temporal), `activities` what runs in activities, `workflows` the workflow and the client
API over it, `worker` assembles and runs workers, `doors` are the front doors (the `agents` command, the chat server,
the demo) and `deploy` the operator's commands and container files. Every import counts, wherever it is written
(module level, inside a function, under `TYPE_CHECKING`) and so does a module named to `importlib.import_module` or
`runpy`, so a cycle cannot be dodged by moving an import into a function. Two things are not imports of the module
that holds them: a script's `if __name__ == '__main__':` block (it runs only as a program, never on import) and the
compatibility aliases listed below, which keep earlier documented paths working.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._source import parse_file

ROOT = Path(__file__).parents[1]

LAYERS = ('agent', 'activities', 'workflows', 'worker', 'doors', 'deploy')
"""The top-level parts, bottom first: each may import those before it, never one after it."""

COMPATIBILITY_ALIASES = {
    # `from workflows.chat import ...` and `python -m workflows.chat`, documented before the chat server moved to
    # `doors.chat`: names resolved on first use, so importing `workflows` never loads it (checked below).
    'workflows.chat': 'doors.chat',
    'workflows.chat.__main__': 'doors.chat',
}
"""Modules that only re-export a part above them under an earlier path, and what they re-export."""

DYNAMIC_IMPORTERS = {'import_module', 'run_module', 'find_spec'}


def _modules(part: str) -> Iterator[tuple[str, Path]]:
    single = ROOT / f'{part}.py'
    if single.exists():
        yield part, single
        return
    for path in sorted((ROOT / part).rglob('*.py')):
        names = list(path.relative_to(ROOT).with_suffix('').parts)
        if names[-1] == '__init__':
            names.pop()
        yield '.'.join(names), path


def _is_main_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test).replace('"', "'") == "__name__ == '__main__'"


def _imported(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """Every module `module` imports, with the line: statements anywhere, and names given to dynamic importers."""
    is_package = path.name == '__init__.py'
    tree = parse_file(path)
    skipped = {id(child) for node in tree.body if _is_main_block(node) for child in ast.walk(node)}
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split('.') if is_package else module.split('.')[:-1]
                base = base[: len(base) - (node.level - 1)]
                yield '.'.join([*base, *([node.module] if node.module else [])]), node.lineno
            else:
                yield node.module or '', node.lineno
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, 'id', '')
            first = node.args[0] if node.args else None
            if name in DYNAMIC_IMPORTERS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield first.value, node.lineno


def _upward_imports() -> list[str]:
    found = []
    for floor, part in enumerate(LAYERS):
        above = set(LAYERS[floor + 1 :])
        for module, path in _modules(part):
            if module in COMPATIBILITY_ALIASES:
                continue
            for target, line in _imported(module, path):
                if target.split('.')[0] in above:
                    found.append(f'{path.relative_to(ROOT)}:{line}: {part} imports {target}')
    return found


def test_every_part_imports_only_the_parts_below_it():
    assert _upward_imports() == []


def test_the_check_sees_imports_hidden_in_functions_and_dynamic_ones(tmp_path: Path):
    """The parser the layer check relies on finds the imports that would dodge it."""
    source = textwrap.dedent(
        """
        import importlib
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from doors.cli import main

        def late():
            from worker import build_worker
            return importlib.import_module('deploy.healthcheck')

        if __name__ == '__main__':
            from doors.chat import serve
        """
    )
    path = tmp_path / 'sample.py'
    path.write_text(source)
    assert sorted(target for target, _ in _imported('workflows.sample', path)) == [
        'deploy.healthcheck',
        'doors.cli',
        'importlib',
        'typing',
        'worker',
    ]


def test_the_top_level_parts_form_no_cycle():
    """An import graph of the parts (aliases aside) is acyclic: ordering it bottom-up leaves nothing over."""
    edges: dict[str, set[str]] = {part: set() for part in LAYERS}
    for part in LAYERS:
        for module, path in _modules(part):
            if module in COMPATIBILITY_ALIASES:
                continue
            edges[part] |= {t.split('.')[0] for t, _ in _imported(module, path)} & set(LAYERS) - {part}
    ordered: list[str] = []
    while len(ordered) < len(LAYERS):
        ready = [part for part in LAYERS if part not in ordered and edges[part] <= set(ordered)]
        assert ready, f'a cycle among {sorted(set(LAYERS) - set(ordered))}: {edges}'
        ordered += ready
    assert ordered.index('agent') < ordered.index('workflows') < ordered.index('doors')


@pytest.mark.parametrize('alias', sorted(COMPATIBILITY_ALIASES))
def test_a_compatibility_alias_holds_no_code_of_its_own(alias: str):
    """An alias re-exports: no classes, and no functions but PEP 562's `__getattr__` / `__dir__`."""
    path = dict(_modules(alias.split('.')[0]))[alias]
    tree = parse_file(path)
    defined = [
        node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    assert set(defined) <= {'__getattr__', '__dir__'}
    assert COMPATIBILITY_ALIASES[alias] in path.read_text()


def test_the_lower_parts_load_without_the_front_doors():
    """Importing the runtime, the workflow with every public name, the client API and the worker loads no part
    above `worker`: the aliases resolve their names only when used."""
    script = textwrap.dedent(
        """
        import sys
        import activities, agent, worker, workflows, workflows.chat, workflows.client
        for name in workflows.__all__:
            getattr(workflows, name)
        loaded = sorted({name.split('.')[0] for name in sys.modules} & {'doors', 'deploy'})
        print(','.join(loaded))
        """
    )
    result = subprocess.run(
        [sys.executable, '-c', script], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.strip() == ''


def test_the_earlier_chat_path_still_serves_its_names():
    import doors.chat
    import workflows.chat

    assert workflows.chat.DurableChatBackend is doors.chat.DurableChatBackend
    assert set(doors.chat.__all__) <= set(dir(workflows.chat))
    with pytest.raises(AttributeError):
        _ = workflows.chat.NoSuchName
