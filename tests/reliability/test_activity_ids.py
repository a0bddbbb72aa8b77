"""A code change that schedules parallel tool calls in another order fails replay instead of swapping results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from temporalio.client import WorkflowHistory
from temporalio.workflow import NondeterminismError

import agent._call_tools
from tests.durable._replay_agents import REPLAY_AGENTS
from worker import build_replayer

HISTORY = Path(__file__).parents[1] / 'durable' / 'histories' / 'replay-tools.json'


def _recorded() -> WorkflowHistory:
    return WorkflowHistory.from_json('replay-tools', HISTORY.read_text())


def test_the_recorded_history_has_parallel_tool_calls_with_ids_of_their_own() -> None:
    history = _recorded()
    scheduled = [
        event.activity_task_scheduled_event_attributes.activity_id
        for event in history.events
        if event.HasField('activity_task_scheduled_event_attributes')
    ]
    assert scheduled == ['1.1.model', '1.1.tool.c1', '1.1.tool.c2', '1.2.model']


async def test_the_recorded_order_replays() -> None:
    result = await build_replayer(REPLAY_AGENTS).replay_workflow(_recorded(), raise_on_replay_failure=True)
    assert result.replay_failure is None


async def test_reversing_parallel_tool_calls_is_caught_as_nondeterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    batches = agent._call_tools._batches

    def reversed_batches(*args: Any) -> list[list[Any]]:
        # Stands for a code change that starts independent tool calls in another order.
        return [list(reversed(batch)) for batch in batches(*args)]

    monkeypatch.setattr(agent._call_tools, '_batches', reversed_batches)
    result = await build_replayer(REPLAY_AGENTS).replay_workflow(_recorded(), raise_on_replay_failure=False)
    assert isinstance(result.replay_failure, NondeterminismError)
    assert '1.1.tool.c1' in str(result.replay_failure)
