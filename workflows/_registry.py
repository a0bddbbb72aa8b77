"""The agents workers run, by task queue and name.

Workers register agents once, at start-up; the workflow only looks them up (by its task queue and the
agent name in its input). This module is passed through the workflow sandbox, so the workflow sees the
workers' registry and never rebuilds an agent for a run. Keying by task queue lets several workers in
one process serve different agents under the same name. A worker also records here what its runs do when
workflow-side code raises (`set_workflow_side_errors`). Each registration computes the agent's version
(`workflows._fingerprint`) once, for the runs it starts to record (`agent_version`, `set_records_agent_version`).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from agent import Agent, UserError

from ._durable_agent import DurableAgent
from ._fingerprint import agent_fingerprint

__all__ = (
    'ANY_TASK_QUEUE',
    'WorkflowSideErrors',
    'agent_version',
    'get_agent',
    'get_durable_agent',
    'records_agent_version',
    'register_agent',
    'registered_agents',
    'registered_names',
    'release_agent',
    'retries_workflow_side_errors',
    'set_records_agent_version',
    'set_workflow_side_errors',
)

ANY_TASK_QUEUE = '*'
"""Registers an agent for every task queue (used by the replayer, which replays any queue's history)."""

WorkflowSideErrors = Literal['fail', 'retry']
"""What a run does when user code in the workflow raises: fail (the run, or a conversation's turn) or retry its
workflow task until a worker with fixed code resumes it (see `workflows._failures`). The worker applies the same
choice to user code's errors in its model-request activities (see `activities._transient`)."""

_entries: dict[tuple[str, str], DurableAgent] = {}
_holders: dict[tuple[str, str], int] = {}  # how many registrations (running workers) hold each entry
_retrying_queues: set[str] = set()
_versions: dict[tuple[str, str], str] = {}  # each entry's agent version, computed as it is registered
_version_attribute_queues: set[str] = set()


def register_agent(name: str, agent: Agent[Any, Any] | DurableAgent, *, task_queue: str = ANY_TASK_QUEUE) -> None:
    """Register an agent (with its durable options, if given) under `name` for `task_queue`.

    Registering the same agent again replaces its options. Each registration holds the name until
    `release_agent` (a worker releases its agents when it stops, so a later worker in the same process, a notebook
    cell run again, may register a new agent under the name).

    Raises:
        UserError: if the name is not a valid activity name part, or another agent holds it on that queue.
    """
    if not name or any(ch in name for ch in ' /'):
        raise UserError(f'Invalid agent name {name!r}: use letters, digits, "-", "_" or "."')
    durable = agent if isinstance(agent, DurableAgent) else DurableAgent(agent)
    existing = _entries.get((task_queue, name))
    if existing is not None and existing.agent is not durable.agent:
        raise UserError(
            f'Another agent is already registered as {name!r} on task queue {task_queue!r} (by a worker that is '
            'still running in this process)'
        )
    _entries[(task_queue, name)] = durable
    _versions[(task_queue, name)] = agent_fingerprint(durable)
    _holders[(task_queue, name)] = _holders.get((task_queue, name), 0) + 1


def release_agent(name: str, task_queue: str = ANY_TASK_QUEUE) -> None:
    """Let go of one registration of `name` on `task_queue`; the last one removes the agent from the registry."""
    key = (task_queue, name)
    held = _holders.get(key, 0) - 1
    if held > 0:
        _holders[key] = held
        return
    _holders.pop(key, None)
    _entries.pop(key, None)
    _versions.pop(key, None)


def get_durable_agent(name: str, task_queue: str = ANY_TASK_QUEUE) -> DurableAgent:
    """The agent registered as `name` for `task_queue` (or for any queue), with its durable options.

    Raises:
        UserError: naming the registered agents, if there is no such agent.
    """
    found = _entries.get((task_queue, name)) or _entries.get((ANY_TASK_QUEUE, name))
    if found is None:
        known = ', '.join(registered_names(task_queue)) or '(none)'
        raise UserError(f'No agent is registered as {name!r} on this worker. Registered agents: {known}')
    return found


def agent_version(name: str, task_queue: str = ANY_TASK_QUEUE) -> str | None:
    """The version (`agent_fingerprint`) of the agent registered as `name` for `task_queue` (or for any queue), computed
    when it was registered; `None` if there is no such agent."""
    return _versions.get((task_queue, name)) or _versions.get((ANY_TASK_QUEUE, name))


def registered_names(task_queue: str = ANY_TASK_QUEUE) -> list[str]:
    """The names of the agents registered for `task_queue` (or for any queue), sorted."""
    return sorted({n for q, n in _entries if q in (task_queue, ANY_TASK_QUEUE)})


def get_agent(name: str, task_queue: str = ANY_TASK_QUEUE) -> Agent[Any, Any]:
    """The agent registered as `name` (see `get_durable_agent`)."""
    return get_durable_agent(name, task_queue).agent


def set_workflow_side_errors(task_queue: str, mode: WorkflowSideErrors) -> None:
    """Record what runs on `task_queue` do when user code in the workflow raises (every worker of a queue agrees).

    Raises:
        UserError: for a mode other than `'fail'` or `'retry'`.
    """
    if mode not in get_args(WorkflowSideErrors):
        raise UserError(f"workflow_side_errors must be 'fail' or 'retry', got {mode!r}")
    if mode == 'retry':
        _retrying_queues.add(task_queue)
    else:
        _retrying_queues.discard(task_queue)


def retries_workflow_side_errors(task_queue: str) -> bool:
    """Whether runs on `task_queue` retry their workflow task when user code in the workflow raises."""
    return task_queue in _retrying_queues


def set_records_agent_version(task_queue: str, records: bool) -> None:
    """Record whether new runs on `task_queue` record their agent's version as the `AgentVersion` search attribute
    (the worker's namespace has it registered, see `workflows._search_attributes`)."""
    if records:
        _version_attribute_queues.add(task_queue)
    else:
        _version_attribute_queues.discard(task_queue)


def records_agent_version(task_queue: str) -> bool:
    """Whether new runs on `task_queue` record their agent's version as the `AgentVersion` search attribute."""
    return task_queue in _version_attribute_queues


def registered_agents() -> dict[tuple[str, str], DurableAgent]:
    """A copy of the registry, keyed by `(task_queue, name)`."""
    return dict(_entries)


def unregister(name: str, task_queue: str = ANY_TASK_QUEUE) -> None:
    """Remove a name's registration, however many hold it."""
    _entries.pop((task_queue, name), None)
    _holders.pop((task_queue, name), None)
    _versions.pop((task_queue, name), None)
