"""Runs of one agent started from another's tool, handed elsewhere than this process.

In process, a tool that calls `other_agent.run(...)` runs the other agent right there (Pydantic AI's agent
delegation). A durable run's tool activity installs a `RunRedirect` for the tool's duration instead: the run of an
agent the worker serves becomes a child run of the workflow (see `activities._delegation`). `Agent.run` (and `iter`,
`run_stream`, `run_stream_events`) asks `redirected` first and runs in process only when it answers `None`; the other
entry points wrap the result they get (see `agent._finished_run`). A redirect that stops the tool while the run goes
on elsewhere raises a `RunHandedOff`: control flow, which the tool's span does not count as a failure.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._content import UserContent
    from .run import AgentRunResult

__all__ = ('RunHandedOff', 'RunRedirect', 'redirected', 'runs_redirected')

RunRedirect = Callable[
    [Any, 'str | Sequence[UserContent] | None', dict[str, Any]], Awaitable['AgentRunResult[Any] | None']
]
"""Given the agent, the user prompt and the run's keyword arguments, the run's result from elsewhere, or `None` to
run it in process."""


class RunHandedOff(BaseException):
    """Stops a tool whose agent run goes on elsewhere; the tool runs again once it has ended.

    A `BaseException`, so a tool's `except Exception` around its `run(...)` call lets it through. Not a failure: the
    tool call's span ends without an error.
    """


_redirect: ContextVar[RunRedirect | None] = ContextVar('agent_run_redirect', default=None)


@contextmanager
def runs_redirected(redirect: RunRedirect) -> Generator[None]:
    """Hand the agent runs started in this block (and the tasks and threads it starts) to `redirect`."""
    token = _redirect.set(redirect)
    try:
        yield
    finally:
        _redirect.reset(token)


async def redirected(
    agent: Any, user_prompt: str | Sequence[UserContent] | None, kwargs: dict[str, Any]
) -> AgentRunResult[Any] | None:
    """The result of the run from where a `runs_redirected` block sends it, or `None` to run it here."""
    redirect = _redirect.get()
    if redirect is None:
        return None
    return await redirect(agent, user_prompt, kwargs)
