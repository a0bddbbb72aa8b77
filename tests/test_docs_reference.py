"""docs/reference.md describes exactly the workflow's contract: its handlers, its types' fields and its error types.

The handlers come from `AgentWorkflow` as the Temporal SDK reads them (the definition it registers on a worker), so a
signal, update or query added, renamed or removed without the page fails here; so does a field of a type in the
page's "Types" tables, and an error type the code no longer raises.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from temporalio import workflow

import agent._deferred
import workflows._approval_policy
import workflows._children
import workflows._decisions
import workflows._types
from tests._docs import ROOT, section
from workflows._agent_workflow import AgentWorkflow

REFERENCE = 'docs/reference.md'
TYPE_MODULES = (
    workflows._types,
    workflows._approval_policy,
    workflows._decisions,
    workflows._children,
    agent._deferred,
)


def definition() -> Any:
    # The SDK's own reading of the class (its bases included), as a worker registers it; it has no public name.
    return workflow._Definition.from_class(AgentWorkflow)


def documented(heading: str) -> list[str]:
    """The names of the `### `name`` headings of a section of the page."""
    return re.findall(r'^### `(\w+)`$', section(REFERENCE, heading), flags=re.MULTILINE)


def table_fields(type_name: str) -> list[str]:
    """The first column of the table under `### `type_name`` in the page's "Types"."""
    types = section(REFERENCE, 'Types')
    text = types.split(f'\n### `{type_name}`\n', 1)[1].split('\n### ', 1)[0]
    return re.findall(r'^\| `(\w+)` \|', text, flags=re.MULTILINE)


def test_the_page_lists_exactly_the_workflows_signals_updates_and_queries() -> None:
    defn = definition()
    assert sorted(documented('Signals')) == sorted(name for name in defn.signals if name is not None)
    assert sorted(documented('Updates')) == sorted(defn.updates)
    assert sorted(documented('Queries')) == sorted(defn.queries)
    # The dynamic signal handler: any other name is taken, and rejected in the status.
    assert None in defn.signals
    assert 'Any other signal name' in section(REFERENCE, 'Signals')


def test_each_handler_says_what_it_takes_returns_and_who_uses_it_in_types_the_page_describes() -> None:
    described = {*documented('Types'), *error_types()}
    for heading in ('Signals', 'Updates', 'Queries'):
        for name in documented(heading):
            entry = section(REFERENCE, heading).split(f'\n### `{name}`\n', 1)[1].split('\n### ', 1)[0]
            assert re.search(r'^- \*\*Arguments?:\*\* ', entry, flags=re.MULTILINE), name
            assert re.search(r'^- \*\*Used by:\*\* ', entry, flags=re.MULTILINE), name
            if heading != 'Signals':  # a signal returns nothing
                assert re.search(r'^- \*\*Result:\*\* ', entry, flags=re.MULTILINE), name
            shapes = re.findall(r'^- \*\*(?:Arguments?|Result):\*\* (.*(?:\n  .*)*)', entry, flags=re.MULTILINE)
            assert set(re.findall(r'`([A-Z]\w+)`', '\n'.join(shapes))) <= described, name


def test_each_type_table_lists_exactly_the_dataclass_fields() -> None:
    for type_name in documented('Types'):
        (cls,) = {getattr(module, type_name) for module in TYPE_MODULES if hasattr(module, type_name)}
        assert sorted(table_fields(type_name)) == sorted(field.name for field in dataclasses.fields(cls)), type_name


def error_types() -> list[str]:
    return re.findall(r'^\| `(\w+)` \|', section(REFERENCE, 'Error types'), flags=re.MULTILINE)


def test_every_error_type_on_the_page_is_raised_by_the_code() -> None:
    assert len(error_types()) >= 8
    source = '\n'.join(path.read_text() for part in ('workflows', 'activities') for path in (ROOT / part).rglob('*.py'))
    for error in error_types():
        assert f"'{error}'" in source, error
