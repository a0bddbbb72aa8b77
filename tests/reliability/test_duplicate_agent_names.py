"""Two different agents under one name are refused when the worker is built, never silently swapped."""

from __future__ import annotations

import pytest
from temporalio.client import Client

from agent import Agent, UserError
from agent.models.test import TestModel
from worker import build_worker, load_agents
from workflows import get_agent

first = Agent(TestModel(custom_output_text='first'), name='support')
second = Agent(TestModel(custom_output_text='second'), name='support')


def test_two_agent_references_with_one_name_are_refused() -> None:
    with pytest.raises(UserError, match=r"Two agents are named 'support' \(.*:first and .*:second\)"):
        load_agents([f'{__name__}:first', f'{__name__}:second'])


def test_the_same_agent_named_twice_is_fine() -> None:
    assert load_agents([f'{__name__}:first', f'{__name__}:first']) == {'support': first}


@pytest.mark.asyncio(loop_scope='session')
async def test_a_second_agent_under_a_registered_name_is_refused_on_the_same_queue(
    client: Client, task_queue: str
) -> None:
    build_worker(client, {'support': first}, task_queue=task_queue)
    with pytest.raises(UserError, match="Another agent is already registered as 'support'"):
        build_worker(client, {'support': second}, task_queue=task_queue)


@pytest.mark.asyncio(loop_scope='session')
async def test_a_stopped_worker_lets_a_new_agent_take_its_name(client: Client, task_queue: str) -> None:
    # As when a notebook cell that defines the agent and serves it runs again.
    async with build_worker(client, {'support': first}, task_queue=task_queue):
        with pytest.raises(UserError, match='still running in this process'):
            build_worker(client, {'support': second}, task_queue=task_queue)
    async with build_worker(client, {'support': second}, task_queue=task_queue):
        assert get_agent('support', task_queue) is second
