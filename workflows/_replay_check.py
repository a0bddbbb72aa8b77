"""Replaying the recent runs of registered agents against the code at hand: what a deploy would do to them.

A run of `AgentWorkflow` is rebuilt from its history whenever a worker picks it up again: after a restart, after it
left the cache while it waited for a person, for a `status` query. The new code must then make the same decisions
the recorded run made, command for command, or the run's workflow task fails with a non-determinism error until a
worker with the old code takes it. `check_histories` fetches the recent histories of each agent (open runs, partial
histories included, and closed ones, whose shape open runs share), replays them with the worker's runner, and
classifies each run:

- `replays`: the new code makes the same decisions.
- `would fail`: replay diverges; the SDK's error is told in a line a person understands (`describe_failure`).
- `would change`: replay passes, but the run waits for an answer that the new code would treat differently (a
  pending approval of a tool that no longer requires one, or no longer exists; `pending_changes`).

Which calls a replayed run waits for is read from the replayed workflow itself: the runner hands each instance the
extern function the worker's eviction watch uses (`workflows._eviction.WAITING_EXTERN`), the workflow registers its
"waits for a person" predicate through it, and that predicate's run answers `pending_deferred_tools` as the query
would. Registering an extern is not a command, so this changes nothing in the replay.

The histories come from a visibility query on the `AgentName` search attribute; on a namespace without it the runs of
`AgentWorkflow` in the window are listed and told apart by the agent named in their input (`by_input`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Literal

import temporalio.workflow
from temporalio.client import Client, WorkflowHistory
from temporalio.converter import DataConverter
from temporalio.worker import Replayer, WorkflowInstance, WorkflowInstanceDetails, WorkflowRunner

from agent import Agent
from agent._deferred import DeferredToolRequests

from ._durable_agent import DurableAgent
from ._eviction import WAITING_EXTERN
from ._replay_failures import describe_failure, recorded_calls
from ._search_attributes import AGENT_NAME, missing_search_attributes

__all__ = (
    'DEFAULT_LIMIT',
    'DEFAULT_SINCE',
    'ReplayVerdict',
    'Verdict',
    'check_histories',
    'pending_changes',
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
    start = (datetime.now(timezone.utc) - since).strftime('%Y-%m-%dT%H:%M:%SZ')
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


class _PendingWatch(WorkflowRunner):
    """`inner`, handing every instance the eviction watch's extern, to read what each replayed run waits for."""

    def __init__(self, inner: WorkflowRunner) -> None:
        self._inner = inner
        self.predicates: dict[str, Callable[[], bool]] = {}

    def prepare_workflow(self, defn: temporalio.workflow._Definition) -> None:
        self._inner.prepare_workflow(defn)

    def set_worker_level_failure_exception_types(self, types: Sequence[type[BaseException]]) -> None:
        self._inner.set_worker_level_failure_exception_types(types)

    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        run_id = det.info.run_id

        def register(predicate: Callable[[], bool]) -> None:
            self.predicates[run_id] = predicate

        det = dataclasses.replace(det, extern_functions={**det.extern_functions, WAITING_EXTERN: register})
        return self._inner.create_instance(det)

    def pending(self, run_id: str) -> DeferredToolRequests | None:
        """The deferred calls the replayed run `run_id` waits for, as its `pending_deferred_tools` query says."""
        # The predicate is the workflow's bound method; its run only reads state here, as the predicate does.
        run = getattr(self.predicates.get(run_id), '__self__', None)
        try:
            return run.pending_deferred_tools() if run is not None else None
        except Exception:  # a run that cannot say is judged by its replay alone
            return None


def tools_of(agent: Agent[Any, Any]) -> dict[str, Any] | None:
    """The agent's tools by name, or `None` if a toolset lists its tools only at run time (MCP, dynamic)."""
    tools: dict[str, Any] = {}
    for toolset in agent.toolsets:
        listed = getattr(toolset, 'tools', None)
        if not isinstance(listed, dict):
            return None
        tools.update(listed)  # pyright: ignore[reportUnknownArgumentType]
    return tools


def pending_changes(pending: DeferredToolRequests | None, agent: Agent[Any, Any]) -> str | None:
    """How the new `agent` would treat a replayed run's pending approvals differently, or `None`.

    A call the recorded run deferred for approval stays pending whatever the new code says (the history decided
    it), but once answered it runs under the new code: a tool that no longer exists is reported to the model as
    unknown, and a tool that no longer requires approval would not have waited in a new run.
    """
    tools = tools_of(agent) if pending is not None else None
    if pending is None or tools is None:
        return None
    changes: list[str] = []
    for call in pending.approvals:
        tool = tools.get(call.tool_name)
        if tool is None:
            changes.append(f'tool {call.tool_name!r} no longer exists, but call {call.tool_call_id} waits for approval')
        elif not getattr(tool, 'requires_approval', True):
            changes.append(
                f'tool {call.tool_name!r} no longer requires approval, but call {call.tool_call_id} waits for one'
            )
    return '; '.join(changes) or None


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
        by_input = bool(await missing_search_attributes(client, [AGENT_NAME]))
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
            elif is_open and (change := pending_changes(watch.pending(history.run_id), _agent_of(agents[name]))):
                verdict = dataclasses.replace(verdict, verdict='would change', reason=change)
            verdicts[history.run_id] = verdict
    return [verdicts[history.run_id] for _, _, history in runs if history.run_id in verdicts]
