"""`ConversationLoop`: the turns of a conversation run, as `AgentWorkflow` takes them one after another.

A conversation (`AgentRunInput.conversation`) waits for `send_message` turns, runs each as one agent run over the
conversation's history (`_run`, in `workflows._agent_workflow`), keeps the history up to date (a cancelled turn keeps
the steps it completed), hands the conversation to another agent where a message asks (`workflows._answering_agent`),
and continues as new between turns once its history is full, after writing it for the next run
(`workflows._handoff`). A failed turn fails its update, not the conversation.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from agent._parts import ModelMessage
    from agent.usage import RunUsage

    from ._answering_agent import deps_for
    from ._failures import as_workflow_failure as fitted_failure
    from ._handoff import Handover
    from ._history_limits import history_is_full
    from ._turns import Turn, completed_messages
    from ._types import TURN_CANCELLED, AgentRunInput, AgentRunOutput
    from ._workflow_handlers import AgentWorkflowHandlers

__all__ = ('ConversationLoop', 'as_workflow_failure')


def as_workflow_failure(exc: BaseException, *, retry_user_errors: bool = False) -> ApplicationError | None:
    """Deterministic failures become non-retryable workflow failures instead of retrying the task forever.

    The run's failure names its cause in its first line and is fitted to Temporal's limits (see `workflows._failures`).
    """
    return fitted_failure(exc, retry_user_errors=retry_user_errors)


class ConversationLoop(AgentWorkflowHandlers):
    """The conversation half of `AgentWorkflow`: its turns, and its history across them."""

    _deps: Any
    """The deps of the agent answering the turns."""
    _handover: Handover
    """Writes the conversation for the next run, and carries it there."""
    _waiting_output: Any
    """The last turn's output, while the conversation waits for the next message."""
    _history_at_start: tuple[int, int]
    """Events and bytes of history once the handed-over conversation was loaded."""

    async def _run(self, inp: AgentRunInput) -> AgentRunOutput:
        """Run one agent run (a turn) to its end (`AgentWorkflow`)."""
        raise NotImplementedError

    async def _continue_as_new(
        self, inp: AgentRunInput, history: list[ModelMessage], *, upgrade: bool = False, **changes: Any
    ) -> bool:
        """Continue as new with `history` (`AgentWorkflow`)."""
        raise NotImplementedError

    async def _converse(self, inp: AgentRunInput) -> AgentRunOutput:
        """Run turns as they arrive (`send_message` updates) until closed, idle, or it is time to continue as new."""
        self._history = history = list(inp.message_history or [])  # the `messages` query reads it
        start = len(history)
        self._handover.written(start)
        conversation_id = inp.conversation_id
        last: AgentRunOutput | None = None
        usage = RunUsage()
        turns = 0
        if inp.prompt is not None or inp.deferred_tool_results is not None:
            self._turn = turn = Turn(inp.prompt)
            first, kept = await self._take_turn(replace(inp, agent=self._answering), history)
            start = min(start, kept)
            if first is not None:
                last, turns = first, 1
                usage.incr(first.usage)
                await self._prepare_handover(inp, history, turns)
            turn.result, turn.error, turn.done = first, None if first is not None else self._cancelled(), True
            self._end_turn(turn)
            conversation_id = self._turn_conversation_id(first, conversation_id)
        idle = timedelta(seconds=inp.idle_timeout_seconds) if inp.idle_timeout_seconds else None
        while True:
            if not self._turns and not self._closing and self._handover_due:
                # A consistent point: between turns, nothing pending; the history travels to the next run. The turn
                # just answered wrote what the next run reads, so this happens in the task that answered it.
                await self._continue_as_new(inp, history, upgrade=True, conversation_id=conversation_id)
            self._status.state = 'awaiting_message'
            try:
                await workflow.wait_condition(lambda: bool(self._turns) or self._closing, timeout=idle)
            except TimeoutError:
                break
            if not self._turns:
                break  # closed
            self._turn = turn = self._turns.popleft()
            self._status.state = 'running'
            try:
                if turn.hand_off_to is not None and turn.hand_off_to != self._answering:
                    self._deps = deps_for(inp, turn.hand_off_to)  # checked by the message's validator already
                    self._answering = turn.hand_off_to
                out, kept = await self._take_turn(
                    replace(
                        inp, agent=self._answering, prompt=turn.prompt, message_history=history,
                        deferred_tool_results=None, conversation_id=conversation_id,
                    ),
                    history,
                )  # fmt: skip
            except Exception as exc:
                # A failed turn fails its update, not the conversation.
                turn.error = as_workflow_failure(exc) or (
                    exc if isinstance(exc, ApplicationError) else ApplicationError(f'{type(exc).__name__}: {exc}')
                )
                turn.done = True
                self._end_turn(turn)
                continue
            start = min(start, kept)
            conversation_id = self._turn_conversation_id(out, conversation_id)
            if out is None:
                turn.error = self._cancelled()
                turn.done = True
                self._end_turn(turn)
                continue
            usage.incr(out.usage)
            turns += 1
            await self._prepare_handover(inp, history, turns)
            turn.result, turn.done, last = out, True, out
            self._end_turn(turn)
        return AgentRunOutput(
            output=last.output if last is not None else None,
            new_messages=history[start:],
            usage=usage,
            run_id=last.run_id if last is not None else '',
            conversation_id=conversation_id or '',
        )

    async def _prepare_handover(self, inp: AgentRunInput, history: list[ModelMessage], turns: int) -> None:
        """If it is time to continue as new, write the history for the next run while the turn's caller waits.

        Until the hand-over, new messages are refused with `CONVERSATION_MOVING` (the client sends them again, to
        the next run); the ones already queued are taken first.
        """
        if self._handover_due or self._time_to_continue_as_new(inp, turns):
            self._handover_due = True
            await self._handover.write(history)

    async def _take_turn(self, inp: AgentRunInput, history: list[ModelMessage]) -> tuple[AgentRunOutput | None, int]:
        """Run one turn of a conversation on `history`, which it brings up to date in place.

        Returns the turn's output (`None` if `cancel_turn` stopped it) and how many of the messages `history` had
        are unchanged: a turn that follows a cancelled one sends that turn's unanswered request again, merged with
        its own, so that request is replaced.
        """
        self._live_run, self._waiting_output = None, None
        out = await self._turn_slot.run(self._run(inp))
        live = self._live_run
        if live is None:
            return out, len(history)  # cancelled before the agent run began: it added nothing
        kept = len(live.all_messages()) - len(live.new_messages())
        del history[kept:]
        self._handover.rewound(kept)
        if out is not None:
            history.extend(out.new_messages)
            self._waiting_output = out.output
        else:
            history.extend(completed_messages(live.new_messages()))
        return out, kept

    def _cancelled(self) -> ApplicationError:
        """What the update of a turn that `cancel_turn` stopped fails with."""
        reason = self._turn_slot.reason
        return ApplicationError(
            f'The turn was cancelled{f": {reason}" if reason else ""}. The conversation keeps its message '
            'and the steps it completed, and takes the next message.',
            type=TURN_CANCELLED,
            non_retryable=True,
        )

    def _turn_conversation_id(self, out: AgentRunOutput | None, current: str | None) -> str | None:
        """The conversation's id after a turn (one that was cancelled may still have given the conversation one)."""
        if out is not None:
            return out.conversation_id
        live = self._live_run
        return live.ctx.conversation_id if live is not None else current

    def _time_to_continue_as_new(self, inp: AgentRunInput, turns: int) -> bool:
        if inp.max_turns_per_run is not None and turns >= inp.max_turns_per_run:
            return True
        return turns > 0 and history_is_full(self._history_at_start)
