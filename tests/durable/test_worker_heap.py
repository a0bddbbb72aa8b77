"""The worker command freezes what its process built while starting (`workflows._process.freeze_startup_heap`)."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from workflows._process import freeze_startup_heap

from ._cli_helpers import agents, dev_worker, user_env, write_project

PROBE_MODULE = """\
import gc

from agent import Agent
from agent.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import FunctionModel


def _script(messages, info):
    returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if not returns:
        return ModelResponse(parts=[ToolCallPart('frozen_objects', {}, 'probe-1')])
    return ModelResponse(parts=[TextPart(str(returns[0].content))])


probe = Agent(FunctionModel(_script), name='probe')


@probe.tool_plain
def frozen_objects() -> int:
    \"\"\"How many objects the worker's process has frozen.\"\"\"
    return gc.get_freeze_count()
"""


@pytest.mark.asyncio(loop_scope='session')
async def test_the_worker_command_serves_with_its_start_up_heap_frozen(tmp_path: Path) -> None:
    folder = write_project(tmp_path)
    (folder / 'myapp' / 'probe.py').write_text(PROBE_MODULE)
    async with dev_worker(folder, '--agents', 'myapp.probe:probe') as address:
        done = await agents(
            'run', 'probe', 'go', '--watch', '--no-input', cwd=folder, env=user_env(TEMPORAL_ADDRESS=address)
        )
    assert done.code == 0, done.err
    # The tool ran in the worker's process: everything imported and built before it served was frozen.
    assert int(json.loads(done.out.strip().splitlines()[-1])) > 10_000


def test_freezing_leaves_the_start_up_objects_out_of_collections_and_collects_cycles_made_after() -> None:
    class Node:
        partner: Node | None = None

    before = Node()
    before.partner = Node()
    before.partner.partner = before
    try:
        freeze_startup_heap()
        assert gc.get_freeze_count() > 0
        assert not any(obj is before for obj in gc.get_objects())  # frozen: no generation holds it
        gc.collect()
        after = Node()
        after.partner = Node()
        after.partner.partner = after
        del after
        assert gc.collect() >= 2  # a cycle made after freezing is still collected
    finally:
        gc.unfreeze()
