"""Following a run as it happens: `agents run --watch` and `agents watch`.

The source of progress is the run's own state: its `status`, `messages` and `pending_deferred_tools` queries,
polled every `poll` seconds (half a second by default), printing only what is new (`_progress`). Polling the
workflow's state works against any worker and any server; the alternative, the live relay of the chat page
(`doors.chat`), streams text token by token but needs a chat server the workers publish to. So model text
appears response by response, when each response is complete.

A query is answered by a worker of the run's task queue, so before asking, each round reads the run's description:
while its workflow task is scheduled and not started, nobody could answer yet. When that has lasted `STALL_AFTER`
seconds the watcher says so once, naming the task queue and whether any worker polls it, and keeps waiting. Nor can
anyone answer while the run's workflow task fails on the worker (`_unanswered`): then, whether the description shows
the task retried or a query fails, the watcher says so with the failure's first line, once for each failure, and keeps
waiting, since a worker with fixed code resumes the run.

Pending approvals are asked at the prompt, one tool call at a time: `y` approves, `n` denies and asks for a reason
that is told to the model; the answer goes through `_answer` (bounded, and recorded by signal if no worker takes
it). Standard input is read by a daemon thread, so a prompt nobody answers never keeps the process from ending, and
while it waits the watcher checks that the call still waits (someone may answer it from another terminal or
`agents inbox`). `--yes` approves every call without asking; `--no-input`, or an input that ends, prints how to
answer instead.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from datetime import UTC, datetime
from typing import Literal, TypeVar

from temporalio.api.enums.v1 import PendingWorkflowTaskState
from temporalio.client import WorkflowExecutionDescription, WorkflowExecutionStatus, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from agent._deferred import ToolDenied
from agent._tool_parts import ToolCallPart
from workflows._types import RunStatus
from workflows.client import AgentClient

from ._answer import answer
from ._errors import CommandError, cause_of
from ._output import plural
from ._progress import Progress
from ._prompt import Answered, Answers
from ._unanswered import TaskFailing, failure_while, pollers, retried, task_failure, unanswered

__all__ = ('QUERY_TIMEOUT', 'STALL_AFTER', 'Decide', 'Watcher', 'ask', 'follow', 'stalled_for', 'usage_line')

T = TypeVar('T')

Decide = Literal['ask', 'yes', 'no-input']
"""How the watcher answers pending approvals: at the prompt, approving all (`--yes`), or not (`--no-input`)."""

QUERY_TIMEOUT = 10.0
"""Seconds a command waits for a run to answer a query: only a worker of the run's task queue can answer it."""

STALL_AFTER = 3.0
"""Seconds a run's workflow task may wait for a worker before the watcher says that none picks it up."""

DENIED = 'The tool call was denied.'


async def ask(agents: AgentClient, workflow_id: str, query: Awaitable[T]) -> T:
    """A query's answer, or an error saying why the run gives none (see `_unanswered`).

    Raises:
        TaskFailing: once the run's workflow task is seen failing on the worker: the server holds the query until
            the task's attempt times out, or refuses it, so the run is looked at while the query waits.
        CommandError: after `QUERY_TIMEOUT` without an answer, saying whether any worker polls the task queue.
    """
    client = agents.client
    answered = asyncio.ensure_future(query)
    failing = asyncio.ensure_future(failure_while(client, workflow_id))
    try:
        await asyncio.wait({answered, failing}, timeout=QUERY_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (answered, failing):
            task.cancel()
        await asyncio.gather(answered, failing, return_exceptions=True)
    if answered.done() and not answered.cancelled():
        try:
            return answered.result()
        except RPCError as exc:  # the server refuses a query to a run whose workflow task has failed repeatedly
            if exc.status != RPCStatusCode.FAILED_PRECONDITION:
                raise
            failure = await task_failure(client, workflow_id)
            if failure is None:
                raise
            raise TaskFailing(failure) from None
    if failing.done() and not failing.cancelled():
        raise TaskFailing(failing.result())
    raise await unanswered(client, workflow_id, QUERY_TIMEOUT)


def stalled_for(description: WorkflowExecutionDescription, now: datetime | None = None) -> float | None:
    """How long the run's workflow task has waited for a worker to start it, or `None` if none waits."""
    raw = description.raw_description
    if not raw.HasField('pending_workflow_task'):
        return None
    task = raw.pending_workflow_task
    if task.state != PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED:
        return None
    since = task.original_scheduled_time if task.HasField('original_scheduled_time') else task.scheduled_time
    return ((now or datetime.now(UTC)) - since.ToDatetime(tzinfo=UTC)).total_seconds()


async def _stall_message(
    agents: AgentClient, workflow_id: str, task_queue: str, waited: float, *, failing: bool
) -> str | None:
    """What to say of a run whose workflow task waits for a worker (`None`: its failure, said already, explains it)."""
    polling = await pollers(agents.client, task_queue)
    if not polling:
        return (
            f'Run {workflow_id!r} has waited {waited:.0f} s: no worker polls its task queue {task_queue!r}.\n'
            f'Start one with `agents worker --agents module:agent --task-queue {task_queue}` (or check --task-queue).'
        )
    if failing:
        return None
    return (
        f'Run {workflow_id!r} has waited {waited:.0f} s for a worker of task queue {task_queue!r}: '
        f'{plural(polling, "worker")} poll it but none has started the run (busy, or without its agent?).'
    )


class Watcher:
    """Follows one run: prints its progress and answers its approvals as `decide` says."""

    def __init__(
        self, agents: AgentClient, workflow_id: str, *, poll: float, decide: Decide, caller: str | None = None
    ) -> None:
        self.agents = agents
        self.workflow_id = workflow_id
        self.caller = caller
        """The identity `--as` names, if any: only the approvals it may answer are asked about."""
        self.poll = poll
        self.decide: Decide = decide
        self.progress = Progress()
        self.answers = Answers()
        self._handled: set[str] = set()
        self._warned = False
        self._failure: str | None = None
        """The workflow task failure said last (said again only if it changes, or comes back after an answer)."""

    def show(self, lines: list[str]) -> None:
        if lines:
            print('\n'.join(lines), flush=True)

    async def messages(self) -> None:
        """Print what is new in the run's messages (the last message shown may have grown)."""
        offset = max(self.progress.next_index - 1, 0)
        while True:
            page = await ask(self.agents, self.workflow_id, self.agents.messages(self.workflow_id, offset))
            self.show(self.progress.lines(page.messages, offset))
            offset += len(page.messages)
            if not page.messages or offset >= page.total:
                return

    async def _still_pending(self, tool_call_id: str) -> bool:
        pending = await ask(self.agents, self.workflow_id, self.agents.pending(self.workflow_id, caller=self.caller))
        return pending is not None and any(c.tool_call_id == tool_call_id for c in pending.approvals)

    async def _decision(self, call: ToolCallPart) -> bool | ToolDenied | None:
        """What the person decides about `call`; `None` to leave it to someone else."""
        if self.decide == 'yes':
            return True
        if self.decide == 'no-input':
            return None

        async def still() -> bool:
            return await self._still_pending(call.tool_call_id)

        question = f'approve {call.tool_name}({call.args_as_json_str()}) [{call.tool_call_id}]? (y/n) '
        while True:
            answer = await self.answers.line(question, still=still, every=max(self.poll, 1.0))
            if answer is None:
                print(flush=True)
                self.decide = 'no-input'  # the input has ended: nobody is there to ask
                return None
            if answer.strip().lower() in ('y', 'yes'):
                return True
            if answer.strip().lower() in ('n', 'no'):
                reason = await self.answers.line('reason, told to the model (Enter: none): ', still=still, every=1.0)
                return ToolDenied((reason or '').strip() or DENIED)
            print('Please answer y (approve) or n (deny).', flush=True)

    async def approvals(self) -> None:
        """Answer (or show how to answer) each pending tool call not handled yet."""
        pending = await ask(self.agents, self.workflow_id, self.agents.pending(self.workflow_id, caller=self.caller))
        if pending is None:
            return
        for call in [c for c in pending.calls if c.tool_call_id not in self._handled]:
            self._handled.add(call.tool_call_id)
            print(f'  waits for the result of {call.tool_name} [{call.tool_call_id}]: see `agents pending`', flush=True)
        for call in [c for c in pending.approvals if c.tool_call_id not in self._handled]:
            self._handled.add(call.tool_call_id)
            try:
                decision = await self._decision(call)
            except Answered:
                print(f'  {call.tool_call_id} was answered elsewhere.', flush=True)
                continue
            if decision is None:
                print(
                    f'  waits for approval: agents approve {self.workflow_id} {call.tool_call_id}  (or agents deny)',
                    flush=True,
                )
                continue
            verdict = 'approved' if decision is True else 'denied'
            what = f'{"approval" if decision is True else "denial"} of {call.tool_call_id}'
            try:
                remaining = await answer(self.agents, self.workflow_id, {call.tool_call_id: decision}, what=what)
            except WorkflowUpdateFailedError as exc:
                print(f'  {call.tool_call_id} was not answered: {cause_of(exc)}', flush=True)
                continue
            except CommandError as exc:  # no worker took it: recorded, it applies once one does
                print(exc, file=sys.stderr, flush=True)
                continue
            # Still pending after an approval the run took: its rule needs more approvers, and this one counted.
            more = remaining is not None and any(c.tool_call_id == call.tool_call_id for c in remaining.approvals)
            print(
                f'  {verdict} {call.tool_call_id}'
                + (', which needs more approvers' if more else '')
                + (' (--yes)' if self.decide == 'yes' else ''),
                flush=True,
            )

    async def _stalled(self, description: WorkflowExecutionDescription, *, failing: bool) -> bool:
        waited = stalled_for(description)
        if waited is None:
            return False
        if waited >= STALL_AFTER and not self._warned:
            self._warned = True
            task_queue = description.task_queue
            message = await _stall_message(self.agents, self.workflow_id, task_queue, waited, failing=failing)
            if message is not None:
                print(message, file=sys.stderr, flush=True)
        return True

    def _tell_failing(self, error: TaskFailing) -> None:
        if error.failure != self._failure:
            self._failure = error.failure
            print(error, file=sys.stderr, flush=True)

    async def _failing(self, description: WorkflowExecutionDescription) -> bool:
        """Whether the run's workflow task is retried after a failure (said once), so no query could be answered."""
        if not retried(description):
            return False
        failure = await task_failure(self.agents.client, self.workflow_id)
        if failure is None:
            return False  # the last attempt timed out (a worker went away): the stall, if any, is said instead
        self._tell_failing(TaskFailing(failure))
        return True

    async def follow(self) -> RunStatus | None:
        """Print the run's progress until it ends; returns its last status (`None` if it ended unwatched)."""
        handle = self.agents.client.get_workflow_handle(self.workflow_id)
        while True:
            description = await handle.describe()
            ended = description.status not in (None, WorkflowExecutionStatus.RUNNING)
            if ended and self.progress.next_index == 0:
                return None  # ended before we looked: the caller shows its result
            if not ended:
                failing = await self._failing(description)
                if await self._stalled(description, failing=failing) or failing:
                    await asyncio.sleep(self.poll)
                    continue
            try:
                status = await ask(self.agents, self.workflow_id, self.agents.status(self.workflow_id))
                self._failure = None
                await self.messages()
                if status.state == 'awaiting_deferred_tools':
                    await self.approvals()
            except TaskFailing as error:  # the run may recover once a worker with fixed code takes it: keep watching
                self._tell_failing(error)
                await asyncio.sleep(self.poll)
                continue
            if ended or status.state in ('completed', 'failed'):
                return status
            await asyncio.sleep(self.poll)


def usage_line(status: RunStatus) -> str:
    """The run's usage in one line."""
    usage = status.usage
    return (
        f'{status.state}: {plural(usage.requests, "model request")}, {plural(usage.tool_calls, "tool call")}, '
        f'{plural(usage.input_tokens, "input token")}, {plural(usage.output_tokens, "output token")}'
    )


async def follow(
    agents: AgentClient, workflow_id: str, *, poll: float, decide: Decide, caller: str | None = None
) -> None:
    """Print a run's progress as it happens, answering approvals as `decide` says, then its usage; with `caller`,
    only the approvals that identity may answer."""
    watcher = Watcher(agents, workflow_id, poll=poll, decide=decide, caller=caller)
    status = await watcher.follow()
    if status is None:
        result = await agents.result(workflow_id)
        watcher.show(watcher.progress.lines(result.new_messages))
        print(f'ended: {plural(result.usage.requests, "model request")}, '
              f'{plural(result.usage.tool_calls, "tool call")}', flush=True)  # fmt: skip
        return
    print(usage_line(status), flush=True)
