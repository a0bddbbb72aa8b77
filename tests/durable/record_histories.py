"""Record the histories replayed by `test_replay.py`: `python -m tests.durable.record_histories`.

Only histories not yet committed are written (delete one to re-record it). Re-record only when a workflow
change is meant to be incompatible (and version it): the point of the committed histories is that CI fails
when a change would break runs already in flight.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from temporalio.contrib.pydantic import pydantic_data_converter

from agent import DeferredToolResults, ToolDenied
from worker import build_worker, start_dev_server
from workflows import AgentRunInput, AgentWorkflow, conversation_workflow_id
from workflows._types import ExternalEventResolution
from workflows.client import AgentClient

from ._replay_agents import REPLAY_AGENTS
from .test_agent_workflow import wait_for_status

HISTORIES = Path(__file__).parent / 'histories'


async def record() -> None:
    env = await start_dev_server(converter=pydantic_data_converter)
    try:
        client = env.client
        task_queue = 'replay-queue'
        async with build_worker(client, REPLAY_AGENTS, task_queue=task_queue):
            tools = await client.start_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='lookup_agent', prompt='What is my balance?', deps={'owner': 'ada'}),
                id='replay-tools',
                task_queue=task_queue,
            )
            await tools.result()
            approval = await client.start_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='approval_agent', prompt='clean up'),
                id='replay-approval',
                task_queue=task_queue,
            )
            await wait_for_status(approval, 'awaiting_deferred_tools')
            await approval.execute_update(
                AgentWorkflow.resolve_deferred_tools, DeferredToolResults(approvals={'del-b': ToolDenied('keep b')})
            )
            await approval.signal(
                AgentWorkflow.submit_deferred_tool_results, DeferredToolResults(approvals={'del-a': True})
            )
            await approval.result()
            mcp = await client.start_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='mcp_replay', prompt='go'),
                id='replay-mcp',
                task_queue=task_queue,
            )
            await mcp.result()
            # A conversation of three turns, two per workflow run: the first run ends by continuing as new.
            agents = AgentClient(client, task_queue=task_queue)
            for prompt in ('one', 'two', 'three'):
                await agents.send_message('chat_agent', conversation_id='replay', prompt=prompt, max_turns_per_run=2)
            conversation = client.get_workflow_handle(conversation_workflow_id('chat_agent', 'replay'))
            first_run_id = (await conversation.describe()).raw_description.workflow_execution_info.first_run_id
            await agents.close_conversation('chat_agent', 'replay')
            first_run = client.get_workflow_handle(conversation.id, run_id=first_run_id)
            # A RequestInput wait: a signal it refuses (recorded under rejected), then the update that resolves it.
            waiting = await client.start_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='request_input_agent', prompt='Delete a.txt'),
                id='replay-request-input',
                task_queue=task_queue,
            )
            while True:
                events = (await waiting.query(AgentWorkflow.status)).external_events
                if events:
                    break
                await asyncio.sleep(0.05)
            token = events[0].token
            await waiting.signal('submit_external_event', ExternalEventResolution(token, {'approvals': {'x': True}}))
            resolution = ExternalEventResolution(token, {'approvals': {'del-1': True}}, caller='alice')
            await waiting.execute_update('resolve_external_event', resolution)
            await waiting.result()
            # A conversation handed off to billing_replay in its first workflow run, which continues as new after the
            # hand-off's turn; billing_replay answers the next run's turn.
            for prompt, to in (('one', None), ('two', 'billing_replay'), ('three', None)):
                await agents.send_message(
                    'chat_agent', conversation_id='replay-hand-off', prompt=prompt, hand_off_to=to, max_turns_per_run=2
                )
            handed = client.get_workflow_handle(conversation_workflow_id('chat_agent', 'replay-hand-off'))
            handed_first = (await handed.describe()).raw_description.workflow_execution_info.first_run_id
            await agents.close_conversation('chat_agent', 'replay-hand-off')
            await handed.result()
            histories = {'replay-tools': tools, 'replay-approval': approval, 'replay-mcp': mcp}
            histories['replay-hand-off'] = client.get_workflow_handle(handed.id, run_id=handed_first)
            histories['replay-hand-off-next'] = handed
            histories['replay-request-input'] = waiting
            histories['replay-continue-as-new'] = first_run
            for stem, handle in histories.items():
                path = HISTORIES / f'{stem}.json'
                if path.exists():
                    continue  # committed histories stay as recorded: they stand for runs already in flight
                path.write_text((await handle.fetch_history()).to_json())
                print(f'recorded {path}')
    finally:
        await env.shutdown()


if __name__ == '__main__':
    asyncio.run(record())
