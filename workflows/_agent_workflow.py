"""`AgentWorkflow`: a registered agent's run as a deterministic Temporal workflow.

The workflow drives the very same agent graph as an in-process run, node by node with
`AgentRun.next()`, after installing three things for the run's duration:

- a `RunEnvironment` backed by the workflow's clock and seeded random source, so ids and timestamps
  are the same on replay;
- `WorkflowPorts`, which send model requests and tool executions to activities and make deferred tool
  calls wait durably for results (no worker slot is held while waiting);
- inline execution of sync callbacks (there are no threads in a workflow).

Deferred tool results arrive by the `submit_deferred_tool_results` signal or the
`resolve_deferred_tools` update (whose validator rejects unknown or already-resolved ids before
anything is written to history). The `pending_deferred_tools` and `status` queries show where the
run is.

Everything a client sends is validated by the workflow itself (see `workflows._door`): a bad start fails the
run at once with what was wrong, a bad update is rejected before it reaches history, and the parts of a signal
that cannot be used are listed in the `status` query while its valid parts are applied. No workflow task is
ever retried because of what a client sent.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RawValue
from temporalio.exceptions import ApplicationError
from temporalio.workflow import ContinueAsNewError

with workflow.unsafe.imports_passed_through():
    from agent._agent_graph import ModelRequestNode, RunCheckpoint
    from agent._deferred import DeferredToolRequests, DeferredToolResults
    from agent._env import RunEnvironment, use_environment
    from agent._parts import ModelMessage
    from agent._ports import use_ports
    from agent._threads import INLINE, use_thread_executor
    from agent.graph import End
    from agent.run import AgentRun
    from agent.usage import RunUsage

    from ._data_converter import PayloadDecodeError
    from ._door import InvalidInput, parse_deferred_results, parse_one
    from ._handoff import carry_history, load_history
    from ._history_limits import history_is_full
    from ._ports import WorkflowPorts
    from ._registry import get_durable_agent
    from ._result_size import fit_result, message_page
    from ._run_attributes import RunAttributes, RunView
    from ._run_input import INPUT_HINT, RUN_INPUT, cancel_request, check_input, invalid_input, validated_deps
    from ._stand_in_model import StandInModel
    from ._turns import Turn, TurnSlot, completed_messages
    from ._types import (
        TURN_CANCELLED,
        AgentRunInput,
        AgentRunOutput,
        CancelTurnResult,
        ConversationMessage,
        MessagePage,
        Rejection,
        RunStatus,
    )

__all__ = ('AgentWorkflow', 'conversation_workflow_id')


def conversation_workflow_id(agent: str, conversation_id: str) -> str:
    """The workflow id of a conversation, so a stateless front end can address it by conversation id alone."""
    return f'agent-{agent}-conversation-{conversation_id}'


def _as_workflow_failure(exc: BaseException) -> ApplicationError | None:
    """Deterministic failures become non-retryable workflow failures instead of retrying the task forever.

    The run's failure names its cause in its first line and is fitted to Temporal's limits (see `workflows._failures`).
    """
    from ._failures import as_workflow_failure

    return as_workflow_failure(exc)


MAX_REJECTIONS_KEPT = 20
"""How many rejected signal parts the `status` query lists (the newest)."""


@workflow.defn(name='AgentWorkflow', failure_exception_types=[PayloadDecodeError])
class AgentWorkflow:
    """Runs a registered agent durably.

    The run, signal and update handlers take what clients send as plain JSON (`*args`) and validate it
    themselves, so a malformed input fails the run or is rejected instead of retrying a workflow task forever.
    """

    @workflow.init
    def __init__(self, *args: Any) -> None:
        self._ports: WorkflowPorts | None = None
        self._status = RunStatus()
        self._early = DeferredToolResults()
        self._turns: deque[Turn] = deque()
        self._closing = False
        self._new_messages: list[ModelMessage] = []
        self._deps: Any = None
        self._turn_count = 0  # agent runs started by this workflow run (turns of a conversation)
        self._loaded: list[ModelMessage] = []  # the conversation handed over by the previous run, if by reference
        self._history_at_start = (0, 0)  # events and bytes of history once the handed-over conversation is loaded
        self._input: AgentRunInput | None = None
        self._input_error: str | None = None
        try:
            inp = parse_one(args, AgentRunInput, RUN_INPUT)
            check_input(inp)
            self._input = inp
        except InvalidInput as exc:
            self._input_error = str(exc)
        self._conversation = self._input is not None and self._input.conversation
        self._attributes = RunAttributes(self._attributes_view)
        self._turn_slot = TurnSlot()
        self._live_run: AgentRun[Any, Any] | None = None  # the agent run in progress, for what a cancelled turn did
        self._waiting_output: Any = None  # a conversation's last turn's output while it waits for the next message

    @workflow.run
    async def run(self, *args: Any) -> AgentRunOutput:
        """Run the agent named in the input (one `AgentRunInput` object) to completion."""
        inp = self._input
        if inp is None:
            self._status.state = 'failed'
            raise invalid_input(f'{self._input_error}.{INPUT_HINT}')
        self._attributes.start(inp.agent, inp.owner)
        try:
            self._deps = validated_deps(inp)
            inp = await self._take_handoff(inp)
            output = await (self._converse(inp) if inp.conversation else self._run(inp))
        except ContinueAsNewError:
            self._attributes.stop(record=False)  # the next run goes on from the attributes as they are
            raise
        except GeneratorExit:
            raise  # the coroutine is closed outside the workflow's event loop (a run dropped from the cache)
        except BaseException as exc:
            self._status.state = 'failed'
            self._attributes.stop()
            failure = _as_workflow_failure(exc)
            if failure is not None:
                raise failure from exc
            raise
        self._status.state = 'completed'
        self._attributes.stop()
        self._new_messages = output.new_messages
        return fit_result(output)

    def _attributes_view(self) -> RunView:
        """What the run's search attributes show now: its state and the approvals waiting for a human."""
        ports = self._ports
        if ports is not None and ports.pending is not None:
            remaining = ports.pending.remaining(ports.collected)
            waiting = len(remaining.approvals) if remaining is not None else 0
            return RunView(self.status().state, waiting)
        state = self._status.state
        # A conversation whose turns end on approvals (the agent's output allows `DeferredToolRequests`) waits for
        # a human between turns.
        output = self._waiting_output
        if state == 'awaiting_message' and isinstance(output, DeferredToolRequests):
            return RunView(state, len(output.approvals))
        return RunView(state, 0)

    async def _take_handoff(self, inp: AgentRunInput) -> AgentRunInput:
        """`inp` with the conversation an earlier run handed over by reference read back into `message_history`."""
        if inp.held_results is not None:
            self._early.update(inp.held_results)
        if inp.history_from is None:
            return inp
        self._loaded = await load_history(inp.agent, inp.history_from)
        info = workflow.info()
        self._history_at_start = (info.get_current_history_length(), info.get_current_history_size())
        return replace(inp, message_history=[*self._loaded, *(inp.message_history or [])], history_from=None)

    async def _continue_as_new(
        self, inp: AgentRunInput, history: list[ModelMessage], start: int, **changes: Any
    ) -> bool:
        """Continue as new with `history` (by reference when large); `False` if a message arrived meanwhile.

        `history[:start]` is already in this run's history. Called only at consistent points: between turns, or
        between the steps of a run.
        """
        await workflow.wait_condition(workflow.all_handlers_finished)
        carried, handoff = await carry_history(inp.agent, history, start)
        if self._turns or self._closing or not workflow.all_handlers_finished():
            return False  # a turn (or the close) came in while the history was written: take it first
        held = self._ports.early if self._ports is not None else self._early
        fields: dict[str, Any] = {
            'prompt': None,
            'message_history': carried,
            'history_from': handoff,
            'deferred_tool_results': None,
            'checkpoint': None,
            'held_results': held if held.tool_call_ids else None,
        }
        workflow.continue_as_new(replace(inp, **{**fields, **changes}))

    async def _converse(self, inp: AgentRunInput) -> AgentRunOutput:
        """Run turns as they arrive (`send_message` updates) until closed, idle, or it is time to continue as new."""
        history = list(inp.message_history or [])
        start = len(history)
        conversation_id = inp.conversation_id
        last: AgentRunOutput | None = None
        usage = RunUsage()
        turns = 0
        if inp.prompt is not None or inp.deferred_tool_results is not None:
            first, kept = await self._take_turn(inp, history)
            start = min(start, kept)
            if first is not None:
                last, turns = first, 1
                usage.incr(first.usage)
            conversation_id = self._turn_conversation_id(first, conversation_id)
        idle = timedelta(seconds=inp.idle_timeout_seconds) if inp.idle_timeout_seconds else None
        while True:
            if not self._turns and not self._closing and self._time_to_continue_as_new(inp, turns):
                # A consistent point: between turns, nothing pending; the history travels to the next run.
                await self._continue_as_new(inp, history, start, conversation_id=conversation_id)
            self._status.state = 'awaiting_message'
            try:
                await workflow.wait_condition(lambda: bool(self._turns) or self._closing, timeout=idle)
            except TimeoutError:
                break
            if not self._turns:
                break  # closed
            turn = self._turns.popleft()
            self._status.state = 'running'
            try:
                out, kept = await self._take_turn(
                    replace(
                        inp, prompt=turn.prompt, message_history=history, deferred_tool_results=None,
                        conversation_id=conversation_id,
                    ),
                    history,
                )  # fmt: skip
            except Exception as exc:
                # A failed turn fails its update, not the conversation.
                turn.error = _as_workflow_failure(exc) or ApplicationError(f'{type(exc).__name__}: {exc}')
                turn.done = True
                continue
            start = min(start, kept)
            conversation_id = self._turn_conversation_id(out, conversation_id)
            if out is None:
                reason = self._turn_slot.reason
                turn.error = ApplicationError(
                    f'The turn was cancelled{f": {reason}" if reason else ""}. The conversation keeps its message '
                    'and the steps it completed, and takes the next message.',
                    type=TURN_CANCELLED,
                    non_retryable=True,
                )
                turn.done = True
                continue
            usage.incr(out.usage)
            turn.result, turn.done, last, turns = out, True, out, turns + 1
        return AgentRunOutput(
            output=last.output if last is not None else None,
            new_messages=history[start:],
            usage=usage,
            run_id=last.run_id if last is not None else '',
            conversation_id=conversation_id or '',
        )

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
        if out is not None:
            history.extend(out.new_messages)
            self._waiting_output = out.output
        else:
            history.extend(completed_messages(live.new_messages()))
        return out, kept

    def _turn_conversation_id(self, out: AgentRunOutput | None, current: str | None) -> str | None:
        """The conversation's id after a turn (one that was cancelled may still have given the conversation one)."""
        if out is not None:
            return out.conversation_id
        live = self._live_run
        return live.ctx.conversation_id if live is not None else current

    def _time_to_continue_mid_run(self, inp: AgentRunInput, steps: int) -> bool:
        if inp.max_steps_per_run is not None and steps >= inp.max_steps_per_run:
            return True
        return steps > 0 and history_is_full(self._history_at_start)

    def _time_to_continue_as_new(self, inp: AgentRunInput, turns: int) -> bool:
        if inp.max_turns_per_run is not None and turns >= inp.max_turns_per_run:
            return True
        return turns > 0 and history_is_full(self._history_at_start)

    async def _run(self, inp: AgentRunInput) -> AgentRunOutput:
        durable = get_durable_agent(inp.agent, workflow.info().task_queue)
        agent = durable.agent
        deps: Any = self._deps
        self._turn_count += 1
        self._ports = ports = WorkflowPorts(
            inp.agent,
            inp.model,
            policy=inp.approval_policy or durable.approval_policy,
            notify=durable.notifier is not None,
            durable=durable,
            turn=self._turn_count,
            checkpoint=inp.checkpoint,
            known_messages=self._loaded,
            reject=lambda refused: self._reject(
                [Rejection('submit_deferred_tool_results', reason, call_id) for call_id, reason in refused]
            ),
        )
        ports.hold_early(self._early)
        self._early = DeferredToolResults()
        rng = workflow.random()
        environment = RunEnvironment(now=workflow.now, random_bits=rng.getrandbits)
        with use_environment(environment), use_ports(ports), use_thread_executor(INLINE):
            async with agent.iter(
                inp.prompt,
                message_history=inp.message_history,
                deferred_tool_results=inp.deferred_tool_results,
                conversation_id=inp.conversation_id,
                model=StandInModel(inp.model or agent.model),
                deps=deps,
                model_settings=inp.model_settings,  # pyright: ignore[reportArgumentType]
                usage_limits=inp.usage_limits,
                metadata=inp.metadata,
                infer_name=False,
            ) as agent_run:
                self._live_run = agent_run
                node = agent_run.next_node
                first_step = agent_run.state.run_step
                checkpoint: RunCheckpoint | None = None
                carried: list[ModelMessage] = []
                while not isinstance(node, End):
                    node = await agent_run.next(node)
                    self._status.step = agent_run.state.run_step
                    self._status.usage = agent_run.usage()
                    if (
                        isinstance(node, ModelRequestNode)
                        and not inp.conversation
                        and self._time_to_continue_mid_run(inp, agent_run.state.run_step - first_step)
                    ):
                        # Between two steps: the run's state is its checkpoint plus the request it was about to send.
                        checkpoint = agent_run.checkpoint()
                        carried = [*agent_run.all_messages(), node.request]
                        break
        if checkpoint is not None:
            # Leaving the run's block above cancelled its run-level hooks; the next workflow run starts them again.
            # This run's history holds its input's messages; the run may have replaced some (the request it resumed
            # with is sent as a fresh copy), so the ones to write down start where the objects stop being the same.
            given = inp.message_history or []
            start = next((i for i, m in enumerate(given) if i >= len(carried) or carried[i] is not m), len(given))
            conversation_id = agent_run.ctx.conversation_id
            while True:  # returns only if a handler was still running: wait for it and try again
                await self._continue_as_new(inp, carried, start, checkpoint=checkpoint, conversation_id=conversation_id)
        result = agent_run.result
        assert result is not None
        return AgentRunOutput(
            output=result.output,
            new_messages=result.new_messages(),
            usage=result.usage(),
            run_id=result.run_id,
            conversation_id=result.conversation_id,
        )

    @workflow.update(name='send_message')
    async def send_message(self, *args: Any) -> AgentRunOutput:
        """A new user turn in a conversation (one `ConversationMessage`); returns that turn's result."""
        message = parse_one(args, ConversationMessage, 'The send_message input')
        turn = Turn(message.prompt)
        self._turns.append(turn)
        await workflow.wait_condition(lambda: turn.done)
        if turn.error is not None:
            raise turn.error
        assert turn.result is not None
        return fit_result(turn.result)

    @send_message.validator
    def _validate_message(self, *args: Any) -> None:
        if not self._conversation:
            raise ValueError('This run is not a conversation: start it with "conversation": true to send messages.')
        if self._closing:
            raise ValueError('The conversation is closing and takes no more messages.')
        parse_one(args, ConversationMessage, 'The send_message input')

    @workflow.update(name='cancel_turn')
    async def cancel_turn(self, *args: Any) -> CancelTurnResult:
        """Stop the conversation's running turn (optionally one `CancelTurn`); returns once the turn has ended.

        An update rather than a signal, so the caller learns whether a turn was running and, once it returns, that
        the turn is over (its `send_message` update has failed with `TURN_CANCELLED`) and the conversation takes the
        next message. Queued turns are not affected.
        """
        request = cancel_request(args)
        task = self._turn_slot.cancel(request.reason)
        if task is None:
            return CancelTurnResult(cancelled=False)
        workflow.logger.info('Cancelling the running turn%s', f': {request.reason}' if request.reason else '')
        await workflow.wait_condition(lambda: self._turn_slot.ended(task))
        return CancelTurnResult(cancelled=self._turn_slot.was_cancelled(task))

    @cancel_turn.validator
    def _validate_cancel(self, *args: Any) -> None:
        if not self._conversation:
            # A single run is one turn: cancelling the workflow (`temporal workflow cancel`) is how it is stopped.
            raise ValueError(
                'This run is not a conversation, so it has no turns to cancel; cancel the run itself instead '
                '(temporal workflow cancel --workflow-id <id>).'
            )
        cancel_request(args)

    @workflow.signal(name='close_conversation')
    def close_conversation(self, *args: Any) -> None:
        """End the conversation once queued turns are done (any input is ignored)."""
        self._closing = True

    @workflow.signal(name='submit_deferred_tool_results')
    def submit_deferred_tool_results(self, *args: Any) -> None:
        """Deliver results for deferred tool calls (one `DeferredToolResults`).

        Each tool call's entry stands on its own: valid ones are applied (kept for later if their calls are not
        pending yet: a reviewer can be faster than the model), and the rest are listed in `status().rejected`.
        """
        handler = 'submit_deferred_tool_results'
        try:
            results, rejected = parse_deferred_results(args, handler)
        except InvalidInput as exc:
            self._reject([Rejection(handler, str(exc))])
            return
        self._reject(rejected)
        ports = self._ports
        if ports is None or ports.pending is None:
            if ports is None:
                self._early.update(results)
            else:
                ports.hold_early(results)
            return
        accepted, refused = ports.partition_results(results)
        self._reject([Rejection(handler, reason, call_id) for call_id, reason in refused])
        ports.add_results(accepted)

    @workflow.signal(dynamic=True)
    def unknown_signal(self, name: str, args: Sequence[RawValue]) -> None:
        """A signal this workflow does not take: recorded as rejected instead of waiting in a buffer forever."""
        self._reject(
            [Rejection(name, f'Unknown signal {name!r}; AgentWorkflow takes submit_deferred_tool_results and '
                       'close_conversation')]
        )  # fmt: skip

    def _reject(self, rejections: list[Rejection]) -> None:
        for rejection in rejections:
            workflow.logger.warning('Rejected part of %s: %s', rejection.handler, rejection.reason)
        kept = self._status.rejected
        kept.extend(rejections)
        del kept[:-MAX_REJECTIONS_KEPT]

    @workflow.update(name='resolve_deferred_tools')
    def resolve_deferred_tools(self, *args: Any) -> DeferredToolRequests | None:
        """Deliver results for pending deferred tool calls (one `DeferredToolResults`); returns what still waits."""
        assert self._ports is not None
        results = parse_one(args, DeferredToolResults, 'The resolve_deferred_tools input')
        return self._ports.add_results(results)

    @resolve_deferred_tools.validator
    def _validate_resolution(self, *args: Any) -> None:
        results = parse_one(args, DeferredToolResults, 'The resolve_deferred_tools input')
        if self._ports is None:
            raise ValueError('The run is not waiting for deferred tool results yet.')
        self._ports.check_results(results)

    @workflow.query(name='pending_deferred_tools')
    def pending_deferred_tools(self) -> DeferredToolRequests | None:
        """The deferred tool calls still waiting for results, or `None`."""
        if self._ports is None or self._ports.pending is None:
            return None
        return self._ports.pending.remaining(self._ports.collected)

    @workflow.query(name='new_messages')
    def new_messages(self, page: MessagePage | None = None) -> list[ModelMessage]:
        """A page of the completed run's new messages: all of them, even those left out of a large result."""
        return message_page(self._new_messages, page or MessagePage())

    @workflow.query(name='status')
    def status(self) -> RunStatus:
        """Where the run is: state, step and usage."""
        waiting = self._ports is not None and self._ports.pending is not None
        if self._status.state == 'running' and waiting:
            return replace(self._status, state='awaiting_deferred_tools')
        return self._status
