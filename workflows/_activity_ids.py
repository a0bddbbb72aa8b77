"""Activity ids that say what each activity is for, so replay notices when a code change reorders them.

Temporal checks on replay that each scheduled activity has the type and id the history recorded. With the SDK's
positional ids (1, 2, 3, ...) and one activity type for every tool, a change that schedules two parallel tool
calls in the other order would replay cleanly and then hand each call the other one's recorded result. Ids built
from the turn, the step and the tool call id make such a change fail replay with a non-determinism error instead.
"""

from __future__ import annotations

__all__ = ('ActivityIds',)

MAX_PART = 200
"""Longest part taken from outside (a tool call id comes from the model); Temporal caps ids at 1,000 bytes."""


class ActivityIds:
    """Hands out the activity ids of one agent run (one turn) of a workflow."""

    def __init__(self, turn: int) -> None:
        self._turn = turn
        self._used: set[str] = set()

    def _unique(self, activity_id: str) -> str:
        # A workflow-side hook may run the same request twice, and a model may repeat a tool call id.
        candidate, n = activity_id, 1
        while candidate in self._used:
            n += 1
            candidate = f'{activity_id}#{n}'
        self._used.add(candidate)
        return candidate

    def model_request(self, step: int) -> str:
        """`<turn>.<step>.model`: the model request of a step."""
        return self._unique(f'{self._turn}.{step}.model')

    def tool_call(self, step: int, tool_call_id: str) -> str:
        """`<turn>.<step>.tool.<tool call id>`: one tool call."""
        return self._unique(f'{self._turn}.{step}.tool.{tool_call_id[:MAX_PART]}')

    def other(self, step: int, what: str) -> str:
        """`<turn>.<step>.<what>`: list tools, instructions, notifications."""
        return self._unique(f'{self._turn}.{step}.{what[:MAX_PART]}')
