"""Runs are reproducible when time and randomness come from a fixed `RunEnvironment` (as in a workflow)."""

from __future__ import annotations

import ast
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from agent import Agent, RunContext
from agent._env import RunEnvironment, use_environment
from agent._threads import INLINE, use_thread_executor
from tests._source import parse_file

AGENT_DIR = Path(__file__).parent.parent / 'agent'


def fixed_environment(seed: int) -> RunEnvironment:
    rng = random.Random(seed)
    ticks = iter(range(10_000))
    start = datetime(2026, 1, 1, tzinfo=UTC)
    return RunEnvironment(now=lambda: start + timedelta(seconds=next(ticks)), random_bits=rng.getrandbits)


def build_agent() -> Agent[int, str]:
    agent: Agent[int, str] = Agent('test', deps_type=int)

    @agent.tool
    def lookup(ctx: RunContext[int], key: str) -> str:
        return f'{key}={ctx.deps}'

    @agent.tool_plain
    def fetch() -> str:
        return 'fetched'

    return agent


def test_same_environment_gives_byte_identical_histories() -> None:
    # As in a workflow, sync tools run inline: thread scheduling would otherwise decide completion order.
    agent = build_agent()
    with use_environment(fixed_environment(1)), use_thread_executor(INLINE):
        first = agent.run_sync('go', deps=3)
    with use_environment(fixed_environment(1)), use_thread_executor(INLINE):
        second = agent.run_sync('go', deps=3)
    assert first.all_messages_json() == second.all_messages_json()
    assert first.run_id == second.run_id


def test_different_environments_give_different_ids() -> None:
    agent = build_agent()
    with use_environment(fixed_environment(1)):
        first = agent.run_sync('go', deps=3)
    with use_environment(fixed_environment(2)):
        second = agent.run_sync('go', deps=3)
    assert first.run_id != second.run_id


def test_runtime_never_imports_temporal_or_reads_the_clock_directly() -> None:
    forbidden_modules = {'temporalio', 'random', 'uuid', 'time'}
    offenders: list[str] = []
    for path in AGENT_DIR.rglob('*.py'):
        if path.name == '_env.py':
            continue
        tree = parse_file(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name.split('.')[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module.split('.')[0]]
            else:
                names = []
            offenders.extend(f'{path.name}: {name}' for name in names if name in forbidden_modules)
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ('now', 'utcnow', 'today')
                and isinstance(node.value, ast.Name)
                and node.value.id in ('datetime', 'date')
            ):
                offenders.append(f'{path.name}: {node.value.id}.{node.attr}')
    assert offenders == []
