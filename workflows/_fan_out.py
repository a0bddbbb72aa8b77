"""Bounded fan-out: how many tool calls of one model response a durable run starts at once, and runs at all.

Each tool call of a durable run is an activity. A model response that asks for hundreds of calls would otherwise
schedule hundreds of activities in one workflow task: a task completion of megabytes (a reported case: 792
activities, a 4 MiB completion, a run stalled for hours), the task queue flooded ahead of every other run's work,
and past 2,000 the server's limit on a run's pending activities (`limit.numPendingActivities.error`), which fails
the workflow task over and over. So a run keeps at most `max_tool_calls_in_flight` tool
calls of one response running; the rest wait in the workflow, in call order, and each starts as one running ends
(`agent._tool_fan_out`). That changes only when calls start, never what they do or what the model gets back.

`max_tool_calls_per_response` goes further and is off unless set: the calls past it are not run, and the model is
asked, call by call, to ask for them again in smaller responses. It changes what the model sees, so a well-behaved
agent never meets it by default. The history rarely needs it: each call adds three events (scheduled, started,
completed) and its input and result, ~3.5 KB of JSON for a small result, and a response cannot hold enough calls to
reach Temporal's 51,200 events (a call takes at least ~20 output tokens, so a model's output ceiling allows a few
thousand). Tools returning large results to a model that may ask for thousands of calls at once are the case for it.

Runs started before bounded fan-out existed scheduled every call of a response at once. Whether a run bounds its
fan-out is a patch (`TOOL_FAN_OUT_PATCH`), taken the first time a response asks for more calls than a limit allows:
a replay of such an older run finds no marker there and keeps scheduling as the run did, and a run that never meets
a limit records no marker at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import workflow

__all__ = ('DEFAULT_MAX_TOOL_CALLS_IN_FLIGHT', 'TOOL_FAN_OUT_PATCH', 'ToolFanOut')

DEFAULT_MAX_TOOL_CALLS_IN_FLIGHT = 32
"""Tool calls of one response a durable run keeps running at once by default.

A few dozen: enough that a response of ordinary size (a handful of calls, or a few dozen searches) runs all at once,
as in-process; a third of a worker's 100 activity slots (Temporal's default), so one fanned-out run leaves most of a
worker to the other runs' model requests and tools; and at most 32 activities scheduled per workflow task, a
completion of tens of kilobytes, far under the server's 2,000 pending activities per run. A response of 1,000 calls
then runs in ~32 waves instead of one flood; raise it for tools that wait on slow services.
"""

TOOL_FAN_OUT_PATCH = 'agent-bounded-tool-fan-out'
"""The patch id under which a run records that it bounds its tool fan-out."""


@dataclass(frozen=True)
class ToolFanOut:
    """The fan-out limits of one run: the agent's (`DurableAgent`), or the run's input's where it sets them."""

    max_in_flight: int = DEFAULT_MAX_TOOL_CALLS_IN_FLIGHT
    """Tool calls of one response running at once."""
    max_per_response: int | None = None
    """Tool calls of one response that run at all (`None`: all)."""

    def at_once(self, calls: int) -> int:
        """How many of `calls` independent calls run at once (`RunPorts.tool_calls_at_once`)."""
        if calls <= self.max_in_flight or not _bounded():
            return calls
        return self.max_in_flight

    def to_run(self, calls: int) -> int:
        """How many of the `calls` calls of one response run (`RunPorts.tool_calls_to_run`)."""
        cap = self.max_per_response
        if cap is None or calls <= cap or not _bounded():
            return calls
        return cap


def _bounded() -> bool:
    # Asked only once a limit would change what the run schedules; the SDK remembers the answer for the run.
    return workflow.patched(TOOL_FAN_OUT_PATCH)
