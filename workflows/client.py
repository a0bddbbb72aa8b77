"""A small client for durable agent runs: start, run and wait, converse, approve, inspect.

```python
from workflows.client import AgentClient

agents = AgentClient(await connect('localhost:7233'))
handle = await agents.start('support', 'Clean up my files')
print(await agents.pending(handle.id))
await agents.approve(handle.id, approvals={'<tool_call_id>': True})
print((await agents.result(handle.id)).output)

await agents.resolve_token(token, {'approvals': {'<tool_call_id>': True}}, caller='alice')  # a RequestInput wait

reply = await agents.send_message('support', conversation_id='c-42', prompt='Hi!')  # no workflow id to store
```

Not imported by workflow code: it is for processes that start and steer runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opentelemetry.trace import TracerProvider
from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleHandle,
    ScheduleIntervalSpec,
    ScheduleSpec,
    ScheduleState,
    WithStartWorkflowOperation,
    WorkflowHandle,
    WorkflowUpdateRPCTimeoutOrCancelledError,
    WorkflowUpdateStage,
)
from temporalio.common import WorkflowIDConflictPolicy

from agent._deferred import DeferredToolRequests, DeferredToolResults
from agent._parts import ModelMessage
from agent.exceptions import UserError

from ._connection import connect_config
from ._data_converter import data_converter
from ._encryption import with_encryption
from ._inbox import WaitingRun, waiting_runs
from ._moving import send_while_moving
from ._resume_tokens import InvalidToken, TokenRefused
from ._run_details import start_metadata
from ._schedules import AGENT_MEMO_KEY, AgentSchedule, agent_schedules
from ._token_sends import resolution, send_resolution, signal_resolution
from ._tracing import with_tracing
from ._types import (
    AgentRunInput,
    AgentRunOutput,
    Caller,
    ConversationMessage,
    ConversationPage,
    MessagePage,
    RunStatus,
)
from ._versioning import eager_start_allowed
from ._workflow_ids import conversation_workflow_id

if TYPE_CHECKING:
    from ._agent_workflow import AgentWorkflow

__all__ = ('AgentClient', 'InvalidToken', 'TokenRefused')

WORKFLOW = 'AgentWorkflow'
"""The workflow's name. The client calls it and its handlers by name (as the server knows them, see
`workflows._agent_workflow`): importing the workflow's class would load the agent graph, the activities and the
SDK's worker into every process that only starts and steers runs, every `agents` command among them."""


class AgentClient:
    """Starts and steers `AgentWorkflow` runs on a task queue.

    Every answer it sends (approvals, resolved tokens) names who gives it: `identity`, else the Temporal client's
    identity; each call can name another (`caller=`). With encryption keys in the environment
    (`AGENT_ENCRYPTION_KEYS`, see `workflows.EncryptionCodec`) and no codec on `client`, payloads are encrypted and
    decrypted with them. With a tracer provider (`tracer_provider`,
    or a global one) runs are started in a span, so each run's spans join the caller's trace.

    Raises:
        EncryptionKeyError: if the encryption keys in the environment are malformed.
    """

    def __init__(
        self,
        client: Client,
        *,
        task_queue: str = 'agents',
        tracer_provider: TracerProvider | None = None,
        identity: str | None = None,
    ) -> None:
        self.client = with_tracing(with_encryption(client), tracer_provider)
        self.task_queue = task_queue
        self.identity = identity or client.identity
        """Who this client's answers come from, unless a call names another (the decision records show it)."""

    @classmethod
    async def connect(
        cls,
        address: str | None = None,
        *,
        namespace: str | None = None,
        api_key: str | None = None,
        tls_cert: str | Path | None = None,
        tls_key: str | Path | None = None,
        profile: str | None = None,
        task_queue: str = 'agents',
        identity: str | None = None,
        **options: Any,
    ) -> AgentClient:
        """Connect as Temporal's tools do: from `TEMPORAL_*` variables and the `temporal` CLI's config profile.

        Each argument given overrides the configuration (see `workflows._connection.connect_config`); `options`
        are more `Client.connect` arguments.

        Raises:
            RuntimeError: if no server answers at the address (the SDK's error), or the configuration is malformed.
            OSError: if a certificate or key file cannot be read.
        """
        config = connect_config(
            address=address, namespace=namespace, api_key=api_key, tls_cert=tls_cert, tls_key=tls_key, profile=profile
        )
        options.setdefault('data_converter', data_converter)
        return cls(await Client.connect(**config, **options), task_queue=task_queue, identity=identity)

    async def start(
        self, agent: str, prompt: str | None = None, *, workflow_id: str | None = None, **fields: Any
    ) -> WorkflowHandle[AgentWorkflow, AgentRunOutput]:
        """Start a run of `agent` (extra keyword arguments are `AgentRunInput` fields).

        Where a worker of this client's connection polls the task queue and has a free slot, the server hands it the
        run's first workflow task in the reply to the start (Temporal's eager workflow start), a few milliseconds
        sooner than through the task queue; otherwise the run starts as usual.
        """
        inp = AgentRunInput(agent=agent, prompt=prompt, **fields)
        summary, details = start_metadata(inp)  # what the Web UI shows of the run: the agent and the prompt's start
        return await self.client.start_workflow(
            WORKFLOW,
            inp,
            result_type=AgentRunOutput,
            id=workflow_id or f'agent-{agent}-{uuid.uuid4()}',
            task_queue=self.task_queue,
            static_summary=summary,
            static_details=details,
            # The SDK's core asks for it only when a worker of this connection has a slot for the task queue.
            request_eager_start=eager_start_allowed(self.task_queue),
        )

    async def run(self, agent: str, prompt: str | None = None, **fields: Any) -> AgentRunOutput:
        """Start a run and wait for its result."""
        handle = await self.start(agent, prompt, **fields)
        return await self.complete(handle, await handle.result())

    async def send_message(
        self, agent: str, *, conversation_id: str, prompt: str, hand_off_to: str | None = None, **fields: Any
    ) -> AgentRunOutput:
        """Send a user turn to the conversation `conversation_id`, starting its workflow if needed.

        The workflow id is derived from `agent` and the conversation id, so callers never store workflow ids.

        Args:
            agent: The agent the conversation was started with, which names it even after a hand-off.
            conversation_id: The conversation.
            prompt: The user prompt.
            hand_off_to: Hand the conversation off: this served agent answers this turn and the ones after it, on the
                same history in the same workflow (`None`: the agent answering now).
            **fields: `AgentRunInput` fields for the workflow, if this message starts it.

        Raises:
            WorkflowUpdateFailedError: if the conversation refuses the message, e.g. a hand-off to an agent its
                workers do not serve (nothing is recorded).
        """
        inp = AgentRunInput(agent=agent, conversation=True, conversation_id=conversation_id, **fields)
        summary, details = start_metadata(replace(inp, prompt=prompt))  # labelled by its first message

        async def send(attempt: int) -> AgentRunOutput:
            start = WithStartWorkflowOperation(
                WORKFLOW,
                inp,
                result_type=AgentRunOutput,
                id=conversation_workflow_id(agent, conversation_id),
                task_queue=self.task_queue,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                static_summary=summary,
                static_details=details,
            )
            output: AgentRunOutput = await self.client.execute_update_with_start_workflow(
                'send_message',
                ConversationMessage(prompt, hand_off_to=hand_off_to),
                start_workflow_operation=start,
                result_type=AgentRunOutput,
            )
            return output

        # Refused, not recorded, while the conversation hands over to its next run: sent again there.
        return await send_while_moving(send)

    async def close_conversation(self, agent: str, conversation_id: str) -> None:
        """Ask a conversation to end once its queued turns are done."""
        handle = self.client.get_workflow_handle(conversation_workflow_id(agent, conversation_id))
        await handle.signal('close_conversation')

    async def pending(self, workflow_id: str, *, caller: str | None = None) -> DeferredToolRequests | None:
        """The deferred tool calls a run is waiting for, if any; with `caller`, only those that identity may answer
        now under the agent's approval rules (and the external calls)."""
        handle = self.client.get_workflow_handle(workflow_id)
        args = [caller] if caller is not None else []
        return await handle.query('pending_deferred_tools', args=args, result_type=DeferredToolRequests)

    async def approve(
        self,
        workflow_id: str,
        *,
        approvals: dict[str, Any] | None = None,
        calls: dict[str, Any] | None = None,
        metadata: dict[str, dict[str, Any]] | None = None,
        accept_within: float | None = None,
        caller: str | None = None,
        owner: str | None = None,
    ) -> DeferredToolRequests | None:
        """Resolve deferred tool calls (rejected with a clear error if an id is unknown); returns what is pending.

        The answers come from `caller` (this client's `identity` if not given): the run refuses them if the agent's
        approval rules do not allow that identity, and names it in the calls' decision records. With `owner`, the
        run also refuses them if it was started for another owner.

        The results go as the `resolve_deferred_tools` update, which only a worker of the run's task queue can
        accept: without `accept_within`, this waits for one however long it takes. Results sent while the run is still
        working towards the calls they answer are held, and this returns once the run asks for them.

        Raises:
            WorkflowUpdateFailedError: if the run refuses the results (an unknown or resolved id, nothing pending,
                held results for calls the run did not ask for).
            TimeoutError: if no worker accepts them within `accept_within` seconds. The server still holds the update
                (Temporal's *admitted* stage) and hands it to the next worker that takes the run, but only in memory:
                it is lost if the server restarts first. `submit` sends results durably.
        """
        results = DeferredToolResults(approvals=approvals or {}, calls=calls or {}, metadata=metadata or {})
        args = [results, Caller(owner=owner, identity=caller or self.identity)]
        handle = self.client.get_workflow_handle(workflow_id)
        if accept_within is None:
            return await handle.execute_update('resolve_deferred_tools', args=args, result_type=DeferredToolRequests)
        # `execute_update` polls until the update completes, however long no worker is there to accept it; this waits
        # for acceptance for `accept_within` at most (after which the handler completes at once, unless the run is
        # still working towards the calls: then when it asks for them).
        accepting = asyncio.ensure_future(
            handle.start_update(
                'resolve_deferred_tools',
                args=args,
                wait_for_stage=WorkflowUpdateStage.ACCEPTED,
                result_type=DeferredToolRequests,
            )
        )
        await asyncio.wait({accepting}, timeout=accept_within)
        if not accepting.done():
            accepting.cancel()
            with contextlib.suppress(asyncio.CancelledError, WorkflowUpdateRPCTimeoutOrCancelledError):
                await accepting
            raise TimeoutError(f'No worker accepted the results for run {workflow_id!r} within {accept_within:g} s.')
        return await accepting.result().result()

    async def submit(
        self,
        workflow_id: str,
        *,
        approvals: dict[str, Any] | None = None,
        calls: dict[str, Any] | None = None,
        metadata: dict[str, dict[str, Any]] | None = None,
        caller: str | None = None,
    ) -> None:
        """Deliver deferred tool results by the `submit_deferred_tool_results` signal, with or without a worker.

        The signal is written to the run's history when the server takes it, so the results are kept whatever
        happens next, and apply when a worker takes the run; nothing comes back. The run lists the entries it cannot
        use (unknown or already resolved ids, answers the approval rules do not allow from `caller`) under
        `status().rejected` instead of refusing them as `approve` does. `caller` is as `approve` says.
        """
        results = DeferredToolResults(approvals=approvals or {}, calls=calls or {}, metadata=metadata or {})
        args = [results, Caller(identity=caller or self.identity)]
        await self.client.get_workflow_handle(workflow_id).signal('submit_deferred_tool_results', args=args)

    async def resolve_token(
        self,
        token: str,
        results: Any,
        *,
        caller: str | None = None,
        owner: str | None = None,
        accept_within: float | None = None,
    ) -> None:
        """Resolve the durable wait `token` names (one a `RequestInput` handed its `ask`) with `results`.

        The resolution goes as the `resolve_external_event` update to the run the token names, which checks it
        before anything is recorded.

        Args:
            token: The wait's resume token.
            results: The answer: for `RequestInput`, `DeferredToolResults` (or its JSON form) naming only pending
                calls.
            caller: Who answers (a free-form id; this client's `identity` if not given), logged by the run and
                credited in the answer (`RequestInput`: `answered_by` of each call it answers without naming anyone).
            owner: The caller's owner id: the run refuses an owner other than the one it was started with
                (`None`: not checked, for operators' tools).
            accept_within: Give up waiting for a worker to accept the resolution after that many seconds (`None`:
                wait however long it takes).

        Raises:
            TokenRefused: in one line: the token is malformed (`InvalidToken`), the run refused the resolution (an
                ended or unknown wait, a token of another run, a payload the wait refuses, another owner's run), or
                the run does not exist or has ended.
            TimeoutError: no worker accepted it within `accept_within` (see `approve`; `submit_token` is durable).
        """
        address, sent = resolution(token, results, caller=caller or self.identity, owner=owner)
        await send_resolution(self.client, address, sent, accept_within=accept_within)

    async def fail_token(
        self,
        token: str,
        reason: str,
        *,
        caller: str | None = None,
        owner: str | None = None,
        accept_within: float | None = None,
    ) -> None:
        """End the durable wait `token` names without an answer: `RequestInput` denies the pending approvals and
        fails the pending external calls, telling the model `reason`. Sent and refused as `resolve_token`.

        Raises:
            TokenRefused: as `resolve_token` says.
            TimeoutError: as `resolve_token` says.
        """
        address, sent = resolution(token, failure=reason, caller=caller or self.identity, owner=owner)
        await send_resolution(self.client, address, sent, accept_within=accept_within)

    async def submit_token(
        self, token: str, results: Any = None, *, failure: str | None = None, caller: str | None = None
    ) -> None:
        """Resolve (or, with `failure`, fail) the wait `token` names by the `submit_external_event` signal.

        The signal is written to the run's history when the server takes it, so it needs no worker up and is kept
        whatever happens next; the run lists a resolution it cannot take under `status().rejected` (nothing comes
        back here), where `resolve_token` would refuse it.

        Raises:
            TokenRefused: the token is malformed, or its run does not exist or has ended.
        """
        address, sent = resolution(token, results, failure=failure, caller=caller or self.identity)
        await signal_resolution(self.client, address, sent)

    async def create_schedule(
        self,
        schedule_id: str,
        agent: str,
        prompt: str | None = None,
        *,
        every: timedelta | None = None,
        cron: str | None = None,
        paused: bool = False,
        **fields: Any,
    ) -> ScheduleHandle:
        """Run `agent` on a schedule (every `every`, or per the `cron` expression).

        Each scheduled run gets a workflow id derived from the schedule's id and the fire time.

        Raises:
            UserError: unless exactly one of `every` and `cron` is given.
        """
        if (every is None) == (cron is None):
            raise UserError('Give exactly one of every= (a timedelta) or cron= (a cron expression) for a schedule.')
        spec = ScheduleSpec(
            intervals=[ScheduleIntervalSpec(every=every)] if every is not None else [],
            cron_expressions=[cron] if cron is not None else [],
        )
        inp = AgentRunInput(agent=agent, prompt=prompt, **fields)
        summary, details = start_metadata(inp)
        action = ScheduleActionStartWorkflow(
            WORKFLOW,
            inp,
            id=f'{schedule_id}-run',
            task_queue=self.task_queue,
            static_summary=summary,
            static_details=details,
        )
        return await self.client.create_schedule(
            schedule_id,
            Schedule(action=action, spec=spec, state=ScheduleState(paused=paused)),
            memo={AGENT_MEMO_KEY: agent},
        )

    async def schedules(self) -> list[AgentSchedule]:
        """The namespace's schedules that start agent runs, by id (listing lags a moment behind a change)."""
        return await agent_schedules(self.client)

    async def delete_schedule(self, schedule_id: str) -> None:
        """Delete a schedule (the runs it started are left as they are)."""
        await self.client.get_schedule_handle(schedule_id).delete()

    async def inbox(self, owner: str | None = None, *, caller: str | None = None) -> list[WaitingRun]:
        """Every run of the namespace that waits for a human (of `owner` if given), newest first; with `caller`,
        only the runs with calls that identity may answer now under their agents' approval rules, and those calls.

        Found through the runs' search attributes (see `workflows._inbox`): visibility lags a moment behind.
        """
        return await waiting_runs(self.client, owner, caller)

    async def messages(self, workflow_id: str, offset: int = 0, limit: int = 100) -> ConversationPage:
        """A page of a run's messages as they are now, from index `offset` (see `AgentWorkflow.messages`)."""
        page = MessagePage(offset=offset, limit=limit)
        return await self.client.get_workflow_handle(workflow_id).query('messages', page, result_type=ConversationPage)

    async def status(self, workflow_id: str) -> RunStatus:
        """Where a run is: state, step, usage."""
        return await self.client.get_workflow_handle(workflow_id).query('status', result_type=RunStatus)

    async def result(self, workflow_id: str) -> AgentRunOutput:
        """Wait for a run's result, with every new message (fetching any a large result left out)."""
        handle: WorkflowHandle[Any, AgentRunOutput] = self.client.get_workflow_handle(
            workflow_id, result_type=AgentRunOutput
        )
        return await self.complete(handle, await handle.result())

    async def complete(self, handle: WorkflowHandle[Any, Any], output: AgentRunOutput) -> AgentRunOutput:
        """`output` with the messages it left out (see `AgentRunOutput.earlier_messages_omitted`) paged in."""
        omitted = output.earlier_messages_omitted
        if not omitted:
            return output
        earlier: list[ModelMessage] = []
        while len(earlier) < omitted:
            page = MessagePage(offset=len(earlier), limit=omitted - len(earlier))
            earlier.extend(await handle.query('new_messages', page, result_type=list[ModelMessage]))
        return replace(output, new_messages=[*earlier, *output.new_messages], earlier_messages_omitted=0)
