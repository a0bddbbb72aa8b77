"""The durable chat backend's side of `POST /api/external-events/{token}`: resolve a run's wait by its token.

The resolution goes as `AgentClient.resolve_token` sends it (`workflows._token_sends`): the `resolve_external_event`
update to the run the token names, which refuses what it cannot take before anything is recorded. The caller's owner
id goes twice: as `owner`, which the run refuses unless it was started by that owner (so a person reaches only the
waits of their own runs, as with conversations), and as `caller`, which `RequestInput` credits in `answered_by`;
an `answered_by` in the results that names anyone else is refused (the run's approval rules check who it names).
When no worker takes the update within the backend's bound, the resolution goes as the `submit_external_event`
signal, which the run's history keeps (503, admitted), as the page's approvals do.
"""

from __future__ import annotations

from typing import Any

from temporalio.client import Client

from agent.ui.web import ExternalEventNotFound, ExternalEventRefused, InvalidResumeToken
from workflows._resume_tokens import InvalidToken, TokenRefused
from workflows._token_sends import NOT_FOUND, resolution, send_resolution, signal_resolution
from workflows._types import NOT_OWNER

from ._worker_gate import WorkerGate

__all__ = ('resolve_by_token',)


async def resolve_by_token(
    client: Client,
    gate: WorkerGate,
    worker_timeout: float,
    token: str,
    owner: str,
    *,
    results: Any = None,
    failure: str | None = None,
) -> None:
    """Resolve (or, with `failure`, fail) the wait `token` names, on behalf of `owner`.

    Raises:
        InvalidResumeToken: The token is malformed.
        ExternalEventNotFound: The token's run does not exist, has ended, or is another owner's.
        ExternalEventRefused: The run refused the resolution (the wait ended, or the answer does not fit it).
        BackendUnavailable: No worker took the resolution in time; it went by signal (`admitted`).
    """
    _check_credit(results, owner)
    try:
        address, sent = resolution(token, results, failure=failure, caller=owner, owner=owner)
        try:
            await send_resolution(client, address, sent, accept_within=worker_timeout)
        except TimeoutError as exc:
            # The signal is in the run's history at once; should the update still reach the run, its validator
            # refuses it as already ended, so the answer applies once.
            await signal_resolution(client, address, sent)
            raise gate.recorded('the answers') from exc
    except InvalidToken as exc:
        raise InvalidResumeToken(str(exc)) from exc
    except TokenRefused as exc:
        if exc.type in (NOT_OWNER, NOT_FOUND):
            raise ExternalEventNotFound('No wait of yours has this token, or its run has ended.') from exc
        raise ExternalEventRefused(str(exc)) from exc


def _check_credit(results: Any, owner: str) -> None:
    """Refuse results whose `answered_by` credits anyone but the signed-in `owner`.

    Raises:
        ExternalEventRefused: naming who the results credit.
    """
    credited = results.get('answered_by') if isinstance(results, dict) else None
    if not isinstance(credited, dict):
        return
    others = sorted({str(who) for who in credited.values() if who != owner})
    if others:
        raise ExternalEventRefused(
            f'The answer credits {", ".join(map(repr, others))} in answered_by; from here it can name only you '
            f'({owner!r}): leave answered_by out.'
        )
