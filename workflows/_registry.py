"""The agents a worker runs, by name.

Workers register agents once, at start-up; the workflow only looks them up. This module is passed
through the workflow sandbox, so the workflow sees the worker's registry and never rebuilds an agent
for a run.
"""

from __future__ import annotations

from typing import Any

from agent import Agent, UserError

__all__ = ('get_agent', 'register_agent', 'registered_agents')

_agents: dict[str, Agent[Any, Any]] = {}


def register_agent(name: str, agent: Agent[Any, Any]) -> None:
    """Register `agent` under `name` (re-registering the same agent is a no-op).

    Raises:
        UserError: if the name is taken by another agent or is not a valid activity name part.
    """
    if not name or any(ch in name for ch in ' /'):
        raise UserError(f'Invalid agent name {name!r}: use letters, digits, "-", "_" or "."')
    existing = _agents.get(name)
    if existing is not None and existing is not agent:
        raise UserError(f'Another agent is already registered as {name!r}')
    _agents[name] = agent


def get_agent(name: str) -> Agent[Any, Any]:
    """The agent registered as `name`.

    Raises:
        UserError: naming the registered agents, if there is no such agent.
    """
    try:
        return _agents[name]
    except KeyError:
        known = ', '.join(sorted(_agents)) or '(none)'
        raise UserError(f'No agent is registered as {name!r} on this worker. Registered agents: {known}') from None


def registered_agents() -> dict[str, Agent[Any, Any]]:
    """A copy of the registry."""
    return dict(_agents)
