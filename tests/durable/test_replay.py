"""Committed histories replay cleanly: a non-deterministic change to the workflow fails here first."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from agent import Agent
from agent.messages import ToolCallPart
from worker import build_replayer, workflow_runner
from workflows import AgentWorkflow, _registry

from ._replay_agents import REPLAY_AGENTS
from .test_agent_workflow import scripted

HISTORIES = sorted((Path(__file__).parent / 'histories').glob('*.json'))


def load(stem: str) -> WorkflowHistory:
    path = next(p for p in HISTORIES if p.stem == stem)
    return WorkflowHistory.from_json(path.stem, path.read_text())


def test_there_are_histories_to_replay() -> None:
    assert {path.stem for path in HISTORIES} >= {
        'replay-tools',
        'replay-approval',
        'replay-mcp',
        'replay-continue-as-new',
        'replay-request-input',
        'replay-hand-off',
        'replay-hand-off-next',
    }


@pytest.mark.parametrize('stem', [path.stem for path in HISTORIES])
async def test_recorded_history_replays_without_nondeterminism(stem: str) -> None:
    result = await build_replayer(REPLAY_AGENTS).replay_workflow(load(stem), raise_on_replay_failure=True)
    assert result.replay_failure is None


async def test_a_changed_tool_sequence_is_caught_as_nondeterministic() -> None:
    build_replayer(REPLAY_AGENTS)  # registers the recorded agents for any task queue
    changed = Agent(scripted(ToolCallPart('owner', {}, 'c9')), name='lookup_agent')

    @changed.tool_plain
    def owner() -> str:
        return 'someone'

    original = _registry.get_durable_agent('lookup_agent')
    _registry.unregister('lookup_agent')
    _registry.register_agent('lookup_agent', changed)
    try:
        replayer = Replayer(
            workflows=[AgentWorkflow], data_converter=pydantic_data_converter, workflow_runner=workflow_runner()
        )
        result = await replayer.replay_workflow(load('replay-tools'), raise_on_replay_failure=False)
    finally:
        _registry.unregister('lookup_agent')
        _registry.register_agent('lookup_agent', original)
    assert result.replay_failure is not None
