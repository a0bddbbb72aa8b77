"""`RequestInput`: asks for the answers to deferred tool calls and continues the same run with them.

It is a `handle_deferred_tool_calls` capability built on `agent.external_events.wait_for_external_event`: `ask`
gets the pending calls and a resume token, and either answers at once or hands the token to whoever will answer;
the run waits until the token is resolved with the JSON form of `DeferredToolResults`. It sits innermost, so every
handler that can answer without waiting (`HandleDeferredToolCalls`, a policy) is asked first.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import KW_ONLY, dataclass
from datetime import timedelta
from functools import partial

import pydantic
import pydantic_core
from pydantic import JsonValue

from agent._deferred import DeferredToolRequests, DeferredToolResults, ToolDenied
from agent._external_events import ExternalEventError, check_timeout, wait_for_external_event
from agent._run_context import RunContext
from agent._threads import call_maybe_async
from agent._tool import AgentDepsT
from agent.exceptions import ToolFailed, UserError

from ._abstract import AbstractCapability
from ._ordering import CapabilityOrdering

__all__ = ('RequestInput',)

_RESULTS = pydantic.TypeAdapter(DeferredToolResults)


@dataclass
class RequestInput(AbstractCapability[AgentDepsT]):
    """Asks for the answers to deferred tool calls (approvals, external results) and continues the run with them.

    `ask` gets the run context, the pending requests and a resume token. It returns `DeferredToolResults` to answer
    at once, or `None` after handing the token to whoever answers; the run then waits until the token is resolved
    with the JSON form of `DeferredToolResults` (`resolve_external_event(token, results)`, from anywhere in the
    process). When the wait times out or the token is failed, the pending approvals are denied and the pending
    external calls fail, with a message to the model saying why, and the run goes on.

    ```python
    async def ask(ctx: RunContext[None], requests: DeferredToolRequests, token: str) -> None:
        await post_to_reviewers(requests, token)  # a reviewer's answer calls resolve_external_event(token, ...)

    agent = Agent('openai:gpt-5.2', capabilities=[RequestInput(ask, timeout=timedelta(hours=1))])
    ```

    In a durable run the workflow records the wait (see `workflows`): `ask` runs once, its answer is kept in the
    run's history, and the token is resolved through the workflow (an update, a signal, `AgentClient.resolve_token`,
    `agents answer`, the chat app's route). A resolution whose payload is not `DeferredToolResults` naming only
    pending calls is refused where it arrives and the wait goes on; one that names who sends it (`caller`) credits
    them in `answered_by` for each call it answers without naming anyone.
    """

    ask: Callable[
        [RunContext[AgentDepsT], DeferredToolRequests, str],
        Awaitable[DeferredToolResults | None] | DeferredToolResults | None,
    ]
    """Answers the pending calls, or hands them and the token to whoever will; called once per wait.

    Sync (run in a worker thread, like a sync tool) or async. Returns the answer, or `None` to wait for the token to
    be resolved. Keep it quick and safe to call again (e.g. keyed on the token): a durable engine may retry it.
    """

    _: KW_ONLY

    timeout: timedelta | None = None
    """How long to wait for the answer (`ask` included), or `None` for no limit.

    When it elapses, every pending approval is denied and every pending external call fails, telling the model so.
    """

    name: str = 'deferred_tool_calls'
    """The wait's name in a durable engine's history (e.g. `'approve_refund'`); keep it stable across deployments."""

    def __post_init__(self) -> None:
        check_timeout(self.timeout)

    def get_ordering(self) -> CapabilityOrdering:
        """Innermost: every handler that can answer without waiting is asked first."""
        return CapabilityOrdering(position='innermost')

    @classmethod
    def get_serialization_name(cls) -> str | None:
        # Takes a function, which an agent spec cannot express.
        return None

    async def handle_deferred_tool_calls(
        self, ctx: RunContext[AgentDepsT], *, requests: DeferredToolRequests
    ) -> DeferredToolResults:
        """Wait for the answers to `requests`; deny or fail them all, telling the model why, if none arrives.

        Raises:
            UserError: the answer is not valid `DeferredToolResults`, or names calls that are not pending; or the
                wait is refused (see `wait_for_external_event`).
        """
        try:
            payload = await wait_for_external_event(
                self.name,
                ask=partial(self._ask, ctx, requests),
                timeout=self.timeout,
                validate=partial(_answer, requests),
                credit=partial(_credit, requests),
            )
        except ExternalEventError as error:
            message = f'No decision on this tool call arrived: {error}'
            return requests.build_results(
                approvals={call.tool_call_id: ToolDenied(message) for call in requests.approvals},
                calls={call.tool_call_id: ToolFailed(message) for call in requests.calls},
            )
        try:
            return _answer(requests, payload)
        except ValueError as error:  # pydantic's ValidationError is one too
            raise UserError(f'The answer sent for the pending deferred tool calls is not valid: {error}') from error

    async def _ask(self, ctx: RunContext[AgentDepsT], requests: DeferredToolRequests, token: str) -> JsonValue:
        """Call `ask`; an answer becomes the JSON a resolver would send, so both reach the run the same way."""
        answer = await call_maybe_async(self.ask, ctx, requests, token)
        if inspect.isawaitable(answer):
            answer = await answer
        if isinstance(answer, DeferredToolResults):
            return _RESULTS.dump_python(answer, mode='json')
        return answer  # `None`, or something that is not an answer: validating it says what is wrong


def _answer(requests: DeferredToolRequests, payload: JsonValue) -> DeferredToolResults:
    """`payload` as the results of `requests`; also the wait's `validate`, so a resolver hears of a bad one at once.

    Raises:
        ValueError: `payload` is not the JSON form of `DeferredToolResults`, or names calls that are not pending
            (e.g. an answer meant for an earlier wait).
    """
    try:
        # Through JSON, so an answer reads the same whether `ask` gave it or a resolver sent it.
        answer = _RESULTS.validate_json(pydantic_core.to_json(payload))
    except pydantic.ValidationError as error:
        problems = '; '.join(
            f'{".".join(str(part) for part in e["loc"]) or "the payload"}: {e["msg"]}'
            for e in error.errors(include_url=False)[:3]
        )
        raise ValueError(f'it is not the JSON form of DeferredToolResults ({problems})') from None
    return requests.build_results(answer.approvals, answer.calls, answer.metadata, answered_by=answer.answered_by)


def _credit(requests: DeferredToolRequests, payload: JsonValue, caller: str) -> JsonValue:
    """`payload` (already checked) with `caller` in `answered_by` for each call it answers without naming anyone."""
    if not isinstance(payload, dict):
        return payload
    named = payload.get('answered_by')
    answered_by: dict[str, JsonValue] = dict(named) if isinstance(named, dict) else {}
    for field in ('approvals', 'calls'):
        entries = payload.get(field)
        for call_id in entries if isinstance(entries, dict) else ():
            answered_by.setdefault(call_id, caller)
    return {**payload, 'answered_by': answered_by} if answered_by else payload
