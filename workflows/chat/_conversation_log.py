"""A conversation's messages and its running turn, read from the conversation workflow's event history.

`AgentWorkflow` has no query that returns a conversation's messages while it runs (`new_messages` answers only
once the run has completed), so the chat backend reads them where they are durable: the workflow's history. A
conversation run's history holds its start input (the messages an earlier run handed over, inline or by
reference to that run), every `send_message` update that was accepted (the user's prompt) and how each one
completed (the turn's result, whose `new_messages` are the turn's messages, its user request first). So the
conversation is the start input's messages, then per turn its result's messages, or, for a turn that is running,
failed or was cancelled, just its user request. A run that continued as new by reference is read the same way,
recursively.

Two approximations, both of which a `messages` query on the workflow would remove: a cancelled turn shows only
its user request (the workflow also keeps the steps it completed), and a result that left its first messages
out to fit Temporal's payload limit (`earlier_messages_omitted`) shows the messages it kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from agent._parts import ModelMessage, ModelRequest, UserPromptPart
from workflows._types import AgentRunInput, AgentRunOutput, ConversationMessage

__all__ = ('ConversationLog', 'read_conversation')

_MAX_HANDOFFS = 50  # runs followed back through continue-as-new by reference; a chain longer than this is cut


@dataclass
class _TurnRecord:
    update_id: str
    prompt: Any
    output: AgentRunOutput | None = None
    ended: bool = False


@dataclass
class ConversationLog:
    """What a conversation run's history says."""

    messages: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """The conversation's messages; a turn that has not completed shows only its user request."""
    running_update_id: str | None = None
    """The id of the `send_message` update whose turn has not ended, if any."""
    turns: int = 0
    """How many `send_message` updates this run accepted."""


async def read_conversation(client: Client, workflow_id: str, run_id: str | None = None) -> ConversationLog:
    """Read the conversation of the run `run_id` of `workflow_id` (its latest run when `None`).

    Raises:
        RPCError: The workflow does not exist or the server cannot be reached.
    """
    return await _read(client, workflow_id, run_id, _MAX_HANDOFFS)


async def _read(client: Client, workflow_id: str, run_id: str | None, handoffs: int) -> ConversationLog:
    converter = client.data_converter
    handle = client.get_workflow_handle(workflow_id, run_id=run_id)
    start: list[ModelMessage] = []
    turns: dict[str, _TurnRecord] = {}
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
            payloads = event.workflow_execution_started_event_attributes.input.payloads
            [inp] = await converter.decode(payloads, [AgentRunInput])
            assert isinstance(inp, AgentRunInput)
            if inp.history_from is not None and handoffs > 0:
                earlier = await _read(client, workflow_id, inp.history_from.run_id, handoffs - 1)
                start.extend(earlier.messages)
            start.extend(inp.message_history or [])
        elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
            request = event.workflow_execution_update_accepted_event_attributes.accepted_request
            if request.input.name != 'send_message':
                continue
            [message] = await converter.decode(request.input.args.payloads, [ConversationMessage])
            assert isinstance(message, ConversationMessage)
            turns[request.meta.update_id] = _TurnRecord(request.meta.update_id, message.prompt)
        elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED:
            attributes = event.workflow_execution_update_completed_event_attributes
            record = turns.get(attributes.meta.update_id)
            if record is None:
                continue
            record.ended = True
            if attributes.outcome.HasField('success'):
                [output] = await converter.decode(attributes.outcome.success.payloads, [AgentRunOutput])
                assert isinstance(output, AgentRunOutput)
                record.output = output
    log = ConversationLog(messages=start, turns=len(turns))
    shown_alone = False  # the last message shown is only the user request of a turn that did not complete
    for record in turns.values():
        if record.output is not None:
            new = record.output.new_messages
            if shown_alone and new and isinstance(new[0], ModelRequest):
                # A turn after a cancelled one sends that turn's unanswered request again, merged with its own.
                log.messages.pop()
            log.messages.extend(new)
            shown_alone = False
        else:
            log.messages.append(ModelRequest(parts=[UserPromptPart(record.prompt)]))
            shown_alone = True
        if not record.ended:
            log.running_update_id = record.update_id
    return log
