"""Model requests too large for one Temporal payload fail their turn, never the workflow task.

A model request names what the worker already has, so its input is normally a few kilobytes whatever the
conversation's size. Two kinds still carry a lot: one whose new messages are themselves large (a prompt of
megabytes), and the fallback that sends a whole conversation in full to a worker that could neither find it in
its store nor rebuild it from the run's history. Temporal refuses a payload over ~2 MB by failing the workflow
task, which it then retries for ever; checked here first, such a request fails the agent run (a conversation's
turn) with what was too large and what to do, and a conversation goes on from its earlier turns.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ApplicationError

from activities._types import ModelRequestInput

__all__ = ('MAX_REQUEST_PAYLOAD', 'REQUEST_TOO_LARGE', 'check_request_fits')

MAX_REQUEST_PAYLOAD = 1_500_000
"""Bytes a model-request activity's input may take as stored (compressed when that helps): Temporal's limit is
2 MB, and the same workflow task may carry other payloads."""

REQUEST_TOO_LARGE = 'ModelRequestTooLarge'
"""The `ApplicationError` type of a model request that would not fit in a Temporal payload."""

_MB = 1024 * 1024


def check_request_fits(inp: ModelRequestInput, message_bytes: int, step: int) -> None:
    """Raise if `inp`, whose messages take `message_bytes` of JSON, would pass `MAX_REQUEST_PAYLOAD` as stored.

    Raises:
        ApplicationError: non-retryable, of type `REQUEST_TOO_LARGE`.
    """
    if message_bytes <= MAX_REQUEST_PAYLOAD // 2:
        return  # the usual case, decided without encoding anything
    # Encoded as it will be sent (the activity payload converter deflates large inputs).
    [payload] = workflow.payload_converter().to_payloads([inp])
    size = len(payload.data)
    if size <= MAX_REQUEST_PAYLOAD:
        return
    raise ApplicationError(
        f'The model request of step {step} would carry {size / _MB:.1f} MB ({message_bytes / _MB:.1f} MB of '
        f'messages sent in full), more than the {MAX_REQUEST_PAYLOAD / _MB:.1f} MB one Temporal payload may take. '
        'This run stops here (a conversation keeps its earlier turns and takes the next message): send less at '
        'once, or keep tool results smaller (DurableAgent(max_tool_result_bytes=...)).',
        type=REQUEST_TOO_LARGE,
        non_retryable=True,
    )
