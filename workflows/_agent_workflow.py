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
anything is written to history; answers that come while the run is still working towards its calls are held
until it asks for them). The handlers and queries live in `workflows._workflow_handlers`, the base
class; this module drives the run.

Everything a client sends is validated by the workflow itself (see `workflows._door`): a bad start fails the
run at once with what was wrong, a bad update is rejected before it reaches history, and the parts of a signal
that cannot be used are listed in the `status` query while its valid parts are applied. No workflow task is
ever retried because of what a client sent.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import replace
from typing import Any

from temporalio import workflow
from temporalio.workflow import ContinueAsNewError

with workflow.unsafe.imports_passed_through():
    from agent._agent_graph import ModelRequestNode, RunCheckpoint
    from agent._deferred import DeferredToolRequests, DeferredToolResults
    from agent._env import RunEnvironment, use_environment
    from agent._external_events import external_event_scope
    from agent._parts import ModelMessage, ModelResponse
    from agent._ports import use_ports
    from agent._threads import INLINE, use_thread_executor
    from agent.graph import End
    from agent.run import AgentRun
    from agent.usage import RunUsage

    from ._agent_version import carried_attributes, version_attribute
    from ._answering_agent import deps_for
    from ._child_answers import report_to_parent
    from ._children import ChildPending, Children
    from ._conversation_loop import ConversationLoop, as_workflow_failure
    from ._data_converter import PayloadDecodeError
    from ._decisions import DecisionRecord, token_answer_refusal
    from ._door import InvalidInput, parse_one
    from ._event_waits import EventWaits
    from ._eviction import watch_waiting
    from ._fan_out import ToolFanOut
    from ._handoff import Handover, load_history
    from ._history_limits import history_is_full
    from ._ports import WorkflowPorts
    from ._registry import get_durable_agent, retries_workflow_side_errors
    from ._request_encoder import RequestEncoder
    from ._result_size import fit_result
    from ._run_attributes import RunAttributes, RunView
    from ._run_details import DECISIONS_SHOWN
    from ._run_input import INPUT_HINT, RUN_INPUT, check_input, invalid_input, validated_deps
    from ._stand_in_model import StandInModel
    from ._turns import Turn, TurnSlot
    from ._types import AgentRunInput, AgentRunOutput, Rejection, RunStatus
    from ._versioning import CONVERSATION_HANDOVER
    from ._workflow_handlers import MAX_DECISIONS_KEPT, MAX_ENDED_TURNS_KEPT

__all__ = ('AgentWorkflow', 'ClosedQuietly')


class ClosedQuietly:
    """Lets a run's coroutine close quietly when the garbage collector closes it.

    The SDK drops a workflow instance it could not evict in time (a busy worker, a worker stopping) and the garbage
    collector closes its coroutines, in no set order: the agent run's context managers may find their generators
    closed already and raise `RuntimeError` ("generator didn't stop after athrow()") while the coroutine closes,
    which Python can only print as an exception it ignored. The `GeneratorExit` that closes the coroutine goes on
    instead. A plain class, not a generator, so that it cannot itself be closed first.
    """

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: object) -> None:
        if isinstance(error, RuntimeError) and isinstance(error.__context__, GeneratorExit):
            raise error.__context__ from None


@workflow.defn(name='AgentWorkflow', failure_exception_types=[PayloadDecodeError])
class AgentWorkflow(ConversationLoop):
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
        self._decisions: list[DecisionRecord] = list(self._input.decisions or []) if self._input else []
        self._run_decisions: list[DecisionRecord] = []  # the running agent run's
        self._turn: Turn | None = None
        self._ended_turns: deque[Turn] = deque(maxlen=MAX_ENDED_TURNS_KEPT)
        self._history: list[ModelMessage] = list(self._input.message_history or []) if self._input else []
        self._unloaded = self._input.history_from if self._input else None
        self._attributes = RunAttributes(self._view_with_agent)
        self._turn_slot = TurnSlot()
        self._live_run: AgentRun[Any, Any] | None = None  # the agent run in progress, for what a cancelled turn did
        self._waiting_output: Any = None  # a conversation's last turn's output while it waits for the next message
        # One encoder for every turn of this workflow run: what a worker was sent once is named, never sent again.
        self._encoder = RequestEncoder()
        self._handover = Handover(self._input.agent if self._input else '')
        # The agent answering the conversation's turns: its own, until a message hands it off (`_answering_agent`).
        self._answering = (self._input.answering_agent or self._input.agent) if self._input else ''
        self._handover_due = False  # the conversation continues as new once the turns it took in are answered
        # One per workflow run: its keys count the run's waits across turns.
        self._event_waits = EventWaits(
            lambda reason: self._reject([Rejection('submit_external_event', reason)]), self._authorize_token_answer
        )
        watch_waiting(self._waits_for_people)  # the worker drops the run from its cache meanwhile
        self._children = Children()
        self._answers_received = 0

    def _waits_for_people(self) -> bool:
        """Whether only a person can move the run on: deferred tool results, the resolution of a wait for an
        external event, or its children's (read by the worker between activations)."""
        ports = self._ports
        if ports is None:
            return False
        if ports.doing():
            # A parent whose only work in flight is child runs waiting for people waits for people too: the child's
            # end (or a report) comes as an event, which a replay takes up.
            return ports.only_children_waiting()
        return ports.waiting_for_people or self._event_waits.waiting_for_people

    @workflow.run
    async def run(self, *args: Any) -> AgentRunOutput:
        """Run the agent named in the input (one `AgentRunInput` object) to completion."""
        inp = self._input
        if inp is None:
            self._status.state = 'failed'
            raise invalid_input(f'{self._input_error}.{INPUT_HINT}')
        self._status.agent_version = inp.agent_version  # carried by continue-as-new, else its first response's
        self._attributes.start(inp.agent, inp.owner, version_attribute(inp.agent))
        # A child run (a tool's delegated run) tells its parent what it waits for (see `workflows._children`).
        reporter = asyncio.create_task(self._report_to_parent()) if inp.delegated_by is not None else None
        try:
            self._deps = validated_deps(inp)  # its own agent stays served: its activities read the history back
            if self._answering != inp.agent:
                self._deps = deps_for(inp, self._answering)
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
            # A worker may keep Temporal's retry-until-fixed for user code's errors (`workflow_side_errors`).
            retry = retries_workflow_side_errors(workflow.info().task_queue)
            failure = as_workflow_failure(exc, retry_user_errors=retry)
            if failure is not None:
                raise failure from exc
            raise
        finally:
            if reporter is not None:
                reporter.cancel()
        self._status.state = 'completed'
        self._attributes.stop()
        self._new_messages = output.new_messages
        if inp.delegated_by is not None:
            # A child run's messages stay out of its result, which the parent's history records too: the tool that
            # started it reads them by the `new_messages` query if it asks for them (see `activities._delegation`).
            return fit_result(output, budget=0)
        return fit_result(output)

    async def _report_to_parent(self) -> None:
        """Tell the parent run what this run waits for, each time that changes."""
        last = self._report_key()
        while True:
            await workflow.wait_condition(lambda seen=last: self._report_key() != seen)
            last = self._report_key()
            status = self.status()
            report = ChildPending(workflow.info().workflow_id, self.pending_deferred_tools(), status.open_approvals)
            report.decisions = status.decisions  # its children's are in its own status, under their paths
            await report_to_parent(report)

    def _report_key(self) -> tuple[Any, ...]:
        """What changes when what the run waits for does: the pending ids and who approved what so far."""
        ports = self._ports
        own = ports.pending.remaining(ports.collected) if ports is not None and ports.pending is not None else None
        votes = ports.open_approvals() if ports is not None else []
        return (
            tuple(own.tool_call_ids) if own is not None else (),
            tuple((a.tool_call_id, tuple(a.approved_by)) for a in votes),
            self._children.changed,
            self._answers_received,
            len(self._decisions),
        )

    def _attributes_view(self) -> RunView:
        """What the run shows now (search attributes, Web UI details): state, what waits for a human, what runs."""
        ports = self._ports
        if (ports is not None and ports.pending is not None) or self._children.pending() is not None:
            remaining = self.pending_deferred_tools()  # its own calls and its children's
            waiting = len(remaining.approvals) if remaining is not None else 0
            return RunView(self.status().state, waiting, remaining, decisions=self._shown_decisions())
        state = self._status.state
        # A conversation whose turns end on approvals (the agent's output allows `DeferredToolRequests`) waits for
        # a human between turns.
        output = self._waiting_output
        if state == 'awaiting_message' and isinstance(output, DeferredToolRequests):
            return RunView(state, len(output.approvals), output, decisions=self._shown_decisions())
        doing = ports.doing() if ports is not None and state == 'running' else ()
        return RunView(state, 0, doing=doing, decisions=self._shown_decisions())

    def _view_with_agent(self) -> RunView:
        view = self._attributes_view()
        return replace(view, answering_agent=self._handed_off_to(), agent_version=self._status.agent_version)

    def _started_on(self, agent: str, version: str | None) -> None:
        """The first model response of the run's own agent says which version it started on (`_agent_version`)."""
        if self._status.agent_version is None and self._input is not None and agent == self._input.agent:
            self._status.agent_version = version

    def _shown_decisions(self) -> tuple[DecisionRecord, ...]:
        # Only the current details show them (the search attributes compare state and count alone).
        return tuple(self._decisions[-DECISIONS_SHOWN:])

    async def _take_handoff(self, inp: AgentRunInput) -> AgentRunInput:
        """`inp` with the conversation an earlier run handed over by reference read back into `message_history`."""
        if inp.held_results is not None:
            self._early.update(inp.held_results)
        if inp.history_from is None:
            return inp
        self._loaded = await load_history(inp.agent, inp.history_from)
        self._encoder.assume_sent(self._loaded)
        info = workflow.info()
        self._history_at_start = (info.get_current_history_length(), info.get_current_history_size())
        self._history, self._unloaded = [*self._loaded, *self._history], None
        return replace(inp, message_history=list(self._history), history_from=None)

    async def _continue_as_new(
        self, inp: AgentRunInput, history: list[ModelMessage], *, upgrade: bool = False, **changes: Any
    ) -> bool:
        """Continue as new with `history` (by reference when large); `False` if a message arrived meanwhile.

        With `upgrade` (a conversation between turns), the next run starts on the current version of a versioned
        worker deployment rather than this run's (see `workflows._versioning`).

        Called only at consistent points: between turns, or between the steps of a run. A conversation has written
        its history already (`Handover.write`, before answering the turn), so it gets here in the workflow task that
        answers the turn and continues as new in that task.
        """
        await workflow.wait_condition(workflow.all_handlers_finished)
        carried, handoff = await self._handover.carry(history)
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
            'decisions': self._decisions[-MAX_DECISIONS_KEPT:] or None,
            'answering_agent': self._handed_off_to(),
            'agent_version': self._status.agent_version,
        }
        versioning = CONVERSATION_HANDOVER if upgrade else None
        attributes = carried_attributes(self._status.agent_version)  # the recorded one, whoever replayed the run
        next_input = replace(inp, **{**fields, **changes})
        workflow.continue_as_new(next_input, initial_versioning_behavior=versioning, search_attributes=attributes)

    def _time_to_continue_mid_run(self, inp: AgentRunInput, steps: int) -> bool:
        if inp.max_steps_per_run is not None and steps >= inp.max_steps_per_run:
            return True
        return steps > 0 and history_is_full(self._history_at_start)

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
            encoder=self._encoder,
            children=self._children,
            fan_out=ToolFanOut(
                inp.max_tool_calls_in_flight or durable.max_tool_calls_in_flight,
                inp.max_tool_calls_per_response or durable.max_tool_calls_per_response,
            ),
            reject=lambda refused: self._reject(
                [Rejection('submit_deferred_tool_results', reason, call_id) for call_id, reason in refused]
            ),
            decided=self._decided,
            answered_by=self._started_on,
        )
        # A run that continues in the middle carries the decisions it made so far (the last of the status's).
        self._run_decisions = list(inp.decisions or []) if inp.checkpoint is not None else []
        children_decided = len(self._children.decisions)  # its children's decisions join its own from here
        ports.hold_early(self._early)
        self._early = DeferredToolResults()
        rng = workflow.random()
        environment = RunEnvironment(now=workflow.now, random_bits=rng.getrandbits)
        with (
            ClosedQuietly(),
            use_environment(environment),
            use_ports(ports),
            use_thread_executor(INLINE),
            external_event_scope(self._event_waits),  # `RequestInput` waits durably, resolved by token
        ):
            async with agent.iter(
                inp.prompt,
                message_history=inp.message_history,
                deferred_tool_results=inp.deferred_tool_results,
                conversation_id=inp.conversation_id,
                model=StandInModel(inp.model or agent.model),
                deps=deps,
                model_settings=inp.model_settings,  # pyright: ignore[reportArgumentType]
                usage_limits=inp.usage_limits,
                # A copy: the run adds to it (and a run continued in the middle starts from its checkpoint's).
                usage=RunUsage() + inp.usage if inp.usage is not None and inp.checkpoint is None else None,
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
                        ports.spans.close()  # the run goes on in the next workflow run, which ends its span
                        break
        if checkpoint is not None:
            # Leaving the run's block above cancelled its run-level hooks; the next workflow run starts them again.
            # This run's history holds its input's messages; the run may have replaced some (the request it resumed
            # with is sent as a fresh copy), so the ones to write down start where the objects stop being the same.
            given = inp.message_history or []
            start = next((i for i, m in enumerate(given) if i >= len(carried) or carried[i] is not m), len(given))
            conversation_id = agent_run.ctx.conversation_id
            self._handover.written(start)
            while True:  # returns only if a handler was still running: wait for it and try again
                await self._continue_as_new(inp, carried, checkpoint=checkpoint, conversation_id=conversation_id)
        result = agent_run.result
        assert result is not None
        return AgentRunOutput(
            output=result.output,
            new_messages=result.new_messages(),
            usage=result.usage(),
            run_id=result.run_id,
            conversation_id=result.conversation_id,
            decisions=[*self._run_decisions, *self._children.decisions[children_decided:]],
        )

    def _authorize_token_answer(self, payload: Any, caller: str | None) -> str | None:
        """Why the agent's approval rules refuse what a resume token's payload approves from `caller`, if they do."""
        ports, live = self._ports, self._live_run
        durable = ports.durable if ports is not None else None
        if durable is None or not durable.approval_rules or live is None:
            return None
        latest = next((m for m in reversed(live.all_messages()) if isinstance(m, ModelResponse)), None)
        calls = {call.tool_call_id: call for call in latest.tool_calls} if latest is not None else {}
        return token_answer_refusal(payload, caller, calls, durable.approval_rules, durable.roles)

    def _decided(self, records: list[DecisionRecord]) -> None:
        """Keep the decision records of a step's deferred calls, for the status and the run's result."""
        for record in records:
            workflow.logger.info(
                'Tool call %s (%s): %s%s', record.tool_call_id, record.tool_name, record.decision,
                f' by {", ".join(record.by)}' if record.by else '',
            )  # fmt: skip
        self._run_decisions.extend(records)
        self._decisions.extend(records)
        del self._decisions[:-MAX_DECISIONS_KEPT]
