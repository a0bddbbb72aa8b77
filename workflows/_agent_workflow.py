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
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ApplicationError
from temporalio.worker.workflow_sandbox import RestrictedWorkflowAccessError
from temporalio.workflow import ContinueAsNewError

with workflow.unsafe.imports_passed_through():
    from agent._deferred import DeferredToolRequests, DeferredToolResults
    from agent._env import RunEnvironment, use_environment
    from agent._parts import ModelMessage
    from agent._ports import use_ports
    from agent._serialization import serializable_deps_adapter
    from agent._threads import INLINE, use_thread_executor
    from agent.exceptions import AgentRunError, UserError
    from agent.graph import End
    from agent.usage import RunUsage

    from ._ports import WorkflowPorts
    from ._registry import get_durable_agent
    from ._result_size import fit_result, message_page
    from ._stand_in_model import StandInModel
    from ._types import AgentRunInput, AgentRunOutput, ConversationMessage, MessagePage, RunStatus

__all__ = ('AgentWorkflow', 'conversation_workflow_id')


def conversation_workflow_id(agent: str, conversation_id: str) -> str:
    """The workflow id of a conversation, so a stateless front end can address it by conversation id alone."""
    return f'agent-{agent}-conversation-{conversation_id}'


@dataclass
class _Turn:
    prompt: Any
    done: bool = False
    result: AgentRunOutput | None = None
    error: BaseException | None = None


def _as_workflow_failure(exc: BaseException) -> ApplicationError | None:
    """Deterministic failures become non-retryable workflow failures instead of retrying the task forever."""
    if isinstance(exc, UserError | AgentRunError):
        return ApplicationError(f'{type(exc).__name__}: {exc}', type=type(exc).__name__, non_retryable=True)
    if isinstance(exc, RestrictedWorkflowAccessError):
        return ApplicationError(
            f'Workflow-side code tried to do I/O ({exc}). Hooks, instructions and prepare functions run in the '
            'workflow and must be deterministic. Do I/O in tools, or in model-request/tool-execute hooks (which '
            "run in activities; a capability that moved one with hook_sides={...: 'workflow'} must move it back).",
            type='WorkflowSideIO',
            non_retryable=True,
        )
    return None


@workflow.defn(name='AgentWorkflow')
class AgentWorkflow:
    """Runs a registered agent durably."""

    @workflow.init
    def __init__(self, inp: AgentRunInput) -> None:
        self._ports: WorkflowPorts | None = None
        self._status = RunStatus()
        self._early = DeferredToolResults()
        self._conversation = inp.conversation
        self._turns: deque[_Turn] = deque()
        self._closing = False
        self._new_messages: list[ModelMessage] = []

    @workflow.run
    async def run(self, inp: AgentRunInput) -> AgentRunOutput:
        """Run the agent named in `inp` to completion."""
        try:
            output = await (self._converse(inp) if inp.conversation else self._run(inp))
        except ContinueAsNewError:
            raise
        except BaseException as exc:
            self._status.state = 'failed'
            failure = _as_workflow_failure(exc)
            if failure is not None:
                raise failure from exc
            raise
        self._status.state = 'completed'
        self._new_messages = output.new_messages
        return fit_result(output)

    async def _converse(self, inp: AgentRunInput) -> AgentRunOutput:
        """Run turns as they arrive (`send_message` updates) until closed, idle, or it is time to continue as new."""
        history = list(inp.message_history or [])
        start = len(history)
        conversation_id = inp.conversation_id
        last: AgentRunOutput | None = None
        usage = RunUsage()
        turns = 0
        if inp.prompt is not None or inp.deferred_tool_results is not None:
            last = await self._run(inp)
            history.extend(last.new_messages)
            conversation_id, turns = last.conversation_id, 1
            usage.incr(last.usage)
        idle = timedelta(seconds=inp.idle_timeout_seconds) if inp.idle_timeout_seconds else None
        while True:
            if not self._turns and self._time_to_continue_as_new(inp, turns):
                # A consistent point: between turns, nothing pending; the history travels to the next run.
                await workflow.wait_condition(workflow.all_handlers_finished)
                workflow.continue_as_new(
                    replace(
                        inp, prompt=None, message_history=history, deferred_tool_results=None,
                        conversation_id=conversation_id,
                    )
                )  # fmt: skip
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
                out = await self._run(
                    replace(
                        inp, prompt=turn.prompt, message_history=history, deferred_tool_results=None,
                        conversation_id=conversation_id,
                    )
                )  # fmt: skip
            except Exception as exc:
                # A failed turn fails its update, not the conversation.
                turn.error = _as_workflow_failure(exc) or ApplicationError(f'{type(exc).__name__}: {exc}')
                turn.done = True
                continue
            history.extend(out.new_messages)
            conversation_id = out.conversation_id
            usage.incr(out.usage)
            turn.result, turn.done, last, turns = out, True, out, turns + 1
        return AgentRunOutput(
            output=last.output if last is not None else None,
            new_messages=history[start:],
            usage=usage,
            run_id=last.run_id if last is not None else '',
            conversation_id=conversation_id or '',
        )

    @staticmethod
    def _time_to_continue_as_new(inp: AgentRunInput, turns: int) -> bool:
        if inp.max_turns_per_run is not None and turns >= inp.max_turns_per_run:
            return True
        return turns > 0 and workflow.info().is_continue_as_new_suggested()

    async def _run(self, inp: AgentRunInput) -> AgentRunOutput:
        durable = get_durable_agent(inp.agent, workflow.info().task_queue)
        agent = durable.agent
        deps: Any = inp.deps
        if agent.deps_type is not type(None) and deps is not None:
            deps = serializable_deps_adapter(agent.deps_type, agent_name=inp.agent).validate_python(deps)
        self._ports = ports = WorkflowPorts(
            inp.agent,
            inp.model,
            policy=inp.approval_policy or durable.approval_policy,
            notify=durable.notifier is not None,
            durable=durable,
        )
        ports.hold_early(self._early)
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
                node = agent_run.next_node
                while not isinstance(node, End):
                    node = await agent_run.next(node)
                    self._status.step = agent_run.state.run_step
                    self._status.usage = agent_run.usage()
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
    async def send_message(self, message: ConversationMessage) -> AgentRunOutput:
        """A new user turn in a conversation; returns that turn's result."""
        turn = _Turn(message.prompt)
        self._turns.append(turn)
        await workflow.wait_condition(lambda: turn.done)
        if turn.error is not None:
            raise turn.error
        assert turn.result is not None
        return fit_result(turn.result)

    @send_message.validator
    def _validate_message(self, message: ConversationMessage) -> None:
        if not self._conversation:
            raise ValueError('This run is not a conversation: start it with "conversation": true to send messages.')
        if self._closing:
            raise ValueError('The conversation is closing and takes no more messages.')

    @workflow.signal(name='close_conversation')
    def close_conversation(self) -> None:
        """End the conversation once queued turns are done."""
        self._closing = True

    @workflow.signal(name='submit_deferred_tool_results')
    def submit_deferred_tool_results(self, results: DeferredToolResults) -> None:
        """Deliver results for deferred tool calls; results that arrive before their calls are pending are kept."""
        if self._ports is None or self._ports.pending is None:
            # Nothing is waiting yet (a reviewer can be faster than the model): keep them for later.
            if self._ports is None:
                self._early.update(results)
            else:
                self._ports.hold_early(results)
            return
        try:
            self._ports.check_results(results)
        except ValueError as exc:
            workflow.logger.warning('Ignoring deferred tool results: %s', exc)
            return
        self._ports.add_results(results)

    @workflow.update(name='resolve_deferred_tools')
    def resolve_deferred_tools(self, results: DeferredToolResults) -> DeferredToolRequests | None:
        """Deliver results for pending deferred tool calls; returns what is still pending."""
        assert self._ports is not None
        return self._ports.add_results(results)

    @resolve_deferred_tools.validator
    def _validate_resolution(self, results: DeferredToolResults) -> None:
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
            return RunStatus(state='awaiting_deferred_tools', step=self._status.step, usage=self._status.usage)
        return self._status
