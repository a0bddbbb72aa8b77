"""Sending a resolution to the durable wait a resume token names, from any client process (`AgentClient`).

The token names the workflow run (`workflows._resume_tokens`), so the resolution goes to that very run: as the
`resolve_external_event` update, whose validator refuses what the run cannot take before anything is recorded, or
as the `submit_external_event` signal, which needs no worker and which the run lists under `rejected` when it
cannot take it. Whatever the run or the server refuses becomes one `TokenRefused` with a one-line message.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pydantic
from temporalio.client import (
    Client,
    WorkflowHandle,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
    WorkflowUpdateStage,
)
from temporalio.exceptions import ApplicationError, FailureError
from temporalio.service import RPCError, RPCStatusCode

from agent._deferred import DeferredToolResults
from agent._external_events import to_json

from ._resume_tokens import ResumeToken, TokenRefused, decode_token
from ._types import WAIT_NOT_REACHED, ExternalEventResolution

__all__ = ('NOT_FOUND', 'resolution', 'send_resolution', 'signal_resolution')

NOT_FOUND = 'NotFound'
"""`TokenRefused.type` when the run the token names does not exist or has ended."""

NOT_REACHED_WITHIN = 10.0
"""Seconds a resolution the run refuses as not reached yet is sent again for (a worker replaying a run after a crash
takes a moment)."""

_RESULTS = pydantic.TypeAdapter(DeferredToolResults)


def resolution(
    token: str,
    results: Any = None,
    *,
    failure: str | None = None,
    caller: str | None = None,
    owner: str | None = None,
) -> tuple[ResumeToken, ExternalEventResolution]:
    """What `token` names, and the resolution to send it (`results` as JSON: `DeferredToolResults` in its wire form).

    Raises:
        InvalidToken: `token` is malformed.
        UserError: `results` has no JSON form.
    """
    address = decode_token(token)
    payload = _RESULTS.dump_python(results, mode='json') if isinstance(results, DeferredToolResults) else results
    return address, ExternalEventResolution(
        token.strip(), payload=to_json(payload), failure=failure, caller=caller, owner=owner
    )


async def send_resolution(
    client: Client, address: ResumeToken, sent: ExternalEventResolution, *, accept_within: float | None = None
) -> None:
    """Send `sent` as the `resolve_external_event` update to the run `address` names.

    A run refuses a resolution for a wait it has not reached yet while a worker catches up on it after a crash
    (`WAIT_NOT_REACHED`, see `workflows._event_waits`): it is sent again after a short back-off, for up to
    `NOT_REACHED_WITHIN` seconds.

    Raises:
        TokenRefused: the run refused it (the validator's reason), or the run does not exist or has ended.
        TimeoutError: no worker accepted it within `accept_within` seconds (the server may still hold it, in memory
            only; `signal_resolution` sends it durably).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + NOT_REACHED_WITHIN
    delay = 0.05
    while True:
        try:
            return await _send_once(client, address, sent, accept_within)
        except TokenRefused as exc:
            if exc.type != WAIT_NOT_REACHED or loop.time() + delay > deadline:
                raise
        await asyncio.sleep(delay)
        delay = min(delay * 2, 1.0)


async def _send_once(
    client: Client, address: ResumeToken, sent: ExternalEventResolution, accept_within: float | None
) -> None:
    handle = _handle(client, address)
    try:
        if accept_within is None:
            await handle.execute_update('resolve_external_event', sent)
            return
        # As `AgentClient.approve`: wait for acceptance only, for `accept_within` at most (the handler never blocks).
        accepting = asyncio.ensure_future(
            handle.start_update('resolve_external_event', sent, wait_for_stage=WorkflowUpdateStage.ACCEPTED)
        )
        await asyncio.wait({accepting}, timeout=accept_within)
        if not accepting.done():
            accepting.cancel()
            with contextlib.suppress(asyncio.CancelledError, WorkflowUpdateRPCTimeoutOrCancelledError):
                await accepting
            raise TimeoutError(
                f'No worker accepted the resolution for run {address.run_id!r} of workflow {address.workflow_id!r} '
                f'within {accept_within:g} s.'
            )
        await accepting.result().result()
    except WorkflowUpdateFailedError as exc:
        cause = exc.cause
        kind = cause.type if isinstance(cause, ApplicationError) else None
        raise TokenRefused(f'The run refused the resolution: {_first_line(exc)}', type=kind) from exc
    except RPCError as exc:
        raise _refused_by_server(exc, address) from exc


async def signal_resolution(client: Client, address: ResumeToken, sent: ExternalEventResolution) -> None:
    """Send `sent` as the `submit_external_event` signal: recorded in the run's history whether or not a worker is
    up; what the run cannot take is listed in its `status().rejected`.

    Raises:
        TokenRefused: the run does not exist or has ended.
    """
    try:
        await _handle(client, address).signal('submit_external_event', sent)
    except RPCError as exc:
        raise _refused_by_server(exc, address) from exc


def _handle(client: Client, address: ResumeToken) -> WorkflowHandle[Any, Any]:
    # The run the token names, not the workflow's latest: a token outlives neither its run nor its wait.
    return client.get_workflow_handle(address.workflow_id, run_id=address.run_id)


def _refused_by_server(exc: RPCError, address: ResumeToken) -> Exception:
    """A server's refusal as `TokenRefused` where it is the token's fault, else `exc` itself."""
    if exc.status != RPCStatusCode.NOT_FOUND:
        return exc
    where = f'run {address.run_id!r} of workflow {address.workflow_id!r}'
    if 'completed' in exc.message:
        return TokenRefused(
            f'The {where} has ended, and its wait with it: nothing waits for this token.', type=NOT_FOUND
        )
    return TokenRefused(
        f'No {where} is in this namespace: the token is from another namespace or server.', type=NOT_FOUND
    )


def _first_line(exc: WorkflowUpdateFailedError) -> str:
    cause: BaseException | None = exc.cause
    while isinstance(cause, FailureError) and cause.__cause__ is not None:
        cause = cause.__cause__
    text = cause.message if isinstance(cause, FailureError) else str(cause)
    return text.strip().splitlines()[0] if text.strip() else type(cause).__name__
