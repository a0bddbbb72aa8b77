"""What the Temporal Web UI shows of a run, in words: summaries of its activities, its current details, its start.

Without these, every tool call of every run is an `agent.<agent>.call_tool` activity whose input is a compressed
(or encrypted) payload. So the run labels what it does:

- each model-request activity with the model and the step (`openai:gpt-4o (step 2)`), each tool-call activity
  with the call (`delete_file(path='old.txt')`), short enough for one line of the event list;
- the workflow's current details (`workflow.set_current_details`) with what it is doing or waiting for
  (`Waiting for approval: delete_file(path='old.txt')`), the version of its agent it started on
  (`Agent version 3ac6d5c1173c`, see `workflows._agent_version`) and, under it, how its deferred tool calls were
  decided so far (`t-1 transfer: approved by alice, bob`), kept up to date by `workflows._run_attributes`;
- the run's static summary and details (the agent and the start of its prompt), given by the client that starts it.

All of it is computed from what the workflow already holds (the model's tool call, the run's state), so it is the
same on replay. Activity summaries are command metadata: the server stores them with the scheduled event and does
not compare them on replay, so adding them does not break histories recorded without them. Summaries, static
details and the current details are payloads like any other, encoded by the data converter's codec: with payload
encryption on (`workflows._encryption`) they are encrypted too, and an operator reads them through the codec
endpoint, which is why tool arguments may appear in them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent._deferred import DeferredToolRequests
from agent._parts import ToolCallPart

from ._types import AgentRunInput

if TYPE_CHECKING:
    from ._decisions import DecisionRecord

__all__ = (
    'SUMMARY_LIMIT',
    'RunView',
    'current_details',
    'decision_line',
    'model_request_summary',
    'shorten',
    'start_metadata',
    'tool_call_summary',
)

SUMMARY_LIMIT = 80
"""Longest activity or run summary, in characters (the UI shows one line)."""

ARGUMENT_LIMIT = 40
"""Longest single argument value in a tool call's summary, so one long value does not hide the others."""

PROMPT_DETAILS_LIMIT = 500
"""How much of the prompt the run's static details show."""

DECISION_LINE_LIMIT = 160
"""Longest line of a decision record in the current details."""

DECISIONS_SHOWN = 20
"""How many of the latest decision records the current details list (the `status` query has more)."""


@dataclass(frozen=True)
class RunView:
    """What a run shows of itself at one moment: its search attributes and its current details."""

    state: str
    """The `status` query's state."""
    pending_approvals: int
    """Tool calls waiting for a human's approval."""
    waiting_for: DeferredToolRequests | None = None
    """The deferred tool calls the run waits for, if any."""
    doing: tuple[str, ...] = ()
    """The activities in flight, as lines of the current details (see `WorkflowPorts.in_flight`)."""
    decisions: tuple[DecisionRecord, ...] = ()
    """How the run's deferred tool calls were decided so far, oldest first."""
    answering_agent: str | None = None
    """The agent answering the conversation's turns since a hand-off, if one did."""
    agent_version: str | None = None
    """The version of the run's agent it started on (see `workflows._agent_version`), if it recorded one."""


def shorten(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """`text` on one line (runs of whitespace made one space), cut to `limit` characters ending in `…`."""
    line = ' '.join(text.split())
    return line if len(line) <= limit else f'{line[: limit - 1]}…'


def tool_call_summary(call: ToolCallPart, limit: int = SUMMARY_LIMIT) -> str:
    """The call as it would be written in Python, `name(arg='value', ...)`, cut to `limit` characters.

    Uses the arguments as the model wrote them (not the validated ones, whose values may be any object), so the
    text depends only on the run's history.
    """
    arguments = ', '.join(
        f'{name}={shorten(repr(value), ARGUMENT_LIMIT)}' for name, value in call.args_as_dict().items()
    )
    room = max(limit - len(call.tool_name) - 2, 1)
    return shorten(f'{call.tool_name}({shorten(arguments, room)})', limit)


def model_request_summary(model: str, step: int) -> str:
    """The model a request goes to and the run's step, e.g. `openai:gpt-4o (step 2)`."""
    return shorten(f'{model} (step {step})')


def current_details(view: RunView) -> str:
    """What the run is doing or waiting for, one line per thing (a Markdown list when there are several), then the
    latest `DECISIONS_SHOWN` decisions of its deferred tool calls, one line each, under `Decisions:`."""
    lines: list[str] = []
    waiting = view.waiting_for
    if waiting is not None:
        lines += [f'Waiting for approval: {tool_call_summary(call)}' for call in waiting.approvals]
        lines += [f'Waiting for the result of: {tool_call_summary(call)}' for call in waiting.calls]
    if not lines:
        lines = list(view.doing) or [_STATE_LINES.get(view.state, view.state)]
    details = lines[0] if len(lines) == 1 else '\n'.join(f'- {line}' for line in lines)
    if view.agent_version is not None:
        details += f'\n\nAgent version {view.agent_version}'
    if view.answering_agent is not None:
        details += f'\n\nAnswered by {view.answering_agent} (the conversation was handed off to it)'
    if not view.decisions:
        return details
    shown = [f'- {decision_line(record)}' for record in view.decisions[-DECISIONS_SHOWN:]]
    earlier = len(view.decisions) - DECISIONS_SHOWN
    if earlier > 0:
        shown.insert(0, f'- ({earlier} earlier: see the status query)')
    return '\n'.join([details, '', 'Decisions:', *shown])


def decision_line(record: DecisionRecord) -> str:
    """One decision on one line: `t-1 transfer: approved by alice, bob`, `t-2 wipe: denied by bob: not today`.

    A denial no one made is an expiry (of the request under its rule, of the run's wait, of a `RequestInput`'s wait).
    """
    verb = _DECISION_VERBS[record.decision]
    if record.decision == 'deny' and not record.by:
        verb = 'expired'
    line = f'{record.tool_call_id} {record.tool_name}: {verb}'
    if record.by:
        line += f' by {", ".join(record.by)}'
    if record.reason and verb != 'expired':
        line += f': {record.reason}'
    return shorten(line, DECISION_LINE_LIMIT)


_DECISION_VERBS = {
    'approve': 'approved',
    'override': 'approved with changed arguments',
    'deny': 'denied',
    'result': 'answered',
}


_STATE_LINES = {
    'running': 'Running',
    'awaiting_deferred_tools': 'Waiting for deferred tool results',
    'awaiting_message': 'Waiting for the next message',
    'completed': 'Completed',
    'failed': 'Failed',
}


def start_metadata(inp: AgentRunInput) -> tuple[str, str]:
    """The static summary and details of a run: a one-line label and a short Markdown list.

    For the `static_summary` and `static_details` of `Client.start_workflow` and the other ways to start a workflow,
    which encode both with the client's data converter (so they are encrypted when payloads are).
    """
    agent, conversation_id, model = inp.agent, inp.conversation_id, inp.model
    text = _prompt_text(inp.prompt)
    if text:
        summary = f'{agent}: {text}'
    elif inp.conversation:
        summary = f'{agent}: conversation {conversation_id or ""}'
    elif inp.deferred_tool_results is not None:
        summary = f'{agent}: resumed with deferred tool results'
    else:
        summary = agent
    details = [f'- Agent: {agent}']
    if model is not None:
        details.append(f'- Model: {model}')
    if conversation_id is not None:
        details.append(f'- Conversation: {conversation_id}')
    if text:
        details.append(f'- Prompt: {shorten(text, PROMPT_DETAILS_LIMIT)}')
    return shorten(summary), '\n'.join(details)


def _prompt_text(prompt: str | Sequence[Any] | None) -> str:
    """The prompt's text; other content (an image, a document) is named by its kind."""
    if prompt is None or isinstance(prompt, str):
        return prompt or ''
    parts: list[str] = []
    for part in prompt:
        content = part if isinstance(part, str) else getattr(part, 'content', None)
        parts.append(content if isinstance(content, str) else f'[{getattr(part, "kind", type(part).__name__)}]')
    return ' '.join(parts)
