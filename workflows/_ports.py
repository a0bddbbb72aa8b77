"""`WorkflowPorts`: the agent graph's ports bound to activities, signals and durable waits."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

from activities._delegation import DelegationOutcome
from activities._errors import from_activity_error, validation_error_from_activity_error
from activities._names import call_tool_activity_name, model_request_activity_name, notify_activity_name
from activities._processed_history import processed_messages
from activities._remote_toolsets import is_remote_toolset
from activities._tool_result_size import DEFAULT_MAX_TOOL_RESULT_BYTES
from activities._tool_results import decode_tool_result
from activities._types import (
    ActivityRunContext,
    CallToolInput,
    CallToolOutput,
    DeferredNotice,
    ModelRequestInput,
    ModelRequestOutput,
)
from agent._agent_graph import RunCheckpoint
from agent._content import ToolReturn
from agent._deferred import DeferredToolRequests, DeferredToolResults, ToolDenied
from agent._instrumentation import InstrumentationSettings
from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse, ToolCallPart
from agent._processed_history import HistorySink, check_processed_history
from agent._run_context import RunContext
from agent.capabilities import (
    AbstractCapability,
    run_with_model_request_hooks,
    run_with_tool_execute_hooks,
    split_by_side,
)
from agent.toolsets import AbstractToolset

from ._activity_ids import ActivityIds
from ._activity_options import DEFAULT_MODEL_ACTIVITY, DEFAULT_TOOL_ACTIVITY, ActivityOptions
from ._answer_intake import AnswerIntake
from ._approval_policy import ApprovalPolicy
from ._children import Children, ChildRun
from ._decisions import Ballots, DecisionRecord, Vote
from ._delegation import child_workflow_id, run_delegated
from ._durable_agent import DurableAgent
from ._fan_out import ToolFanOut
from ._missing_keys import until_decrypted
from ._remote_toolset import ActivityListedToolset
from ._request_encoder import RequestEncoder
from ._request_size import check_request_fits
from ._run_details import model_request_summary, shorten, tool_call_summary
from ._run_spans import SpanGate, durable_settings

__all__ = ('WorkflowPorts',)

NOTIFY_TIMEOUT = timedelta(minutes=1)

T = TypeVar('T')


async def _execute(
    name: str, arg: Any, options: ActivityOptions, *, activity_id: str, result_type: type[T], summary: str
) -> T:
    """Run activity `name` as `options` say: a (regular) activity, or a local one.

    A regular activity that only workers without the key of its encrypted input took is scheduled again instead of
    failing the run (see `workflows._missing_keys`); a local one runs on this worker, which could read the run.
    """
    if options.local:
        return await workflow.execute_local_activity(
            name,
            arg,
            activity_id=activity_id,
            result_type=result_type,
            start_to_close_timeout=options.start_to_close_timeout,
            retry_policy=options.retry_policy,
            summary=summary,
        )

    def schedule(scheduled_id: str) -> Awaitable[T]:
        return workflow.execute_activity(
            name,
            arg,
            activity_id=scheduled_id,
            result_type=result_type,
            start_to_close_timeout=options.start_to_close_timeout,
            heartbeat_timeout=options.heartbeat_timeout,
            retry_policy=options.retry_policy,
            summary=summary,
        )

    return await until_decrypted(schedule, activity_id)


class WorkflowPorts(AnswerIntake):
    """Model requests and tool executions as activities; deferred calls wait for signals or updates."""

    def __init__(
        self,
        agent_name: str,
        model_override: str | None,
        *,
        policy: ApprovalPolicy | None = None,
        notify: bool = False,
        durable: DurableAgent | None = None,
        reject: Callable[[list[tuple[str, str]]], None] | None = None,
        turn: int = 0,
        checkpoint: RunCheckpoint | None = None,
        encoder: RequestEncoder | None = None,
        fan_out: ToolFanOut | None = None,
        children: Children | None = None,
        decided: Callable[[list[DecisionRecord]], None] | None = None,
        answered_by: Callable[[str, str | None], None] | None = None,
    ) -> None:
        self.agent_name = agent_name
        self.reject = reject or (lambda refused: None)
        """Told of results that could not be used, as `(tool call id, reason)` (the run's status lists them)."""
        self.model_override = model_override
        self.policy = policy or ApprovalPolicy()
        self.notify = notify
        self.durable = durable
        self.pending: DeferredToolRequests | None = None
        self.collected = DeferredToolResults()
        self.early = DeferredToolResults()
        self.refused_early: dict[str, str] = {}
        self.waiting_for_people = False
        """Whether the run waits for deferred tool results with nothing of its own in flight (`workflows._eviction`)."""
        self._sides: dict[int, tuple[AbstractCapability[Any], AbstractCapability[Any]]] = {}
        # Messages, tool results and parameters are sent to model activities once, then named by hash (a
        # conversation's turns share one encoder, so a turn names what earlier turns sent).
        self._encoder = encoder or RequestEncoder()
        self._end_requested = False
        self.activity_ids = ActivityIds(turn)
        self._in_flight: dict[str, str] = {}  # activity id -> what the run's current details say of it
        self._checkpoint = checkpoint
        self.spans = SpanGate()
        """Closed when the workflow run continues as new mid-turn: the next one ends the run's span."""
        self.fan_out = fan_out or ToolFanOut()
        """How many tool calls of one response run at once, and at all (see `workflows._fan_out`)."""
        self.children = children or Children()
        """The run's child runs in progress (see `workflows._children`)."""
        self.decided = decided or (lambda records: None)
        """Told of the decision records of each step's deferred calls (the run's status and result list them)."""
        self.answered_by = answered_by or (lambda agent, version: None)
        """Told of each model response's agent and its version there (the run records the first, see
        `workflows._agent_version`)."""
        self.ballots: Ballots | None = None
        """The votes on the approvals the run waits for, under the agent's approval rules."""
        self._votes: dict[str, list[Vote]] = {}  # the last wait's votes, until its decisions are recorded

    def only_children_waiting(self) -> bool:
        """Whether all the run has in flight is child runs, each waiting for a person (nothing else moves it on)."""
        return bool(self._in_flight) and all(self.children.waiting(key) for key in self._in_flight)

    def doing(self) -> tuple[str, ...]:
        """The model requests and tool calls in flight, as lines of the run's current details."""
        return tuple(self._in_flight.values())

    async def _model_activity(self, inp: ModelRequestInput, summary: str) -> ModelRequestOutput:
        try:
            return await self._execute_model_activity(inp, summary)
        except ActivityError as exc:
            # A model-request hook in the activity asked for a retry: the graph handles it as it does in-process.
            if (signal := from_activity_error(exc)) is not None:
                raise signal from None
            raise

    async def _execute_model_activity(self, inp: ModelRequestInput, summary: str) -> ModelRequestOutput:
        options = self.durable.model_activity if self.durable is not None else DEFAULT_MODEL_ACTIVITY
        activity_id = self.activity_ids.model_request(inp.ctx.run_step)
        self._in_flight[activity_id] = f'Waiting for the model: {summary}'
        try:
            return await _execute(
                model_request_activity_name(self.agent_name),
                inp,
                options,
                activity_id=activity_id,
                result_type=ModelRequestOutput,
                summary=summary,
            )
        finally:
            self._in_flight.pop(activity_id, None)

    def _workflow_side(self, capability: AbstractCapability[Any]) -> AbstractCapability[Any]:
        """The I/O hooks a capability moved to the workflow side (computed once per run capability)."""
        cached = self._sides.get(id(capability))
        if cached is None or cached[0] is not capability:
            cached = (capability, split_by_side(capability)[0])
            self._sides[id(capability)] = cached
        return cached[1]

    async def request_model(
        self,
        ctx: RunContext[Any],
        request_context: ModelRequestContext,
        capability: AbstractCapability[Any],
        *,
        adopt: HistorySink | None = None,
    ) -> ModelResponse:
        """Make the request in an activity, which runs the activity-side hooks and merges adjacent requests.

        The history the `before_model_request` hooks leave (those moved here, then the activity's) goes to `adopt`
        once the activity has answered (see `activities._processed_history`).
        """

        async def call_activity(rc: ModelRequestContext) -> ModelResponse:
            if adopt is not None:
                check_processed_history(rc.messages)  # what hooks moved here left, refused before the model is asked
            encoder = self._encoder
            inp = encoder.encode(ctx, rc, self.model_override)
            check_request_fits(inp, encoder.message_bytes(inp.messages), ctx.run_step)
            summary = model_request_summary(self.model_override or rc.model.label, ctx.run_step)
            output = await self._model_activity(inp, summary)
            in_full = output.messages_missing
            if in_full:
                # The activity ran on a worker without something the input named: send it again in full.
                full = encoder.in_full(inp, rc)
                check_request_fits(full, encoder.message_bytes(full.messages), ctx.run_step)
                output = await self._model_activity(full, summary)
            response = encoder.received(output, in_full=in_full)
            self.answered_by(self.agent_name, output.agent_version)
            if adopt is not None:
                processed = output.processed_history
                adopt(processed_messages(processed, rc.messages) if processed is not None else rc.messages)
            return response

        # Hooks moved to the workflow side wrap the activity here; the activity runs the others around the call.
        workflow_side = self._workflow_side(capability)
        if workflow_side.hook_names():
            return await run_with_model_request_hooks(workflow_side, ctx, request_context, call_activity)
        return await call_activity(request_context)

    def request_model_stream(self, ctx: RunContext[Any], request_context: ModelRequestContext) -> Any:
        # Durable runs make plain requests; the graph falls back to them when streaming is unavailable.
        raise NotImplementedError('Streamed model requests are not made from a workflow')

    async def execute_tool(
        self,
        ctx: RunContext[Any],
        call: ToolCallPart,
        tool: Any,
        args: dict[str, Any],
        capability: AbstractCapability[Any],
    ) -> Any:
        options = self.durable.options_for_tool(call.tool_name) if self.durable is not None else DEFAULT_TOOL_ACTIVITY
        limit = self.durable.max_tool_result_bytes if self.durable is not None else DEFAULT_MAX_TOOL_RESULT_BYTES

        async def call_activity(validated: dict[str, Any]) -> Any:
            first_id: str | None = None
            delegated: list[DelegationOutcome] = []
            while True:
                activity_id = self.activity_ids.tool_call(ctx.run_step, call.tool_call_id)
                first_id = first_id or activity_id
                output = await self._tool_activity(ctx, call, validated, options, limit, activity_id, delegated)
                request = output.delegation
                if request is None:
                    break
                # The tool started a run of a served agent: a child run; then the tool again, with its outcome.
                child = child_workflow_id(first_id, len(delegated))
                self._in_flight[child] = f'Running {request.agent} for {tool_call_summary(call)}'
                self.children.started(ChildRun(child, request.agent, call.tool_call_id))
                try:
                    delegated.append(await run_delegated(request, call, first_id, len(delegated)))
                finally:
                    self._in_flight.pop(child, None)
                    self.children.ended(child)
            # Usage counted inside the activity (a sub-agent's, in process or as a child run) joins the run's usage
            # and its limits.
            ctx.usage.incr(output.usage)
            result = decode_tool_result(output.result, output.result_kind)
            self._encoder.tool_result(result, output.content_key)
            return result

        async def call_in_workflow(validated: dict[str, Any]) -> Any:
            return await tool.toolset.call_tool(call.tool_name, validated, ctx, tool)

        # `load_capability` only reads the run's own capabilities and marks one loaded in the run's state, so it
        # runs here, in the workflow (an activity could not change that state); its result is recorded as usual.
        execute = call_in_workflow if tool.tool_def.tool_kind == 'capability-load' else call_activity
        workflow_side = self._workflow_side(capability)
        if workflow_side.hook_names():
            return await run_with_tool_execute_hooks(
                workflow_side, ctx, call=call, tool_def=tool.tool_def, args=args, execute=execute
            )
        return await execute(args)

    async def _tool_activity(
        self,
        ctx: RunContext[Any],
        call: ToolCallPart,
        validated: dict[str, Any],
        options: ActivityOptions,
        limit: int,
        activity_id: str,
        delegated: list[DelegationOutcome],
    ) -> CallToolOutput:
        """One round of a tool call's activity (a tool that delegates has one more per delegation)."""
        summary = tool_call_summary(call)
        self._in_flight[activity_id] = f'Calling {summary}'
        inp = CallToolInput(
            ActivityRunContext.from_run_context(ctx, model=self.model_override),
            call,
            validated,
            max_result_bytes=limit,
            delegated=list(delegated),
        )
        try:
            return await _execute(
                call_tool_activity_name(self.agent_name),
                inp,
                options,
                activity_id=activity_id,
                result_type=CallToolOutput,
                summary=summary,
            )
        except ActivityError as exc:
            if (signal := from_activity_error(exc) or validation_error_from_activity_error(exc)) is not None:
                raise signal from None
            raise
        finally:
            self._in_flight.pop(activity_id, None)

    def tool_calls_at_once(self, calls: int) -> int:
        """At most `max_tool_calls_in_flight` tool calls of one response at a time; the rest wait in the workflow."""
        return self.fan_out.at_once(calls)

    def tool_calls_to_run(self, calls: int) -> int:
        """At most `max_tool_calls_per_response` calls of one response run, if the run has that cap."""
        return self.fan_out.to_run(calls)

    async def await_deferred_results(
        self, ctx: RunContext[Any], requests: DeferredToolRequests
    ) -> DeferredToolResults | None:
        agent = ctx.agent
        if agent is not None and agent._output_schema.allows_deferred_tool_requests:
            return None  # the agent asked for the end-the-run style: return the requests as the output
        self.pending = requests
        self.collected = DeferredToolResults()
        durable = self.durable
        self.ballots = Ballots(durable.approval_rules if durable else {}, durable.roles if durable else {}, requests)
        self._take_early_results(requests)
        try:
            if not await self._wait_for_results(ctx, requests):
                return self._on_timeout(requests)
            return self.collected
        finally:
            self._votes = self.ballots.votes
            self.pending = None
            self.collected = DeferredToolResults()
            self.ballots = None

    async def _wait_for_results(self, ctx: RunContext[Any], requests: DeferredToolRequests) -> bool:
        """Wait (on durable timers) until every call is resolved; `False` if the policy's timeout fired."""
        policy = self.policy
        deadline = workflow.now() + policy.timeout if policy.timeout is not None else None
        reminder = 0
        notified = False
        while True:
            if self.notify and not notified:
                await self._notify(ctx, requests, reminder)
            expiry = self._next_expiry()
            waits = [
                w
                for w in (
                    policy.remind_every,
                    deadline - workflow.now() if deadline else None,
                    expiry - workflow.now() if expiry else None,
                )
                if w is not None
            ]
            self.waiting_for_people = True  # nothing of the run's own is in flight: only a person can move it on
            try:
                await workflow.wait_condition(
                    lambda: requests.remaining(self.collected) is None, timeout=min(waits) if waits else None
                )
                return True
            except TimeoutError:
                if deadline is not None and workflow.now() >= deadline:
                    return False
                if expiry is not None and workflow.now() >= expiry:
                    if not self._expire():
                        return False  # a rule escalates to the run's timeout policy
                    if requests.remaining(self.collected) is None:
                        return True
                    notified = True  # an expiry is not a reminder
                    continue
                notified = False
                reminder += 1
            finally:
                self.waiting_for_people = False

    async def _notify(self, ctx: RunContext[Any], requests: DeferredToolRequests, reminder: int) -> None:
        remaining = requests.remaining(self.collected)
        if remaining is None:
            return
        notice = DeferredNotice(
            agent=self.agent_name,
            requests=remaining,
            workflow_id=workflow.info().workflow_id,
            run_id=ctx.run_id or '',
            reminder=reminder,
        )
        await workflow.execute_activity(
            notify_activity_name(self.agent_name),
            notice,
            activity_id=self.activity_ids.other(ctx.run_step, f'notify.{reminder}'),
            start_to_close_timeout=NOTIFY_TIMEOUT,
            summary=shorten(
                f'Notify{f" (reminder {reminder})" if reminder else ""}: '
                + ', '.join(call.tool_name for call in [*remaining.approvals, *remaining.calls])
            ),
        )

    def _on_timeout(self, requests: DeferredToolRequests) -> DeferredToolResults | None:
        remaining = requests.remaining(self.collected)
        assert remaining is not None
        policy = self.policy
        if policy.on_timeout == 'fail':
            raise ApplicationError(
                f'Deferred tool calls {remaining.tool_call_ids} were not resolved within '
                f'{policy.timeout_seconds} seconds',
                type='DeferredToolsTimeout',
                non_retryable=True,
            )
        if policy.on_timeout == 'end':
            self._end_requested = True
            return None
        results = self.collected
        for call in remaining.approvals:
            results.approvals[call.tool_call_id] = ToolDenied(policy.deny_message)
        for call in remaining.calls:
            results.calls[call.tool_call_id] = ToolReturn(policy.deny_message)
        return results

    @property
    def runs_event_stream_handler(self) -> bool:
        """The agent's event stream handler runs in the activities, where the events happen."""
        return False

    def instrumentation(self, settings: InstrumentationSettings, ctx: RunContext[Any]) -> InstrumentationSettings:
        """Spans opened by workflow code get replay-proof ids and are exported once (see `workflows._run_spans`)."""
        return durable_settings(settings, ctx.run_id or '', self.spans)

    def adapt_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any]:
        """MCP servers list their tools through an activity (the workflow cannot reach the network)."""
        if not is_remote_toolset(toolset):
            return toolset
        assert toolset.id is not None  # checked when the worker registered the agent
        return ActivityListedToolset(
            self.agent_name,
            toolset.id,
            getattr(toolset, 'max_retries', 1),
            f'{toolset.label} (listed by activity)',
            include_instructions=bool(getattr(toolset, 'include_instructions', False)),
            activity_ids=self.activity_ids,
            model_override=self.model_override,
        )

    def ends_with_deferred_requests(self) -> bool:
        return self._end_requested

    def resumed_run(self) -> RunCheckpoint | None:
        """The checkpoint of the agent run this workflow run continues (given to the first run started only)."""
        checkpoint, self._checkpoint = self._checkpoint, None
        return checkpoint
