"""Replaying the recent runs of registered agents against the code at hand: what a deploy would do to them.

A run of `AgentWorkflow` is rebuilt from its history whenever a worker picks it up again: after a restart, after it
left the cache while it waited for a person, for a `status` query. The new code must then make the same decisions
the recorded run made, command for command, or the run's workflow task fails with a non-determinism error until a
worker with the old code takes it. `check_histories` fetches the recent histories of each agent (open runs, partial
histories included, and closed ones, whose shape open runs share), replays them with the worker's runner, and
classifies each run:

- `replays`: the new code makes the same decisions.
- `would fail`: replay diverges; the SDK's error is told in a line a person understands (`describe_failure`).
- `would change`: replay passes, but where the history waits (nothing in flight) the new code would go on at once: a
  call that waited for approval, whose tool no longer requires it, would run (on runs that record no search
  attributes; those that do record the wait, and fail), or a changed approval rule is met by the answers recorded.

What a replayed run has in flight is read from the replayed workflow itself, after every activation (the replayer
evicts the run at the end of its history, which tears it down): the runner hands each instance the extern function
the worker's eviction watch uses (`workflows._eviction.WAITING_EXTERN`), the workflow registers its "waits for a
person" predicate through it, and that predicate's run lists what it has in flight (its current details). Registering
an extern is not a command, so this changes nothing in the replay.

The histories come from a visibility query on the `AgentName` search attribute; on a namespace without it the runs of
`AgentWorkflow` in the window are listed and told apart by the agent named in their input (`by_input`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import temporalio.converter
import temporalio.workflow
from temporalio.bridge.proto.workflow_activation import WorkflowActivation
from temporalio.bridge.proto.workflow_completion import WorkflowActivationCompletion
from temporalio.client import Client, WorkflowHistory
from temporalio.converter import StorageDriverStoreContext
from temporalio.service import RPCError
from temporalio.worker import Replayer, WorkflowInstance, WorkflowInstanceDetails, WorkflowRunner

from agent import Agent

from ._durable_agent import DurableAgent
from ._eviction import WAITING_EXTERN
from ._replay_failures import RecordedCall, describe_failure, recorded_calls, waiting_cause
from ._search_attributes import AGENT_NAME, missing_search_attributes

__all__ = (
    'DEFAULT_LIMIT',
    'DEFAULT_SINCE',
    'ReplayVerdict',
    'Verdict',
    'check_histories',
    'tools_of',
)

Verdict = Literal['replays', 'would fail', 'would change']
"""What deploying the code would do to a run: nothing, fail its replay, or change how it goes on."""

DEFAULT_LIMIT = 20
"""Runs fetched per agent unless told."""
DEFAULT_SINCE = timedelta(hours=24)
"""How far back runs are fetched unless told (by their start time)."""


@dataclass(frozen=True)
class ReplayVerdict:
    """What the code at hand would do to one recorded run."""

    workflow_id: str
    """The run's workflow id."""
    run_id: str
    """Its run id."""
    agent: str
    """The registered name of its agent."""
    verdict: Verdict
    """`replays`, `would fail` or `would change`."""
    reason: str = ''
    """Why, in one line (empty when it replays)."""
    open: bool = False
    """Whether the run had not closed when its history was fetched (it will be replayed by the new workers)."""

    def line(self) -> str:
        """The run on one line: workflow id, agent, open or closed, verdict, and why."""
        where = 'open' if self.open else 'closed'
        return f'{self.workflow_id}  {self.agent}  {where}  {self.verdict}' + (
            f': {self.reason}' if self.reason else ''
        )


def _agent_of(entry: Agent[Any, Any] | DurableAgent) -> Agent[Any, Any]:
    return entry.agent if isinstance(entry, DurableAgent) else entry


def _quote(value: str) -> str:
    return "'" + value.replace('\\', '\\\\').replace("'", "\\'") + "'"


async def _input_agent(client: Client, history: WorkflowHistory) -> str | None:
    """The agent named in the run's input, read from its first event."""
    started = history.events[0].workflow_execution_started_event_attributes if history.events else None
    if started is None or not started.input.payloads:
        return None
    try:
        [value] = await client.data_converter.decode(started.input.payloads[:1])
    except Exception:  # an input this converter cannot read is not a run of these agents
        return None
    agent = value.get('agent') if isinstance(value, dict) else getattr(value, 'agent', None)
    return agent if isinstance(agent, str) else None


async def _recent_histories(
    client: Client, names: Sequence[str], *, limit: int, since: timedelta, by_input: bool
) -> list[tuple[str, bool, WorkflowHistory]]:
    """Up to `limit` runs per agent started within `since`, newest first, as `(agent, open, history)`."""
    start = (datetime.now(UTC) - since).strftime('%Y-%m-%dT%H:%M:%SZ')
    base = f"WorkflowType = 'AgentWorkflow' AND StartTime >= '{start}'"
    found: list[tuple[str, bool, WorkflowHistory]] = []
    if not by_input:
        for name in names:
            query = f'{base} AND {AGENT_NAME.name} = {_quote(name)}'
            async for execution in client.list_workflows(query, limit=limit):
                handle = client.get_workflow_handle(execution.id, run_id=execution.run_id)
                found.append((name, execution.close_time is None, await handle.fetch_history()))
        return found
    counts = dict.fromkeys(names, 0)
    async for execution in client.list_workflows(base):
        if all(count >= limit for count in counts.values()):
            break
        history = await client.get_workflow_handle(execution.id, run_id=execution.run_id).fetch_history()
        name = await _input_agent(client, history)
        if name in counts and counts[name] < limit:
            counts[name] += 1
            found.append((name, execution.close_time is None, history))
    return found


@dataclass(frozen=True)
class _Standing:
    """What a replayed run has in flight, as its last activation left it."""

    doing: tuple[str, ...]


class _PendingWatch(WorkflowRunner):
    """`inner`, reading after every activation what each replayed run waits for and has in flight.

    Read after each activation, because the replayer evicts a run at the end of its history, which tears the run
    down (its state is then that of a run that stopped).
    """

    def __init__(self, inner: WorkflowRunner) -> None:
        self._inner = inner
        self.standing: dict[str, _Standing] = {}

    def prepare_workflow(self, defn: temporalio.workflow._Definition) -> None:
        self._inner.prepare_workflow(defn)

    def set_worker_level_failure_exception_types(self, types: Sequence[type[BaseException]]) -> None:
        self._inner.set_worker_level_failure_exception_types(types)

    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        registered: list[Callable[[], bool]] = []
        det = dataclasses.replace(det, extern_functions={**det.extern_functions, WAITING_EXTERN: registered.append})
        return _Reading(self._inner.create_instance(det), det.info.run_id, registered, self.standing)

    def change(
        self, run_id: str, history: WorkflowHistory, calls: Mapping[str, RecordedCall], agent: Agent[Any, Any]
    ) -> str | None:
        """How the replayed run `run_id` would go on differently from what its history waits for, or `None`.

        The history waits (no activity in flight) while the new code, having replayed it, already has work in
        flight: a call that waited for approval would now run at once, say.
        """
        standing = self.standing.get(run_id)
        if standing is None or not standing.doing or _in_flight(history):
            return None
        return (
            waiting_cause(calls, tools_of(agent))
            or f'the history waits, but the new code goes on at once: {"; ".join(standing.doing)}'
        )


class _Reading(WorkflowInstance):
    def __init__(
        self,
        inner: WorkflowInstance,
        run_id: str,
        registered: list[Callable[[], bool]],
        standing: dict[str, _Standing],
    ) -> None:
        self._inner = inner
        self._run_id = run_id
        self._registered = registered
        self._standing = standing

    def activate(self, act: WorkflowActivation) -> WorkflowActivationCompletion:
        completion = self._inner.activate(act)
        if self._registered and not any(job.HasField('remove_from_cache') for job in act.jobs):
            # The predicate is the workflow's bound method; its run only reads state here, as the predicate does.
            run: Any = getattr(self._registered[-1], '__self__', None)
            try:
                ports = run._ports  # the workflow of this package: what its run has in flight
                doing = ports.doing() if ports is not None and not ports.only_children_waiting() else ()
                self._standing[self._run_id] = _Standing(tuple(doing))
            except Exception:  # a run that cannot say is judged by its replay alone
                self._standing.pop(self._run_id, None)
        return completion

    def get_serialization_context(self, command_info: object) -> temporalio.converter.SerializationContext | None:
        return self._inner.get_serialization_context(command_info)  # pyright: ignore[reportArgumentType]

    def get_external_store_context(self, command_info: object) -> StorageDriverStoreContext:
        return self._inner.get_external_store_context(command_info)  # pyright: ignore[reportArgumentType]

    def get_info(self) -> temporalio.workflow.Info:
        return self._inner.get_info()

    def get_thread_id(self) -> int | None:
        return self._inner.get_thread_id()


_ACTIVITY_CLOSED = frozenset(
    f'activity_task_{end}_event_attributes' for end in ('completed', 'failed', 'timed_out', 'canceled')
)


def _in_flight(history: WorkflowHistory) -> bool:
    """Whether the history has an activity scheduled that has not closed."""
    scheduled: set[int] = set()
    for event in history.events:
        kind = event.WhichOneof('attributes')
        if kind == 'activity_task_scheduled_event_attributes':
            scheduled.add(event.event_id)
        elif kind in _ACTIVITY_CLOSED:
            scheduled.discard(getattr(event, kind).scheduled_event_id)
    return bool(scheduled)


def tools_of(agent: Agent[Any, Any]) -> dict[str, Any] | None:
    """The agent's tools by name, or `None` if a toolset lists its tools only at run time (MCP, dynamic)."""
    tools: dict[str, Any] = {}
    for toolset in agent.toolsets:
        listed = getattr(toolset, 'tools', None)
        if not isinstance(listed, dict):
            return None
        tools.update(listed)
    return tools


async def check_histories(
    client: Client,
    agents: Mapping[str, Agent[Any, Any] | DurableAgent],
    replayer: Callable[[WorkflowRunner], Replayer],
    *,
    runner: WorkflowRunner,
    limit: int = DEFAULT_LIMIT,
    since: timedelta = DEFAULT_SINCE,
    by_input: bool | None = None,
) -> list[ReplayVerdict]:
    """Replay the runs of `agents` started within `since` (up to `limit` per agent) and judge each.

    `replayer` builds the replayer of these agents around a runner (the worker's, `runner`, wrapped to read what
    each replayed run waits for). `by_input=None` finds the runs by the `AgentName` search attribute if the
    namespace has it, else by their input; `True` or `False` decides without asking.
    """
    if by_input is None:
        try:
            by_input = bool(await missing_search_attributes(client, [AGENT_NAME]))
        except RPCError:  # no operator access (some cloud keys): the runs are looked for by the attribute
            by_input = False
    runs = await _recent_histories(client, list(agents), limit=limit, since=since, by_input=by_input)
    if not runs:
        return []
    watch = _PendingWatch(runner)
    converter = client.data_converter
    by_run = {history.run_id: (name, is_open, history) for name, is_open, history in runs}
    verdicts: dict[str, ReplayVerdict] = {}

    async def histories() -> AsyncIterator[WorkflowHistory]:
        for _, _, history in runs:
            yield history

    async with replayer(watch).workflow_replay_iterator(histories()) as results:
        async for result in results:
            name, is_open, history = by_run[result.history.run_id]
            verdict = ReplayVerdict(history.workflow_id, history.run_id, name, 'replays', open=is_open)
            if result.replay_failure is not None:
                calls = await recorded_calls(converter, history)
                tools = tools_of(_agent_of(agents[name]))
                reason = describe_failure(result.replay_failure, history, calls, tools)
                verdict = dataclasses.replace(verdict, verdict='would fail', reason=reason)
            elif is_open and (
                change := watch.change(
                    history.run_id, history, await recorded_calls(converter, history), _agent_of(agents[name])
                )
            ):
                verdict = dataclasses.replace(verdict, verdict='would change', reason=change)
            verdicts[history.run_id] = verdict
    return [verdicts[history.run_id] for _, _, history in runs if history.run_id in verdicts]
