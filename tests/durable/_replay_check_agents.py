"""Versions of one agent, for the replay-check tests: version A records runs, the changed versions replay them.

`mailer(name)` is version A: a model that looks a key up (`lookup`), then sends an email that needs approval
(`send_email`), then answers. Each keyword makes one change to it, as a deploy would; `CHANGES` names them with the
verdict a run recorded by version A gets from the changed code (the table of docs/deploys.md).

Served by `agents worker` and checked by `agents replay-check` in subprocesses too: `CHANGED_AGENT` picks the
version of `agent` from the environment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from agent import Agent, RunContext
from agent.capabilities import AbstractCapability
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from agent.tools import ToolDefinition

__all__ = ('CHANGES', 'Change', 'agent', 'mailer')


def _script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Step 1 looks the address up, step 2 sends the email, step 3 answers (by the output tool, if there is one)."""
    returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    if not returns:
        return ModelResponse(parts=[ToolCallPart('lookup', {'key': 'ada'}, 'look-1')])
    if len(returns) == 1:
        return ModelResponse(parts=[ToolCallPart('send_email', {'to': str(returns[0].content)}, 'mail-1')])
    if info.output_tools:
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {'sent': True}, 'out-1')])
    return ModelResponse(parts=[TextPart('sent')])


class Receipt(BaseModel):
    """A structured output, for the changed output type."""

    sent: bool


@dataclass
class HideLookup(AbstractCapability[Any]):
    """A workflow-side hook (`prepare_tools` always runs in the workflow) that hides `lookup` from the model."""

    async def prepare_tools(self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [d for d in tool_defs if d.name != 'lookup']


@dataclass
class KeepTools(AbstractCapability[Any]):
    """A workflow-side hook that changes nothing the run decides."""

    async def prepare_tools(self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return tool_defs


def mailer(
    name: str,
    *,
    instructions: str = 'Look the address up, then send the email.',
    lookup_doc: str = 'The email address of a person.',
    new_tool: bool = False,
    remove_lookup: bool = False,
    lookup_needs_approval: bool = False,
    email_needs_approval: bool = True,
    output_type: Any = str,
    hook: AbstractCapability[Any] | None = None,
) -> Agent[None, Any]:
    """Version A of the agent (no keywords), or it with one change."""
    mail: Agent[None, Any] = Agent(
        FunctionModel(_script),
        name=name,
        instructions=instructions,
        output_type=output_type,
        capabilities=[hook] if hook else None,
    )

    def lookup(key: str) -> str:
        return f'{key}@example.com'

    lookup.__doc__ = lookup_doc
    if not remove_lookup:
        mail.tool_plain(requires_approval=lookup_needs_approval)(lookup)

    @mail.tool_plain(requires_approval=email_needs_approval)
    def send_email(to: str) -> str:
        """Send the email."""
        return f'sent to {to}'

    if new_tool:

        @mail.tool_plain
        def archive(to: str) -> str:
            """Archive the thread."""
            return f'archived {to}'

    return mail


@dataclass(frozen=True)
class Change:
    """One change to version A, and what `check_histories` says of version A's runs under it."""

    changes: dict[str, Any]
    """The keywords of `mailer`."""
    completed: str
    """The verdict of a completed run."""
    waiting: str
    """The verdict of a run waiting for `send_email`'s approval."""
    reason: str = ''
    """What the reason of a run that would fail says."""


CHANGES: dict[str, Change] = {
    'instructions text': Change({'instructions': 'Find the address, then write.'}, 'replays', 'replays'),
    'a new tool': Change({'new_tool': True}, 'replays', 'replays'),
    "a tool's description": Change({'lookup_doc': 'Where to write to a person.'}, 'replays', 'replays'),
    'a workflow-side hook that changes nothing': Change({'hook': KeepTools()}, 'replays', 'replays'),
    'a called tool removed': Change(
        {'remove_lookup': True}, 'would fail', 'would fail',
        "tool 'lookup' no longer exists, but the recorded response calls it",
    ),
    'a called tool now requiring approval': Change(
        {'lookup_needs_approval': True}, 'would fail', 'would fail',
        "tool 'lookup' now requires approval, but the history ran it without",
    ),
    'the waiting tool no longer requiring approval': Change(
        {'email_needs_approval': False}, 'would fail', 'would fail',
        "tool 'send_email' no longer requires approval, but call mail-1 waits for one",
    ),
    'a workflow-side hook hiding a called tool': Change(
        {'hook': HideLookup()}, 'would fail', 'would fail',
        "the new code schedules the model request of step 2 where the history has the call of tool 'lookup' (look-1)",
    ),
    'the output type': Change(
        {'output_type': Receipt}, 'would fail', 'replays',
        'the new code schedules an activity where the history has the run completing',
    ),
}  # fmt: skip
"""One change each, by what a person would call it (the rows of the table in docs/deploys.md)."""

_change = CHANGES.get(os.environ.get('CHANGED_AGENT', ''))
agent = mailer(os.environ.get('MAILER_NAME', 'mailer'), **(_change.changes if _change else {}))
"""The agent a subprocess serves or checks: version A, or the change `$CHANGED_AGENT` names."""
