"""`AgentClient.start` hands the run's first workflow task straight to a worker sharing its connection."""

from __future__ import annotations

from typing import Any

import pytest
from temporalio.client import Client, WorkflowHandle

from agent import Agent
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows._data_converter import data_converter
from workflows.client import AgentClient

pytestmark = pytest.mark.asyncio(loop_scope='session')


def _reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart('started')])


AGENTS = {'eager': Agent(FunctionModel(_reply), name='eager')}


def _eagerly_started(handle: WorkflowHandle[Any, Any]) -> bool:
    # The SDK's own record of whether the start's reply carried the first workflow task.
    return bool(getattr(handle, '__temporal_eagerly_started'))


async def test_a_run_started_beside_its_worker_starts_eagerly(client: Client, task_queue: str) -> None:
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await AgentClient(client, task_queue=task_queue).start('eager', 'go')
        assert (await handle.result()).output == 'started'
    assert _eagerly_started(handle)


async def test_a_run_started_on_another_connection_goes_through_the_task_queue(client: Client, task_queue: str) -> None:
    target = client.service_client.config.target_host
    elsewhere = await Client.connect(target, namespace=client.namespace, data_converter=data_converter)
    async with build_worker(client, AGENTS, task_queue=task_queue):
        handle = await AgentClient(elsewhere, task_queue=task_queue).start('eager', 'go')
        assert (await handle.result()).output == 'started'
    assert not _eagerly_started(handle)
