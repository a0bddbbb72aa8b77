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

from typing import Any

from temporalio import workflow
from temporalio.exceptions import ApplicationError
from temporalio.worker.workflow_sandbox import RestrictedWorkflowAccessError

with workflow.unsafe.imports_passed_through():
    from agent._deferred import DeferredToolRequests, DeferredToolResults
    from agent._env import RunEnvironment, use_environment
    from agent._ports import use_ports
    from agent._serialization import serializable_deps_adapter
    from agent._threads import INLINE, use_thread_executor
    from agent.exceptions import AgentRunError, UserError
    from agent.graph import End

    from ._ports import WorkflowPorts
    from ._registry import get_durable_agent
    from ._stand_in_model import StandInModel
    from ._types import AgentRunInput, AgentRunOutput, RunStatus

__all__ = ('AgentWorkflow',)


@workflow.defn(name='AgentWorkflow')
class AgentWorkflow:
    """Runs a registered agent durably."""

    def __init__(self) -> None:
        self._ports: WorkflowPorts | None = None
        self._status = RunStatus()
        self._early = DeferredToolResults()

    @workflow.run
    async def run(self, inp: AgentRunInput) -> AgentRunOutput:
        """Run the agent named in `inp` to completion."""
        try:
            output = await self._run(inp)
        except (UserError, AgentRunError) as exc:
            # Deterministic failures fail the workflow instead of retrying the workflow task forever.
            self._status.state = 'failed'
            raise ApplicationError(f'{type(exc).__name__}: {exc}', type=type(exc).__name__, non_retryable=True) from exc
        except RestrictedWorkflowAccessError as exc:
            self._status.state = 'failed'
            raise ApplicationError(
                f'Workflow-side code tried to do I/O ({exc}). Hooks, instructions and prepare functions run in the '
                'workflow and must be deterministic. Do I/O in tools, or in model-request/tool-execute hooks (which '
                "run in activities; a capability that moved one with hook_sides={...: 'workflow'} must move it back).",
                type='WorkflowSideIO',
                non_retryable=True,
            ) from exc
        except BaseException:
            self._status.state = 'failed'
            raise
        self._status.state = 'completed'
        return output

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

    @workflow.query(name='status')
    def status(self) -> RunStatus:
        """Where the run is: state, step and usage."""
        waiting = self._ports is not None and self._ports.pending is not None
        if self._status.state == 'running' and waiting:
            return RunStatus(state='awaiting_deferred_tools', step=self._status.step, usage=self._status.usage)
        return self._status
