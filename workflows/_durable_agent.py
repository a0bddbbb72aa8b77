"""`DurableAgent`: an agent plus how it behaves when run durably."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from activities._types import DeferredNotice
from agent import Agent

from ._approval_policy import ApprovalPolicy

__all__ = ('DeferredNotifier', 'DurableAgent')

DeferredNotifier = Callable[[DeferredNotice], Awaitable[None]]
"""Called (as an activity) when tool calls start waiting for results, and again for each reminder."""


@dataclass
class DurableAgent:
    """An agent registered with a worker, with its durable-run options."""

    agent: Agent[Any, Any]
    """The agent."""
    approval_policy: ApprovalPolicy | None = None
    """How runs wait for deferred tool results (a run's input may override it)."""
    notifier: DeferredNotifier | None = None
    """Told when approvals become pending (e.g. to message a reviewer); runs as an activity."""
