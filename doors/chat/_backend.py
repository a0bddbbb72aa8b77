"""`DurableChatBackend`: the chat app's conversations as `AgentWorkflow` conversation runs.

A conversation is one conversation workflow, `chat-<conversation id>`: the id comes from the conversation id
alone, because a request may name no agent (AG-UI's does not), so a stateless chat server finds the workflow of
any request. The agent and the owner are fixed when the workflow starts: in its input (`agent`, `owner`, which
the run records as search attributes) and in its memo, which every call reads back (`describe`) to check that the
caller owns the conversation.

A new message is a `send_message` update sent with update-with-start (`USE_EXISTING`), so the first message starts
the workflow and the next ones reach it, in one call; the backend waits only until the update is accepted and then
streams the turn's events from the `TurnEventHub`, which the worker's `TurnEventPublisher` feeds (see
`doors.chat._relay`). `begin_turn` is called before the update, so the previous turn's events are not replayed
as this one's. How a turn's stream ends (a result, or approvals to wait for) is `LiveTurn`'s business. A message
the conversation refuses while it hands over to its next workflow run (continue-as-new: `CONVERSATION_MOVING`, see
`workflows._moving`) is sent again after a short back-off, for up to `MOVING_TIMEOUT` seconds, once this server's
stream of the turn before has ended.

Every update names the caller as `owner`, and the workflow rejects an owner other than the one that started it:
the memo check below answers most calls, but two owners starting the same new conversation id at once both get
past it, and only the workflow can tell which of them started it.

An approval from the page is a `resolve_deferred_tools` update on the same run, from the signed-in user as owner and
approver (see `_decisions`): the turn continues in place, and its result still comes from the original `send_message`
update, whose id the workflow's `messages` query gives after a chat-server restart. The history shown to the page
comes from that query too (see `_conversation_messages`), so nothing but the hub's live events lives only here. When
no worker takes the answers in time (none serves the task queue, or the one that answered the check went away before
it took the update), they go as the `submit_deferred_tool_results` signal, which the run's history keeps, and the
page is told so (503, admitted): an update no worker accepted would be held only in the server's memory.

A start that waits only for acceptance still learns of a rejection at once: the server answers a rejected update
with its outcome (the update is complete), so the handle's result raises without another round trip; a turn the
workflow turned away (another owner's conversation, a conversation that is closing) is refused before anything
streams. The run's static summary and details (what the Temporal Web UI lists) come from the first message, as
for every other way to start a run (`workflows._run_details`).

Whatever needs a worker of the task queue (a query, an update until a worker accepts it) goes through a
`WorkerGate`: with no worker the request is answered `BackendUnavailable` (503) within `worker_timeout` seconds (of
waiting for a worker to show up, then for each call), saying whether the server holds what was sent. A conversation
id whose workflow id Temporal would refuse (`_workflow_ids`) is refused before anything is sent.

`resume` replays the running turn from its start; after the turn ended it still does while the hub keeps the ended
turn (`TurnEventHub`'s `end_grace`), so a page that reconnects right after the end rebuilds the message. A turn that
continues after its approvals is replayed whole: the stretch before the approvals from the messages as of the
wait, then the continuation.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

from temporalio.client import (
    Client,
    WithStartWorkflowOperation,
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowUpdateFailedError,
    WorkflowUpdateHandle,
    WorkflowUpdateStage,
)
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from agent._content import UserContent
from agent._deferred import DeferredToolResults
from agent._parts import ModelMessage
from agent.ui._event_stream import NativeEvent
from agent.ui.web import (
    BackendUnavailable,
    ChatBackendError,
    ChatTurn,
    ConversationDecisions,
    ConversationNotFound,
    NotOwner,
    TurnRejected,
    UnknownAgent,
    WaitingConversation,
)
from workflows._agent_workflow import AgentWorkflow
from workflows._data_converter import with_data_converter
from workflows._encryption import with_encryption
from workflows._moving import is_moving, send_while_moving
from workflows._run_details import start_metadata
from workflows._types import (
    NOT_OWNER,
    AgentRunInput,
    AgentRunOutput,
    CancelTurn,
    CancelTurnResult,
    ConversationMessage,
)

from ._arguments import DEFAULT_WORKER_TIMEOUT
from ._conversation_messages import read_messages
from ._decisions import page_caller, read_decisions
from ._hub import TurnEventHub
from ._live_turn import LiveTurn
from ._token_route import resolve_by_token
from ._turn_results import denial_events
from ._waiting import waiting_conversations
from ._worker_gate import WorkerGate
from ._workflow_ids import chat_workflow_id, checked_workflow_id, conversation_id_of

__all__ = ('DurableChatBackend',)

_NOT_SENT = 'the message was not sent'
_NOT_READ = 'the conversation could not be read'
_ANSWERS_NOT_SENT = 'the answers were not sent'

MOVING_TIMEOUT = 30.0
"""Seconds a message that the conversation refuses while it moves to its next workflow run is sent again for (a
hand-over takes a workflow task or two, and activities for a large history) before the page is told to send it
later."""

_TITLE_LENGTH = 80
_STOP_BOUND = 10.0  # seconds `stop` waits for the stopped turn's stream to end after the workflow confirmed it


class _Conversation:
    """What `describe` says of a conversation workflow."""

    def __init__(self, handle: WorkflowHandle[Any, Any], agent: str, running: bool) -> None:
        self.handle = handle
        self.agent = agent
        self.running = running


class DurableChatBackend:
    """A `ChatBackend` whose conversations are `AgentWorkflow` conversation runs on a Temporal task queue.

    ```python
    hub = TurnEventHub()
    backend = DurableChatBackend(client, agents=['assistant'], task_queue='agents', hub=hub)
    app = create_chat_app(backend, auth=bearer_token_auth(token))
    # and a worker whose agents publish their events to the hub:
    build_worker(client, {'assistant': DurableAgent(agent, event_stream_handler=InMemoryPublisher(hub))})
    ```

    Tools that need approval make the turn wait inside the workflow (the agent's approval policy applies); the
    page's answer continues the same run. The inbox reads the runs' search attributes (`AgentOwner`,
    `PendingApprovals`), so it needs them registered on the namespace.
    """

    def __init__(
        self,
        client: Client,
        *,
        agents: Sequence[str],
        task_queue: str,
        hub: TurnEventHub,
        worker_timeout: float = DEFAULT_WORKER_TIMEOUT,
    ) -> None:
        """Serve the conversations of `agents` (registered with the workers of `task_queue`).

        Args:
            client: The Temporal client (payloads are encrypted with the environment's keys, as `AgentClient` does;
                the SDK's stock payload converters are replaced by the project's, as `build_worker` does).
            agents: The agents' registered names, in the order the page offers them (the first is the default).
            task_queue: The task queue of the workers that run the agents.
            hub: Where the workers' turn events arrive.
            worker_timeout: Seconds a request waits for a worker of `task_queue` to show up, to answer a query or
                to take an update before it is answered that no worker serves `task_queue` (`BackendUnavailable`).
        """
        if not agents:
            raise ValueError('DurableChatBackend needs at least one agent.')
        # The project's payload converter, as a worker's: reading a handed-over conversation back from the earlier
        # run's history (`read_messages`) decodes its stash activities' inputs, which are compressed when large.
        self._client = with_encryption(with_data_converter(client))
        self._agents = list(agents)
        self._task_queue = task_queue
        self._hub = hub
        self._gate = WorkerGate(self._client, task_queue, worker_timeout)
        self._worker_timeout = worker_timeout
        self._turns: dict[str, LiveTurn] = {}

    def agent_names(self) -> Sequence[str]:
        """The agents' names, in the order given."""
        return list(self._agents)

    async def stream_turn(self, turn: ChatTurn) -> AsyncIterator[NativeEvent]:
        """Send the turn to the conversation's workflow and return its live events (see `ChatBackend`).

        Raises:
            ConversationNotFound: The conversation belongs to another owner.
            UnknownAgent: No agent of that name.
            TurnRejected: A turn runs, the agent differs, the answers are not the pending approvals, or the
                conversation has ended.
            InvalidConversationId: The conversation id is too long for a workflow id.
            BackendUnavailable: No worker serves the task queue; `admitted` says whether the server holds the turn
                (answers to approvals are then recorded by signal: always admitted). Also when the conversation is
                still moving to its next workflow run after `MOVING_TIMEOUT` seconds (the message was not sent).
        """
        workflow_id = checked_workflow_id(turn.conversation_id)
        conversation = await self._describe(workflow_id, turn.owner)
        agent = turn.agent or (conversation.agent if conversation else self._agents[0])
        if agent not in self._agents:
            raise UnknownAgent(agent)
        if conversation is not None:
            if conversation.agent != agent:
                raise TurnRejected(f'This conversation is with agent {conversation.agent!r}, not {agent!r}.')
            if not conversation.running:
                raise TurnRejected('This conversation has ended and takes no more turns; start a new one.')
        if turn.deferred_tool_results is not None:
            if conversation is None:
                raise TurnRejected('No tool calls are waiting for approval in this conversation.')
            if turn.user_prompt is not None:
                raise TurnRejected('Answer the pending approvals first, then send the message.')
            live = await self._answer(conversation.handle, turn.owner, turn.deferred_tool_results)
        elif turn.user_prompt is None:
            raise TurnRejected('The turn has neither a message nor answers to pending approvals.')
        else:
            await self._gate.check(_NOT_SENT)
            if conversation is not None:
                await self._check_idle(conversation.handle)
                # Between turns, so a turn the hub still follows is over: one another client sent (an application
                # handing the conversation off, say), which this server did not end. It must not replay as this one.
                own = self._turns.get(workflow_id)
                if own is None or not own.running:
                    self._hub.end_turn(workflow_id)
            live = await self._send(turn.conversation_id, agent, turn.owner, turn.user_prompt)
        # Only running stretches and ended turns the hub still replays are needed (for `resume`); forget the others.
        self._turns = {
            key: other
            for key, other in self._turns.items()
            if other.running or (other.finished and self._hub.holds_ended_turn(key))
        }
        self._turns[workflow_id] = live
        return live.read()

    async def _send(
        self, conversation_id: str, agent: str, owner: str, prompt: str | Sequence[UserContent]
    ) -> LiveTurn:
        workflow_id = chat_workflow_id(conversation_id)
        message = ConversationMessage(prompt if isinstance(prompt, str) else list(prompt), owner=owner)
        inp = AgentRunInput(agent=agent, conversation=True, conversation_id=conversation_id, owner=owner)
        # Labelled by its first message, as `AgentClient` labels a conversation (only a start uses them).
        summary, details = start_metadata(replace(inp, prompt=message.prompt))
        deadline = asyncio.get_running_loop().time() + MOVING_TIMEOUT

        async def send(attempt: int) -> WorkflowUpdateHandle[AgentRunOutput]:
            if attempt:
                # Refused as moving: the hand-over follows the answer of the turn before, which this server may be
                # streaming. Its stream ends first, so `begin_turn` below cannot be taken for that turn's start.
                previous = self._turns.get(workflow_id)
                if previous is not None:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout_at(deadline):
                            await previous.wait()
            start = WithStartWorkflowOperation(
                AgentWorkflow.run,
                inp,
                id=workflow_id,
                task_queue=self._task_queue,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                memo={'agent': agent, 'owner': owner, 'title': _title(prompt)},
                static_summary=summary,
                static_details=details,
            )
            # Before the update, so none of this turn's events is taken for the last's.
            self._hub.begin_turn(workflow_id)
            update_id = f'message-{uuid.uuid4().hex}'
            sending = self._client.start_update_with_start_workflow(
                'send_message',
                message,
                id=update_id,
                start_workflow_operation=start,
                wait_for_stage=WorkflowUpdateStage.ACCEPTED,
                result_type=AgentRunOutput,
            )
            try:
                update = await self._gate.update(sending, workflow_id, update_id, 'the message', _NOT_SENT)
            finally:
                # The operation's handle is set to the error when the call fails; nobody awaits it here (the error
                # is raised), so it is taken, or asyncio reports it as never retrieved.
                started = start._workflow_handle
                if started.done() and not started.cancelled():
                    started.exception()
            # A rejected update comes back complete (its outcome is the rejection) rather than raising: e.g. another
            # owner started this id since `_describe` found nothing, the conversation is closing, or it is moving to
            # its next run. Only an update already complete has its outcome at hand; awaiting an accepted one's
            # result would wait for the turn.
            if update._known_outcome is not None:
                await update.result()
            return update

        try:
            update = await send_while_moving(send, within=MOVING_TIMEOUT)
        except WorkflowUpdateFailedError as exc:
            if is_moving(exc):
                raise BackendUnavailable(
                    f'The conversation was still moving to its next workflow run after {MOVING_TIMEOUT:g} s, so '
                    'the message was not sent. Send it again in a moment.'
                ) from exc
            raise _rejected(exc, conversation_id) from exc
        handle = self._client.get_workflow_handle(workflow_id)
        return self._follow(handle, owner, update.id)

    async def _answer(self, handle: WorkflowHandle[Any, Any], owner: str, results: DeferredToolResults) -> LiveTurn:
        """Send the answers as the `resolve_deferred_tools` update; by signal instead when no worker takes them.

        Raises:
            BackendUnavailable: No worker took the answers in time; they went by signal (`admitted`).
        """
        try:
            await self._gate.check(_ANSWERS_NOT_SENT)
            return await self._resolve(handle, owner, results)
        except BackendUnavailable as exc:
            # An update no worker took is at best held in the server's memory. The signal is written to the run's
            # history at once and applies when a worker takes the run; if the update reaches the run as well, the
            # second of the two is refused as already resolved (the update by its validator; the signal's entries
            # are listed under the run's `rejected`), so the answers apply once.
            await handle.signal(AgentWorkflow.submit_deferred_tool_results, args=[results, page_caller(owner)])
            raise self._gate.recorded('the answers') from exc

    async def _resolve(self, handle: WorkflowHandle[Any, Any], owner: str, results: DeferredToolResults) -> LiveTurn:
        pending = await self._gate.query(handle.query(AgentWorkflow.pending_deferred_tools), _ANSWERS_NOT_SENT)
        if pending is None:
            raise TurnRejected('No tool calls are waiting for approval in this conversation.')
        expected, given = set(pending.tool_call_ids), set(results.tool_call_ids)
        if given != expected:
            raise TurnRejected(
                f'The turn must answer exactly the pending tool calls {sorted(expected)}; it answers {sorted(given)}.'
            )
        now = await self._gate.query(read_messages(self._client, handle.id), _ANSWERS_NOT_SENT)
        if now.turn is None or now.turn.update_id is None:
            raise TurnRejected('No turn of this conversation is waiting for approval.')
        # What the page showed of the turn so far: its continuation streams only what comes after.
        skip = len(self._hub.buffered(handle.id))
        update_id = f'answers-{uuid.uuid4().hex}'
        answering = handle.execute_update(
            AgentWorkflow.resolve_deferred_tools, args=[results, page_caller(owner)], id=update_id
        )
        try:
            await self._gate.update(answering, handle.id, update_id, 'the answers', _ANSWERS_NOT_SENT)
        except WorkflowUpdateFailedError as exc:
            raise _rejected(exc, conversation_id_of(handle.id)) from exc
        # The turn's messages as of the approval wait: a resume replays them before the continuation.
        earlier = now.messages[now.turn.start :]
        return self._follow(
            handle, owner, now.turn.update_id, skip=skip, prelude=denial_events(pending, results), earlier=earlier
        )

    def _follow(
        self,
        handle: WorkflowHandle[Any, Any],
        owner: str,
        update_id: str,
        *,
        skip: int = 0,
        prelude: Sequence[NativeEvent] = (),
        earlier: Sequence[ModelMessage] = (),
    ) -> LiveTurn:
        update = handle.get_update_handle(update_id, result_type=AgentRunOutput)

        async def turn_messages() -> list[ModelMessage]:
            now = await read_messages(self._client, handle.id)
            return now.messages[now.turn.start :] if now.turn is not None else []

        return LiveTurn(
            self._hub,
            handle,
            update,
            owner=owner,
            skip=skip,
            prelude=prelude,
            earlier=earlier,
            turn_messages=turn_messages,
        )

    async def _check_idle(self, handle: WorkflowHandle[Any, Any]) -> None:
        status = await self._gate.query(handle.query(AgentWorkflow.status), _NOT_SENT)
        if status.state == 'awaiting_deferred_tools':
            raise TurnRejected('Tool calls are waiting for approval: answer them before sending a new message.')
        if status.state != 'awaiting_message':
            raise TurnRejected('A turn is already running in this conversation; stop it or wait for it to finish.')

    async def resume(self, conversation_id: str, owner: str) -> AsyncIterator[NativeEvent] | None:
        """The running turn's events from its start, then live; `None` when no turn runs or it waits for approvals.

        A turn that ended with a result is still replayed while the hub keeps it (its `end_grace`).
        """
        workflow_id = checked_workflow_id(conversation_id)
        conversation = await self._owned(workflow_id, owner)
        live = self._turns.get(workflow_id)
        if live is not None and (live.running or (live.finished and self._hub.holds_ended_turn(workflow_id))):
            return live.read(from_start=True)
        if (live is None or live.waiting is not None) and conversation.running:
            # This server did not start the turn (it restarted since), or last saw it stop for approvals that were
            # answered elsewhere (another approver's, by `agents approve`): follow it if one runs.
            await self._gate.check(_NOT_READ)
            status = await self._gate.query(conversation.handle.query(AgentWorkflow.status), _NOT_READ)
            if status.state == 'running':
                turn = (await self._gate.query(read_messages(self._client, workflow_id), _NOT_READ)).turn
                if turn is not None and turn.update_id is not None:
                    live = self._turns[workflow_id] = self._follow(conversation.handle, owner, turn.update_id)
                    return live.read(from_start=True)
        return None

    async def stop(self, conversation_id: str, owner: str) -> bool:
        """Cancel the running turn (`cancel_turn`) and wait until its stream has ended; `True` if one was running."""
        workflow_id = checked_workflow_id(conversation_id)
        conversation = await self._owned(workflow_id, owner)
        if not conversation.running:
            return False
        not_stopped = 'the turn was not stopped'
        await self._gate.check(not_stopped)
        update_id = f'stop-{uuid.uuid4().hex}'
        stopping = conversation.handle.start_update(
            'cancel_turn',
            CancelTurn(owner=owner),
            id=update_id,
            wait_for_stage=WorkflowUpdateStage.ACCEPTED,
            result_type=CancelTurnResult,
        )
        try:
            accepted = await self._gate.update(stopping, workflow_id, update_id, 'the stop request', not_stopped)
            # Taken by a worker, which answers once the turn has ended.
            result = await accepted.result()
        except WorkflowUpdateFailedError as exc:
            raise _rejected(exc, conversation_id) from exc
        live = self._turns.get(workflow_id)
        if live is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_STOP_BOUND):
                    await live.wait()
        return result.cancelled

    async def history(self, conversation_id: str, owner: str) -> list[ModelMessage]:
        """The conversation's messages, from its workflow's `messages` query.

        While a turn streams (also when it continues after its approvals), the history stops at the turn's user
        request: `resume` replays the rest from there, so each message shows once. A turn waiting for approvals shows
        everything it did, ending with the response that asked for them.
        """
        workflow_id = checked_workflow_id(conversation_id)
        await self._owned(workflow_id, owner)
        await self._gate.check(_NOT_READ)
        now = await self._gate.query(read_messages(self._client, workflow_id), _NOT_READ)
        turn = now.turn
        if turn is not None and not turn.awaiting_deferred_tools:
            return now.messages[: turn.start + 1]
        return now.messages

    async def inbox(self, owner: str) -> list[WaitingConversation]:
        """The owner's conversations whose turn waits for approvals, newest first (from the runs' search attributes).

        Visibility is eventually consistent: a conversation shows up a moment after it starts waiting.
        """
        return await waiting_conversations(self._client, self._gate, self._task_queue, owner)

    async def decisions(self, conversation_id: str, owner: str) -> ConversationDecisions:
        """Who decided the conversation's deferred tool calls, and its open approvals (see `_decisions`)."""
        conversation = await self._owned(checked_workflow_id(conversation_id), owner)
        return await read_decisions(conversation.handle, self._gate, _NOT_READ)

    async def resolve_external_event(
        self, token: str, owner: str, *, results: Any = None, failure: str | None = None
    ) -> None:
        """End the durable wait `token` names (a `RequestInput`'s), as `doors.chat._token_route` says."""
        await resolve_by_token(
            self._client, self._gate, self._worker_timeout, token, owner, results=results, failure=failure
        )

    async def _owned(self, workflow_id: str, owner: str) -> _Conversation:
        conversation = await self._describe(workflow_id, owner)
        if conversation is None:
            raise ConversationNotFound(conversation_id_of(workflow_id))
        return conversation

    async def _describe(self, workflow_id: str, owner: str) -> _Conversation | None:
        """The conversation's workflow, `None` if there is none.

        Raises:
            NotOwner: The workflow is not a conversation of `owner`.
        """
        handle = self._client.get_workflow_handle(workflow_id)
        try:
            description = await handle.describe()
        except RPCError as exc:
            if exc.status == RPCStatusCode.NOT_FOUND:
                return None
            raise
        memo = await description.memo()
        if memo.get('owner') != owner or not isinstance(memo.get('agent'), str):
            raise NotOwner(conversation_id_of(workflow_id))
        return _Conversation(handle, memo['agent'], description.status == WorkflowExecutionStatus.RUNNING)

    def close(self) -> None:
        """Stop following the running turns (they go on in their workflows)."""
        for live in self._turns.values():
            live.close()
        self._turns.clear()


def _rejected(exc: WorkflowUpdateFailedError, conversation_id: str) -> ChatBackendError:
    """What a rejected or failed update means to the app: another owner's conversation, or a turn it cannot take."""
    cause = exc.cause
    if isinstance(cause, ApplicationError) and cause.type == NOT_OWNER:
        return NotOwner(conversation_id)
    return TurnRejected(cause.message if isinstance(cause, ApplicationError) else str(cause))


def _title(prompt: str | Sequence[UserContent]) -> str:
    """The start of the first user message's text, on one line."""
    text = prompt if isinstance(prompt, str) else ' '.join(item for item in prompt if isinstance(item, str))
    text = ' '.join(text.split())
    return text if len(text) <= _TITLE_LENGTH else text[: _TITLE_LENGTH - 1] + '…'
