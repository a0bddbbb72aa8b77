"""How the tool calls of one model response fan out: at most so many at once, and at most so many in all.

A model may answer with hundreds of tool calls. In-process that is hundreds of coroutines, which cost little; a run
bound elsewhere (a durable workflow, where each call is an activity) may bound both numbers through its ports
(`RunPorts.tool_calls_at_once`, `RunPorts.tool_calls_to_run`):

- At once: the first calls start together, and each one that ends starts the next waiting call, in call order. Which
  call starts next depends only on the order in which the running ones end, so a workflow's event loop, which
  replays completions in their recorded order, starts them in the same order on replay.
- In all: the calls past the cap are not run; each is answered with a retry prompt that says how many calls the
  response asked for and how many run, so the model asks again with fewer. The prompt is not counted against the
  tool's retries: the call was not wrong, only one too many.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from ._parts import RetryPromptPart, ToolCallPart

__all__ = ('past_cap', 'run_in_lanes')

T = TypeVar('T')


async def run_in_lanes(items: Sequence[T], lanes: int, handle: Callable[[T], Awaitable[None]]) -> None:
    """Call `handle` on every item, at most `lanes` at a time, starting them in the order given.

    With as many lanes as items this is `gather` over all of them: each lane takes one item. If one call raises (or
    the caller is cancelled), the calls still running are cancelled and those still waiting never start.
    """
    waiting = deque(items)

    async def lane() -> None:
        while waiting:
            await handle(waiting.popleft())

    tasks = [asyncio.ensure_future(lane()) for _ in range(min(max(lanes, 1), len(waiting)))]
    try:
        await asyncio.gather(*tasks)
    except GeneratorExit:
        raise  # the coroutine is being closed (a durable run dropped from a worker's cache): it cannot await
    except BaseException:
        # gather() rather than wait(): a workflow must not iterate over sets.
        waiting.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def past_cap(calls: Sequence[ToolCallPart], allowed: int) -> dict[str, RetryPromptPart]:
    """The retry prompts answering the calls after the first `allowed` of `calls` (in call order), by call id."""
    asked = len(calls)
    return {
        call.tool_call_id: RetryPromptPart(
            f'Not run: this response asked for {asked} tool calls, and at most {allowed} run per response; this was '
            f'call {position} of {asked}. Ask for it again in a later response, with at most {allowed} tool calls '
            'in each response.',
            tool_name=call.tool_name,
            tool_call_id=call.tool_call_id,
        )
        for position, call in enumerate(calls[allowed:], start=allowed + 1)
    }
