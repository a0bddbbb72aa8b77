"""The runtime reads bottom-up: value types at the bottom, the run machinery above them.

    messages and parts, usage, exceptions, content, settings, tool definitions   (BOTTOM)
        ^
    output, run context, instructions, tool and function schemas, ...
        ^
    models, toolsets, capabilities, the run graph (`_agent_graph*`), the `Agent` class, the `agent` package

A bottom module imports only other bottom modules, so messages and parts can be read, serialized and sent to an
activity without loading an agent, a model or a toolset. Imports under `TYPE_CHECKING` are for annotations and do
not count; an import inside a function counts (it is a dependency all the same, only a later one).

Across the whole package, module-level imports form no cycle. As in `/work/notes/cycles.py`, `from . import x` and
`from agent import x` count as importing the package (`agent/__init__.py` imports nearly everything): a module
imports what it needs from the module that defines it.
"""

from __future__ import annotations

import ast
import functools
import textwrap
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from tests._source import parse_file

ROOT = Path(__file__).parents[1]

BOTTOM = (
    'agent.exceptions',
    'agent.usage',
    'agent.settings',
    'agent._env',
    'agent._media_types',
    'agent._content',
    'agent._tool_parts',
    'agent._typed_tool_parts',
    'agent._parts',
    'agent._part_deltas',
    'agent._thinking_part',
    'agent._events',
    'agent.messages',
    'agent._deferred',
    'agent._signature_types',
    'agent._signature_schema',
    'agent.function_signature',
    'agent._tool_def',
    'agent.builtin_tools',
    'agent._native_tool_search',
    'agent.native_tools',
)
"""The value types: messages and parts, usage, exceptions, content, settings, tool definitions, native tools."""

ABOVE = (
    'agent._agent',  # also every `agent._agent_graph*` and `agent._agent*` module
    'agent.agent',
    'agent.run',
    'agent._call_tools',
    'agent._call_output',
    'agent._tool_manager',
    'agent.toolsets',
    'agent.capabilities',
    'agent.models',
)
"""Prefixes of the modules a bottom module must never import: the run graph, agents, toolsets, capabilities, models."""


def _modules(root: Path, package: str) -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for path in sorted((root / package).rglob('*.py')):
        names = list(path.relative_to(root).with_suffix('').parts)
        if names[-1] == '__init__':
            names.pop()
        modules['.'.join(names)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == 'TYPE_CHECKING') or (
        isinstance(test, ast.Attribute) and test.attr == 'TYPE_CHECKING'
    )


def _import_statements(
    nodes: Iterable[ast.AST], in_function: bool = False
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement with whether it sits in a function, skipping `if TYPE_CHECKING:` bodies."""
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, in_function
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _import_statements(node.orelse, in_function)
        else:
            function = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            yield from _import_statements(ast.iter_child_nodes(node), in_function or function)


@functools.cache
def _imports(root: Path, package: str, *, functions: bool) -> dict[str, set[str]]:
    """The package's modules each with the package modules it imports (at module level, or anywhere).

    Cached: the parametrized tests share one parse of the package (a test reads the result, never changes it).
    """
    modules = _modules(root, package)
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets: set[str] = set()
        for node, in_function in _import_statements(parse_file(path).body):
            if in_function and not functions:
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = module.split('.') if path.name == '__init__.py' else module.split('.')[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    source = '.'.join([*base, *([node.module] if node.module else [])])
                else:
                    source = node.module or ''
                # `from pkg import x` imports `pkg` (its `__init__` runs), and the module `pkg.x` if there is one.
                names = [source, *(f'{source}.{alias.name}' for alias in node.names)]
            for name in names:
                while name and name not in modules:
                    name = name.rpartition('.')[0]
                if name and name != module:
                    targets.add(name)
        graph[module] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _is_above(module: str) -> bool:
    return module == 'agent' or any(module == p or module.startswith((f'{p}.', f'{p}_')) for p in ABOVE)


@pytest.mark.parametrize('module', BOTTOM)
def test_a_bottom_module_never_imports_the_graph_agents_toolsets_capabilities_or_models(module: str):
    imported = _imports(ROOT, 'agent', functions=True)[module]
    assert sorted(target for target in imported if _is_above(target)) == []


@pytest.mark.parametrize('module', BOTTOM)
def test_a_bottom_module_imports_only_other_bottom_modules(module: str):
    """Nothing in the middle either: a path up through a middle module would bring the top back in."""
    imported = _imports(ROOT, 'agent', functions=True)[module]
    assert sorted(imported - set(BOTTOM)) == []


def test_the_bottom_list_names_modules_that_exist_and_none_above():
    modules = _modules(ROOT, 'agent')
    assert [module for module in BOTTOM if module not in modules or _is_above(module)] == []


def test_the_agent_package_has_no_module_level_import_cycle():
    """Were there one, a module in it could only be imported after the others had half-run."""
    assert _cycles(_imports(ROOT, 'agent', functions=False)) == []


def test_the_checks_see_package_imports_and_function_imports_but_not_type_checking_ones(tmp_path: Path):
    package = tmp_path / 'pkg'
    package.mkdir()
    (package / '__init__.py').write_text('from .top import Top\n')
    (package / 'top.py').write_text('from .low import Low\n\nclass Top: ...\n')
    (package / 'helper.py').write_text('')
    (package / 'low.py').write_text(
        textwrap.dedent(
            """
            from typing import TYPE_CHECKING

            from . import helper

            if TYPE_CHECKING:
                from .top import Top

            class Low:
                def top(self) -> 'Top':
                    from .top import Top

                    return Top()
            """
        )
    )
    assert _imports(tmp_path, 'pkg', functions=False)['pkg.low'] == {'pkg', 'pkg.helper'}
    assert _imports(tmp_path, 'pkg', functions=True)['pkg.low'] == {'pkg', 'pkg.helper', 'pkg.top'}
    assert _cycles(_imports(tmp_path, 'pkg', functions=False)) == [['pkg', 'pkg.low', 'pkg.top']]
