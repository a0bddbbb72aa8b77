"""Agents whose durable runs wait for a person through `RequestInput`, for the tests of durable waits.

`waiting_agent` is served by worker subprocesses too (the crash test): its `ask` appends each token it is handed to
the file named by `ASK_LOG`, so a test counts the calls across worker processes and replays.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from agent import Agent, CallDeferred, DeferredToolRequests, DeferredToolResults, RunContext
from agent.capabilities import RequestInput
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from agent.models.function import AgentInfo, FunctionModel
from workflows._resume_tokens import decode_token

WAIT = 10.0
"""The bound on every wait for a condition in these tests."""


def calls_then_reports(*calls: ToolCallPart) -> FunctionModel:
    """Calls the tools once, then answers with each result it got back: `name:outcome:content`."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        returns = [p for p in last.parts if isinstance(p, ToolReturnPart)]
        if not returns:
            return ModelResponse(parts=list(calls))
        return ModelResponse(parts=[TextPart('; '.join(f'{p.tool_name}:{p.outcome}:{p.content}' for p in returns))])

    return FunctionModel(respond)


class Inbox:
    """An `ask` that posts the pending calls and their token (here, to a list) and answers nothing."""

    def __init__(self) -> None:
        self.posted: list[tuple[DeferredToolRequests, str]] = []
        self._posted = threading.Event()

    def __call__(self, ctx: RunContext[Any], requests: DeferredToolRequests, token: str) -> None:
        self.posted.append((requests, token))
        self._posted.set()

    async def token(self) -> str:
        """The token of the first wait, once `ask` has it."""
        assert await asyncio.to_thread(self._posted.wait, WAIT), 'ask was never called'
        return self.posted[0][1]

    async def token_of(self, workflow_id: str) -> str:
        """The token of the first wait of workflow `workflow_id`, once `ask` has it (bounded)."""
        async with asyncio.timeout(WAIT):
            while True:
                tokens = [t for _, t in self.posted if decode_token(t).workflow_id == workflow_id]
                if tokens:
                    return tokens[0]
                await asyncio.sleep(0.05)


class Recorded(RequestInput[Any]):
    """`RequestInput` that also keeps the results each wait ended with (by the pending calls' ids), to check
    `answered_by`; a replay records the same results again."""

    results: dict[tuple[str, ...], DeferredToolResults] = {}  # noqa: RUF012 - one record for the test process

    async def handle_deferred_tool_calls(
        self, ctx: RunContext[Any], *, requests: DeferredToolRequests
    ) -> DeferredToolResults:
        results = await super().handle_deferred_tool_calls(ctx, requests=requests)
        Recorded.results[(ctx.run_id or '', *requests.tool_call_ids)] = results
        return results


def file_agent(agent_name: str, ask: Any, *, timeout: timedelta | None = None, **options: Any) -> Agent[None, str]:
    """An agent whose model deletes a file (the call needs approval) and asks `ask` for the decision; `options` are
    more `RequestInput` arguments."""
    agent = Agent(
        calls_then_reports(ToolCallPart('delete_file', {'path': 'a.txt'}, 'del-1')),
        name=agent_name,
        capabilities=[Recorded(ask, timeout=timeout, **options)],
    )

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        return f'File {path!r} deleted'

    return agent


def charge_agent(name: str, ask: Any, *, timeout: timedelta | None = None) -> Agent[None, str]:
    """An agent whose model charges a card: an external call, whose result comes by the token."""
    agent = Agent(
        calls_then_reports(ToolCallPart('charge', {'amount': 5}, 'charge-1')),
        name=name,
        capabilities=[RequestInput(ask, timeout=timeout)],
    )

    @agent.tool_plain
    def charge(amount: int) -> str:
        raise CallDeferred()

    return agent


def log_token(ctx: RunContext[None], requests: DeferredToolRequests, token: str) -> None:
    """Append the token to the file `ASK_LOG` names (the crash test's `ask`), then take `ASK_SECONDS` to return."""
    with Path(os.environ['ASK_LOG']).open('a') as log:
        log.write(token + '\n')
    time.sleep(float(os.environ.get('ASK_SECONDS', '0')))


waiting_agent = file_agent('waiting_agent', log_token)
"""Served by a worker subprocess: every call of its `ask` leaves a line in `ASK_LOG`."""
