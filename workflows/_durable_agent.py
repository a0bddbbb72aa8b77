"""`DurableAgent`: an agent plus how it behaves when run durably."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any, cast

from activities._event_streams import EventStreamHandler
from activities._tool_result_size import DEFAULT_MAX_TOOL_RESULT_BYTES
from activities._types import DeferredNotice
from agent import Agent, UserError

from ._activity_options import DEFAULT_MODEL_ACTIVITY, DEFAULT_TOOL_ACTIVITY, ActivityOptions
from ._approval_policy import ApprovalPolicy
from ._approval_rules import ApprovalRule
from ._fan_out import DEFAULT_MAX_TOOL_CALLS_IN_FLIGHT
from ._result_size import RESULT_MESSAGES_BUDGET

__all__ = ('DeferredNotifier', 'DurableAgent', 'with_event_stream_handler')

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
    model_activity: ActivityOptions = DEFAULT_MODEL_ACTIVITY
    """Activity options of model requests."""
    tool_activity: ActivityOptions = DEFAULT_TOOL_ACTIVITY
    """Activity options of tool executions, unless `tool_activities` names the tool."""
    tool_activities: dict[str, ActivityOptions] = field(default_factory=dict[str, ActivityOptions])
    """Activity options per tool name."""
    event_stream_handler: EventStreamHandler | None = None
    """Receives the events of each model request (streamed from the provider) and tool call, in the activity
    where they happen; the agent's own `event_stream_handler` when not set."""
    max_tool_result_bytes: int = DEFAULT_MAX_TOOL_RESULT_BYTES
    """Bytes of JSON one tool result may take. A larger one is refused at that call with a retry prompt naming
    its size and the limit (counted against the tool's retries), so no run completes with messages too large for
    a client to read (see `activities._tool_result_size`). At most `RESULT_MESSAGES_BUDGET`."""
    max_tool_calls_in_flight: int = DEFAULT_MAX_TOOL_CALLS_IN_FLIGHT
    """Tool calls of one model response that run at once (32 by default); the others wait in the workflow, in call
    order, and each starts as one running ends. Only when calls start changes, not what they do: a response of
    hundreds of calls never schedules hundreds of activities at once (see `workflows._fan_out`). A run's input may
    set its own."""
    max_tool_calls_per_response: int | None = None
    """Tool calls of one model response that run at all (`None`, the default: every one). The calls past it, in
    call order, are not run: the model gets a retry prompt for each saying how many it asked for and how many run,
    so it asks again with fewer. A run's input may set its own."""
    approval_rules: dict[str, ApprovalRule] = field(default_factory=dict[str, ApprovalRule])
    """Who may approve each tool's calls, how many must, and for how long (by tool name; a tool without a rule
    takes any one approval). Workflow code: a change is a change of the workflow (see the docs on deploying)."""
    roles: Mapping[str, Collection[str]] = field(default_factory=dict[str, Collection[str]])
    """The identities of each role an approval rule names as `'role:NAME'`."""

    @property
    def activity_event_stream_handler(self) -> EventStreamHandler | None:
        """The handler the activities call."""
        return self.event_stream_handler or self.agent._event_stream_handler

    def check(self, name: str) -> None:
        """Check the options when the agent is registered.

        Raises:
            UserError: naming the agent and what is wrong (bad timeouts, options for a tool it does not have, a
                tool timeout its activity would cut short, a tool result limit a payload cannot carry, a fan-out
                limit below 1).
        """
        self.model_activity.check(f'Agent {name!r} model_activity')
        self.tool_activity.check(f'Agent {name!r} tool_activity')
        for option, value in (
            ('max_tool_calls_in_flight', self.max_tool_calls_in_flight),
            ('max_tool_calls_per_response', self.max_tool_calls_per_response),
        ):
            if value is not None and not (isinstance(value, int) and value >= 1):
                raise UserError(f'Agent {name!r}: {option} must be a whole number of at least 1, not {value!r}')
        if not 0 < self.max_tool_result_bytes <= RESULT_MESSAGES_BUDGET:
            raise UserError(
                f'Agent {name!r}: max_tool_result_bytes must be between 1 and {RESULT_MESSAGES_BUDGET} (what one '
                f'result or query reply carries under the Temporal payload limit), not {self.max_tool_result_bytes}'
            )
        known = _static_tool_names(self.agent)
        for tool, rule in self.approval_rules.items():
            if known is not None and tool not in known:
                raise UserError(
                    f'Agent {name!r} has an approval rule for tool {tool!r}, but no such tool; '
                    f'its tools are: {", ".join(sorted(known)) or "(none)"}'
                )
            try:
                rule.check(tool, self.roles)
            except ValueError as exc:
                raise UserError(f'Agent {name!r}: {exc}') from None
        for tool, options in self.tool_activities.items():
            if known is not None and tool not in known:
                raise UserError(
                    f'Agent {name!r} has activity options for tool {tool!r}, but no such tool; '
                    f'its tools are: {", ".join(sorted(known)) or "(none)"}'
                )
            options.check(f'Agent {name!r} tool_activities[{tool!r}]')
        for tool, timeout in _static_tool_timeouts(self.agent).items():
            # The tool's deadline is a workflow timer; an attempt cut short first would be retried instead.
            attempt = self.options_for_tool(tool).start_to_close_timeout
            if timedelta(seconds=timeout) >= attempt:
                raise UserError(
                    f'Agent {name!r}: tool {tool!r} has timeout={timeout:g} seconds, but its activity has a '
                    f'start_to_close_timeout of {attempt.total_seconds():g} seconds, which would end the attempt '
                    f'first. Give it more: tool_activities={{{tool!r}: ActivityOptions(start_to_close_timeout=...)}}'
                )

    def options_for_tool(self, tool_name: str) -> ActivityOptions:
        """The activity options of one tool."""
        return self.tool_activities.get(tool_name, self.tool_activity)


def _static_tool_timeouts(agent: Agent[Any, Any]) -> dict[str, float]:
    """The timeouts of the agent's function tools that have one."""
    from agent.toolsets import FunctionToolset

    timeouts: dict[str, float] = {}
    toolsets: list[Any] = list(agent.toolsets)
    for toolset in toolsets:
        if isinstance(toolset, FunctionToolset):
            tools: dict[str, Any] = cast(dict[str, Any], toolset.tools)
            timeouts.update({name: tool.timeout for name, tool in tools.items() if tool.timeout is not None})
    return timeouts


def _static_tool_names(agent: Agent[Any, Any]) -> set[str] | None:
    """The agent's function tool names, or `None` if some toolset only knows its tools at run time."""
    from agent.toolsets import FunctionToolset

    names: set[str] = set()
    toolsets: list[Any] = list(agent.toolsets)
    for toolset in toolsets:
        if not isinstance(toolset, FunctionToolset):
            return None
        tools: dict[str, Any] = cast(dict[str, Any], toolset.tools)
        names.update(tools)
    return names


def with_event_stream_handler(agent: Agent[Any, Any] | DurableAgent, handler: EventStreamHandler) -> DurableAgent:
    """`agent` as a `DurableAgent` whose activities send their events to `handler`, its other options kept."""
    if isinstance(agent, DurableAgent):
        return replace(agent, event_stream_handler=handler)
    return DurableAgent(agent, event_stream_handler=handler)
