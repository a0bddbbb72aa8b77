"""A durable run's wait for an external event, resolved by token through each door that is not the raw update or
signal: `AgentClient`, the `agents answer` command, and the chat app's `POST /api/external-events/{token}`.

Each door refuses, in one line, a malformed token, one that names another workflow, one resolved already, and one
whose wait timed out (the run is a conversation, which stays open once its turn has ended, so the run itself is
asked and refuses).
"""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx2
import pytest
from starlette.requests import Request
from temporalio.client import Client

from agent import DeferredToolResults
from agent.ui.web import create_chat_app
from doors.chat import DurableChatBackend, TurnEventHub
from tests._docs import blocks, commands
from worker import build_worker
from workflows import AgentRunOutput, AgentWorkflow
from workflows._resume_tokens import decode_token, encode_token
from workflows.client import AgentClient, InvalidToken, TokenRefused

from ._cli_helpers import command
from .waiting_agent import WAIT, Inbox, Recorded, charge_agent, file_agent

pytestmark = pytest.mark.asyncio(loop_scope='session')

APPROVE = {'approvals': {'del-1': True}}
DELETED = "delete_file:success:File 'a.txt' deleted"
MALFORMED = 'ev1.bm90IGpzb24'


@dataclass
class Waits:
    """Runs that wait for a decision, on a worker of the test's task queue."""

    agents: AgentClient
    inbox: Inbox

    async def start(self, agent: str = 'approver', *, conversation: bool = True, **fields: Any) -> tuple[str, str]:
        """Start a run of `agent` (a conversation unless told: it stays open after its turn); its id and token."""
        prompt = 'Charge 5' if agent == 'charger' else 'Delete a.txt'
        handle = await self.agents.start(agent, prompt, conversation=conversation, **fields)
        return handle.id, await self.inbox.token_of(handle.id)

    async def turn_over(self, workflow_id: str) -> str:
        """The output of a conversation's first turn, once it has ended (bounded)."""
        handle = self.agents.client.get_workflow_handle(workflow_id)
        async with asyncio.timeout(WAIT):
            while True:
                if (await handle.query(AgentWorkflow.status)).state == 'awaiting_message':
                    break
                await asyncio.sleep(0.05)
        page = await self.agents.messages(workflow_id)
        return str(page.messages[-1].parts[-1].content)  # pyright: ignore[reportAttributeAccessIssue]

    async def result(self, workflow_id: str) -> AgentRunOutput:
        return await asyncio.wait_for(self.agents.result(workflow_id), WAIT)

    async def answered_by(self, workflow_id: str) -> dict[str, str]:
        """Who the results of the run's (first) wait say answered each call."""
        run_id = (await self.agents.messages(workflow_id)).messages[-1].run_id
        return Recorded.results[(run_id or '', 'del-1')].answered_by


@asynccontextmanager
async def waits(client: Client, task_queue: str) -> AsyncIterator[Waits]:
    inbox = Inbox()
    served = {
        'approver': file_agent('approver', inbox),
        'quick': file_agent('quick', inbox, timeout=timedelta(seconds=1)),
        'charger': charge_agent('charger', inbox),
    }
    async with build_worker(client, served, task_queue=task_queue):
        yield Waits(AgentClient(client, task_queue=task_queue), inbox)


def foreign(token: str) -> str:
    """A well-formed token of a workflow that does not exist."""
    address = decode_token(token)
    return encode_token('no-such-workflow', address.run_id, address.key)


async def test_agent_client_resolves_and_fails_tokens_and_refuses_what_the_run_cannot_take(
    client: Client, task_queue: str
) -> None:
    async with waits(client, task_queue) as runs:
        agents = runs.agents
        kept, kept_token = await runs.start()
        late, late_token = await runs.start('quick')
        charged, charged_token = await runs.start('charger', conversation=False)
        signalled, signalled_token = await runs.start(conversation=False)

        await agents.resolve_token(kept_token, DeferredToolResults(approvals={'del-1': True}), caller='alice')
        assert await runs.turn_over(kept) == DELETED
        assert await runs.answered_by(kept) == {'del-1': 'alice'}
        await agents.fail_token(charged_token, 'The card was declined.')
        await agents.submit_token(signalled_token, APPROVE)
        assert (await runs.result(charged)).output == (
            'charge:failed:No decision on this tool call arrived: The card was declined.'
        )
        assert (await runs.result(signalled)).output == DELETED
        assert 'No resolution arrived within 0:00:01' in await runs.turn_over(late)

        refusals = {
            MALFORMED: 'The resume token is damaged',
            foreign(kept_token): "No run '",
            kept_token: "The run refused the resolution: The wait 'deferred_tool_calls.1' of this run has already "
            "ended: it was resolved by 'alice'.",
            late_token: 'has already ended: it timed out.',
            charged_token: 'has ended, and its wait with it',
        }
        for token, reason in refusals.items():
            with pytest.raises(TokenRefused) as refused:
                await agents.resolve_token(token, APPROVE)
            assert reason in str(refused.value), token
            assert '\n' not in str(refused.value)
        with pytest.raises(InvalidToken, match=r"does not start with 'ev1\.'"):
            await agents.fail_token('tok-123', 'no')


@pytest.mark.slow(27)
async def test_agents_answer_resolves_or_fails_a_token_and_refuses_in_one_line(client: Client, task_queue: str) -> None:
    address = client.service_client.config.target_host

    async def answer(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
        done = await command('answer', *args, address=address, task_queue=task_queue, stdin=stdin)
        return done.code, done.out.strip(), done.err.strip()

    async with waits(client, task_queue) as runs:
        kept, kept_token = await runs.start()
        late, late_token = await runs.start('quick')
        charged, charged_token = await runs.start('charger', conversation=False)

        assert await answer(kept_token, '--json', '-', '--caller', 'bob', stdin=json.dumps(APPROVE)) == (
            0,
            'The wait is resolved.',
            '',
        )
        assert await answer(charged_token, '--fail', 'Not today.') == (0, 'The wait is failed.', '')
        assert await runs.turn_over(kept) == DELETED
        assert await runs.answered_by(kept) == {'del-1': 'bob'}
        assert (await runs.result(charged)).output == 'charge:failed:No decision on this tool call arrived: Not today.'
        assert 'No resolution arrived' in await runs.turn_over(late)

        refusals = {
            MALFORMED: 'The resume token is damaged',
            foreign(kept_token): "No run '",
            kept_token: "has already ended: it was resolved by 'bob'.",
            late_token: 'has already ended: it timed out.',
        }
        for token, reason in refusals.items():
            code, out, err = await answer(token, '--json', json.dumps(APPROVE))
            assert (code, out) == (1, ''), err
            assert err.startswith('python -m doors.cli: '), err
            assert reason in err, err
            assert '\n' not in err, err
        code, _, err = await answer(late_token, '--json', '{not json')
        assert (code, err.startswith('python -m doors.cli: --json is not JSON')) == (1, True), err


def owners(request: Request) -> str:
    """The chat app's auth for this test: the bearer token is the owner's name."""
    return request.headers['authorization'].removeprefix('Bearer ')


async def test_the_chat_apps_route_resolves_a_token_of_the_callers_own_run(client: Client, task_queue: str) -> None:
    backend = DurableChatBackend(
        client, agents=['approver'], task_queue=task_queue, hub=TurnEventHub(), worker_timeout=WAIT
    )
    transport = httpx2.ASGITransport(app=create_chat_app(backend, auth=owners))
    async with (
        waits(client, task_queue) as runs,
        httpx2.AsyncClient(transport=transport, base_url='http://127.0.0.1:8000', timeout=WAIT * 2) as http,
    ):

        async def post(token: str, body: Any, owner: str = 'alice') -> httpx2.Response:
            return await http.post(
                f'/api/external-events/{token}', json=body, headers={'authorization': f'Bearer {owner}'}
            )

        kept, kept_token = await runs.start(owner='alice')
        charged, charged_token = await runs.start('charger', conversation=False, owner='alice')
        late, late_token = await runs.start('quick', owner='alice')

        refused = await post(kept_token, {'results': APPROVE}, owner='bob')
        assert (refused.status_code, refused.json()) == (404, {'detail': refused.json()['detail']})
        assert 'No wait of yours has this token' in refused.json()['detail']
        bad_body = await post(kept_token, {'results': APPROVE, 'fail': 'no'})
        assert bad_body.status_code == 400
        assert 'Send {"results": {...}}' in bad_body.json()['detail']
        bad_payload = await post(kept_token, {'results': {'approvals': {'del-9': True}}})
        assert bad_payload.status_code == 409
        assert "'del-9'" in bad_payload.json()['detail']
        # The signed-in user answers as themselves: results crediting someone else are refused before they go.
        someone_else = await post(kept_token, {'results': {**APPROVE, 'answered_by': {'del-1': 'bob'}}})
        assert someone_else.status_code == 409
        assert "credits 'bob' in answered_by; from here it can name only you ('alice')" in someone_else.json()['detail']

        resolved = await post(kept_token, {'results': APPROVE})
        assert (resolved.status_code, resolved.json()) == (200, {'resolved': True, 'failed': False})
        failed = await post(charged_token, {'fail': 'Over the limit.'})
        assert (failed.status_code, failed.json()) == (200, {'resolved': False, 'failed': True})
        assert await runs.turn_over(kept) == DELETED
        assert await runs.answered_by(kept) == {'del-1': 'alice'}  # the caller's owner id
        # ... whom the run's decision record names as the approver.
        decided = (await client.get_workflow_handle(kept).query(AgentWorkflow.status)).decisions
        assert [(record.tool_call_id, record.decision, record.by) for record in decided] == [
            ('del-1', 'approve', ['alice'])
        ]
        assert (await runs.result(charged)).output.endswith('Over the limit.')
        assert 'No resolution arrived' in await runs.turn_over(late)

        for token, status, reason in (
            (MALFORMED, 400, 'The resume token is damaged'),
            (foreign(kept_token), 404, 'No wait of yours has this token'),
            (kept_token, 409, "has already ended: it was resolved by 'alice'."),
            (late_token, 409, 'has already ended: it timed out.'),
        ):
            response = await post(token, {'results': APPROVE})
            assert response.status_code == status, response.text
            assert reason in response.json()['detail']
        backend.close()


async def test_the_docs_terminal_commands_find_and_answer_a_waiting_runs_token(client: Client, task_queue: str) -> None:
    (block,) = blocks('docs/approvals.md', 'bash', section='RequestInput in durable runs')
    typed = commands(block.source)
    assert [shlex.split(c, comments=True)[:2] for c in typed] == [['agents', 'status'], ['agents', 'answer']]
    address = client.service_client.config.target_host
    async with waits(client, task_queue) as runs:
        workflow_id, token = await runs.start(conversation=False, workflow_id='support-7')
        said: list[str] = []
        for line in typed:
            argv = shlex.split(line.replace('<token>', token).replace('<tool-call-id>', 'del-1'), comments=True)
            done = await command(*argv[1:], address=address, task_queue=task_queue)
            assert (done.code, done.err) == (0, ''), done
            said.append(done.out)
        result = await runs.result(workflow_id)

    assert 'waits for deferred_tool_calls since ' in said[0]
    assert said[0].rstrip().endswith(f': agents answer {token}')
    assert said[1] == 'The wait is resolved.\n'
    assert result.output == DELETED
