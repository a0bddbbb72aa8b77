"""Agents named on a command line: `module:attribute` references and agent spec files."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent import Agent, UserError

from ._durable_agent import DurableAgent

__all__ = ('load_agents',)


def load_agents(specs: Sequence[str]) -> dict[str, Agent[Any, Any] | DurableAgent]:
    """Load agents from `module:attr` references or agent spec files (`.yaml`, `.yml`, `.json`).

    A reference names an `Agent`, or a `DurableAgent` (an agent with its durable options: activity options, local
    activities, an approval policy). Each is named by the agent's `name`, else by the attribute or the spec
    file's stem.

    Raises:
        UserError: for a malformed reference, an object that is neither an `Agent` nor a `DurableAgent`, an invalid
            spec file, or two different agents under one name.
    """
    agents: dict[str, Agent[Any, Any] | DurableAgent] = {}
    sources: dict[str, str] = {}

    def add(name: str, agent: Agent[Any, Any] | DurableAgent, spec: str) -> None:
        if name in agents and agents[name] is not agent:
            raise UserError(
                f'Two agents are named {name!r} ({sources[name]} and {spec}): one would silently replace the other. '
                'Give each agent a distinct name=.'
            )
        agents[name], sources[name] = agent, spec

    for spec in specs:
        if spec.lower().endswith(('.yaml', '.yml', '.json')):
            path = Path(spec)
            if not path.is_file():
                raise UserError(f'Agent spec file {spec!r} does not exist')
            loaded = Agent.from_file(path)
            add(loaded.name or path.stem, loaded, spec)
            continue
        module_name, sep, attr = spec.partition(':')
        if not sep or not attr:
            raise UserError(f'Invalid agent reference {spec!r}: use module:attribute')
        value = getattr(importlib.import_module(module_name), attr)
        if isinstance(value, DurableAgent):
            add(value.agent.name or attr, value, spec)
        elif isinstance(value, Agent):
            add(value.name or attr, value, spec)
        else:
            raise UserError(f'{spec} is a {type(value).__name__}, not an Agent or a DurableAgent')
    return agents
