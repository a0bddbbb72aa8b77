"""A replay's non-determinism error, told as one line: what the new code did where the history has what, and why.

The SDK says which command the new code issued where the history has which event, in its own terms
(`Activity id of scheduled event '1.1.tool.look-1' does not match activity id of activity command '1.2.model'`,
`UpsertWorkflowSearchAttributesMachine does not handle HistoryEvent(id: 14, ActivityTaskScheduled)`). The run's
activity ids say what each activity was for (`workflows._activity_ids`), the tool call ids name their tools in the
recorded model responses, and a search-attribute update records the state the run moved to; with the new agent's
tools at hand, the line ends with the likely cause (a called tool that no longer exists, or that now requires
approval; a waiting call whose tool no longer does).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import WorkflowHistory
from temporalio.converter import DataConverter, decode_search_attributes

from ._search_attributes import AGENT_STATE

__all__ = ('RecordedCall', 'describe_failure', 'recorded_calls', 'waiting_cause')


@dataclass(frozen=True)
class RecordedCall:
    """A tool call of a recorded model response."""

    tool_name: str
    """The tool it calls."""
    event_id: int
    """The event that recorded the response (its activity's completion)."""


_MISMATCH = re.compile(
    r"(?:type|id) of scheduled event '([^']*)' does not match \w+ (?:type|id) of \w+ command '([^']*)'"
)
_MACHINE = re.compile(r'(\w+?) ?[Mm]achine does not handle (?:this event: )?HistoryEvent\(id: (\d+), (\w+)\)')
_NO_COMMAND = re.compile(r'No command scheduled for event HistoryEvent\(id: (\d+), (\w+)\)')
_ACTIVITY_ID = re.compile(r'^(\d+)\.(\d+)\.(?:(model)|tool\.(.+)|(.+))$')

_COMMANDS = {
    'Activity': 'schedules an activity',
    'LocalActivity': 'runs a local activity',
    'UpsertWorkflowSearchAttributes': "changes the run's state (its search attributes: e.g. it waits for approval)",
    'Timer': 'starts a timer',
    'ChildWorkflow': 'starts a child run',
    'CompleteWorkflow': 'ends the run',
    'Patch': 'takes a patch',
}
_STATES = {
    'awaiting_deferred_tools': 'the run waiting for approval (or a deferred result)',
    'awaiting_message': 'the run waiting for the next message',
    'completed': 'the run completing',
    'failed': 'the run failing',
    'running': 'the run going on',
}


def _decode(value: Any, calls: dict[str, RecordedCall], event_id: int) -> None:
    if isinstance(value, dict):
        fields: dict[str, Any] = value
        name, call_id = fields.get('tool_name'), fields.get('tool_call_id')
        if isinstance(name, str) and isinstance(call_id, str) and 'args' in fields:
            calls.setdefault(call_id, RecordedCall(name, event_id))
        for item in fields.values():
            _decode(item, calls, event_id)
    elif isinstance(value, list):
        for item in value:
            _decode(item, calls, event_id)


async def recorded_calls(converter: DataConverter, history: WorkflowHistory) -> dict[str, RecordedCall]:
    """Every tool call of the run's recorded model responses (its activities' results), by tool call id."""
    calls: dict[str, RecordedCall] = {}
    for event in history.events:
        if not event.HasField('activity_task_completed_event_attributes'):
            continue
        try:
            values = await converter.decode(event.activity_task_completed_event_attributes.result.payloads)
        except Exception:  # a result this converter cannot read names no call
            continue
        _decode(values, calls, event.event_id)
    return calls


def _activity_words(activity_id: str, calls: Mapping[str, RecordedCall]) -> str:
    """`1.2.tool.c1` as `the call of tool 'send_email' (c1) in step 2`."""
    match = _ACTIVITY_ID.match(activity_id)
    if match is None:
        return f'activity {activity_id!r}'
    _, step, model, call_id, other = match.groups()
    if model:
        return f'the model request of step {step}'
    if call_id:
        call = calls.get(call_id.partition('#')[0])
        tool = f' of tool {call.tool_name!r}' if call else ''
        return f'the call{tool} ({call_id}) in step {step}'
    return f'{other} of step {step}'


def _event(history: WorkflowHistory, event_id: int) -> HistoryEvent | None:
    return next((e for e in history.events if e.event_id == event_id), None)


def _state(event: HistoryEvent) -> str | None:
    attributes = event.upsert_workflow_search_attributes_event_attributes.search_attributes
    state = decode_search_attributes(attributes).get(AGENT_STATE.name)
    return str(state[0]) if state else None


def _event_words(event: HistoryEvent | None, kind: str, calls: Mapping[str, RecordedCall]) -> str:
    if event is None:
        return kind
    if event.HasField('activity_task_scheduled_event_attributes'):
        return _activity_words(event.activity_task_scheduled_event_attributes.activity_id, calls)
    if event.HasField('upsert_workflow_search_attributes_event_attributes'):
        state = _state(event)
        return _STATES.get(state or '', f'the run recording its state as {state!r}' if state else 'a state change')
    if event.HasField('timer_started_event_attributes'):
        return 'a timer (a wait with a timeout)'
    if event.HasField('start_child_workflow_execution_initiated_event_attributes'):
        return 'a child run'
    return kind


def _cause(
    event: HistoryEvent | None, calls: Mapping[str, RecordedCall], tools: Mapping[str, Any] | None
) -> str | None:
    """The likely change behind a divergence at `event`, judged by the new agent's `tools`."""
    if event is None or tools is None:
        return None
    if event.HasField('activity_task_scheduled_event_attributes'):
        match = _ACTIVITY_ID.match(event.activity_task_scheduled_event_attributes.activity_id)
        call = calls.get((match.group(4) or '').partition('#')[0]) if match else None
        if call is None:
            return None
        tool = tools.get(call.tool_name)
        if tool is None:
            return f'tool {call.tool_name!r} no longer exists, but the recorded response calls it'
        if getattr(tool, 'requires_approval', False):
            return f'tool {call.tool_name!r} now requires approval, but the history ran it without'
    elif (
        event.HasField('upsert_workflow_search_attributes_event_attributes')
        and _state(event) == 'awaiting_deferred_tools'
    ):
        # The calls of the last response before the wait are the ones it waits for.
        return waiting_cause({k: c for k, c in calls.items() if c.event_id < event.event_id}, tools)
    return None


def waiting_cause(calls: Mapping[str, RecordedCall], tools: Mapping[str, Any] | None) -> str | None:
    """Why the new code would not wait where the history waits after `calls`: the calls of the last recorded
    response whose tools no longer require approval."""
    last = max((c.event_id for c in calls.values()), default=None)
    freed = [
        f'tool {c.tool_name!r} no longer requires approval, but call {call_id} waits for one'
        for call_id, c in calls.items()
        if tools is not None and c.event_id == last and not getattr(tools.get(c.tool_name), 'requires_approval', True)
    ]
    return '; '.join(freed) or None


def describe_failure(
    error: BaseException,
    history: WorkflowHistory,
    calls: Mapping[str, RecordedCall],
    tools: Mapping[str, Any] | None = None,
) -> str:
    """The SDK's replay failure `error` of `history` as one line.

    `calls` are the run's recorded tool calls (`recorded_calls`); `tools`, the new agent's tools by name (`None` if
    they are only known at run time), to name the likely cause.
    """
    message = ' '.join(str(error).split())
    event: HistoryEvent | None = None
    if mismatch := _MISMATCH.search(message):
        recorded, now = mismatch.groups()
        event = next(
            (e for e in history.events if e.activity_task_scheduled_event_attributes.activity_id == recorded), None
        )
        line = f'the new code schedules {_activity_words(now, calls)}'
        line += f' where the history has {_activity_words(recorded, calls)}'
    elif machine := _MACHINE.search(message):
        command, event_id, kind = machine.group(1), int(machine.group(2)), machine.group(3)
        event = _event(history, event_id)
        doing = _COMMANDS.get(command, f'issues a {command} command')
        line = f'the new code {doing} where the history has {_event_words(event, kind, calls)} (event {event_id})'
    elif no_command := _NO_COMMAND.search(message):
        event_id, kind = int(no_command.group(1)), no_command.group(2)
        event = _event(history, event_id)
        line = f'the history has {_event_words(event, kind, calls)} (event {event_id}), which the new code does not do'
    else:
        found = re.search(r'message: "([^"]*)"', message)
        return f'replay fails: {(found.group(1) if found else message)[:300]}'
    cause = _cause(event, calls, tools)
    return f'{line}: {cause}' if cause else line
