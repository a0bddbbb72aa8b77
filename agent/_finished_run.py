"""A run that ended elsewhere, shown through the objects of a run made here (`iter`, `run_stream`, ...).

When a durable run's tool starts a run of an agent the worker serves, that run is the workflow's child run (see
`agent._delegation`), and the tool's call gets its finished result. `run()` returns it as it is; the other entry
points wrap it in what they hand out, so code written for in-process runs keeps working:

- `iter()` gives a `FinishedRun`: iterating it yields the nodes that carried the run's messages (the prompt's
  `UserPromptNode`, then a `ModelRequestNode` per request and a `CallToolsNode` per response), then `End`. They are
  records of a run that is over: `next()` walks them, but they cannot be streamed or run again.
- `run_stream()` gives a `StreamedRunResult` that is already complete: its streams yield the final value at once.
- `run_stream_events()` yields the final `AgentRunResultEvent` alone: the run's events happened in the child.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from ._agent_graph import CallToolsNode, ModelRequestNode, RunCheckpoint, UserPromptNode
from ._content import UserContent
from ._enqueue import EnqueueContent, PendingMessage, PendingMessagePriority
from ._parts import ModelMessage, ModelRequest
from ._run_context import RunContext
from .exceptions import UserError
from .graph import End
from .result import FinalResult
from .run import AgentNodeT, AgentRun, AgentRunResult, AgentRunResultEvent

__all__ = ('FinishedRun', 'finished_events')

_OVER = 'The run of this agent ran elsewhere (a child run of the durable run) and is over'


class FinishedRun(AgentRun[Any, Any]):
    """An `AgentRun` whose run has already ended: its nodes are the records of its messages, then `End`."""

    def __init__(self, result: AgentRunResult[Any], user_prompt: str | Sequence[UserContent] | None) -> None:
        # Not `AgentRun.__init__`: there is no graph to drive, only the finished run's state to show.
        self._state = result._state  # pyright: ignore[reportPrivateUsage]
        self._result = result
        self._finished_result = result
        self._user_prompt = user_prompt
        self._end = End(FinalResult(result.output, result._output_tool_name))  # pyright: ignore[reportPrivateUsage]
        self._recorded: list[AgentNodeT | End[FinalResult[Any]]] | None = None
        self._next_node = self._end
        self._finish = None
        self._hooks_context = None

    @property
    def _nodes(self) -> list[AgentNodeT | End[FinalResult[Any]]]:
        # Built when first walked: the messages of a run that ran elsewhere may be read only on demand.
        if self._recorded is None:
            nodes: list[AgentNodeT | End[FinalResult[Any]]] = [UserPromptNode(self._user_prompt)]
            for message in self._finished_result.new_messages():
                nodes.append(ModelRequestNode(message) if isinstance(message, ModelRequest) else CallToolsNode(message))
            self._recorded = [*nodes, self._end]
        return self._recorded

    @property
    def ctx(self) -> RunContext[Any]:
        """Not available: the run's context stayed with the run.

        Raises:
            UserError: always.
        """
        raise UserError(f'{_OVER}: it has no live run context (its nodes cannot be streamed).')

    @property
    def next_node(self) -> AgentNodeT | End[FinalResult[Any]]:
        """`End`: the run is over."""
        return self._end

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The run's metadata, if any."""
        return self._finished_result.metadata

    def all_messages(self) -> list[ModelMessage]:
        """All the run's messages, including the history it started from."""
        return self._finished_result.all_messages()

    def new_messages(self) -> list[ModelMessage]:
        """The messages the run produced."""
        return self._finished_result.new_messages()

    def checkpoint(self) -> RunCheckpoint:
        """Not available: the run is over.

        Raises:
            UserError: always.
        """
        raise UserError(f'{_OVER}: there is nothing to continue.')

    @property
    def pending_messages(self) -> list[PendingMessage]:
        """None: the run is over."""
        return []

    def enqueue(self, *content: EnqueueContent, priority: PendingMessagePriority = 'asap') -> None:
        """Not available: the run is over.

        Raises:
            UserError: always.
        """
        raise UserError(f'{_OVER}: messages can no longer be queued for it.')

    async def next(self, node: AgentNodeT) -> AgentNodeT | End[FinalResult[Any]]:
        """The node recorded after `node` (`End` after the last).

        Raises:
            UserError: `node` is the `End` already returned.
        """
        if isinstance(node, End):
            raise UserError('AgentRun.next() was given the End node: the run has already ended.')
        index = next((i for i, recorded in enumerate(self._nodes) if recorded is node), None)
        return self._nodes[index + 1] if index is not None else self._end

    def __aiter__(self) -> AsyncIterator[AgentNodeT | End[FinalResult[Any]]]:
        return self._walk()

    async def _walk(self) -> AsyncIterator[AgentNodeT | End[FinalResult[Any]]]:
        for node in self._nodes:
            yield node


async def finished_events(result: AgentRunResult[Any]) -> AsyncIterator[Any]:
    """The events `run_stream_events` yields for a run that ended elsewhere: its result."""
    yield AgentRunResultEvent(result)
