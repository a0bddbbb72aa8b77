"""Capability hooks split between the workflow and the activity, and can be moved explicitly."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from temporalio import workflow
from temporalio.client import Client, WorkflowFailureError

from agent import Agent, ModelRequestContext, RunContext, ToolDefinition, UserError
from agent.capabilities import AbstractCapability, AgentNode, CombinedCapability, HookSide, split_by_side
from agent.messages import ModelResponse, ToolCallPart
from worker import build_worker
from workflows import AgentRunInput, AgentWorkflow

from .test_agent_workflow import scripted

pytestmark = pytest.mark.asyncio(loop_scope='session')

where: list[tuple[str, bool]] = []


@dataclass
class WhereAmI(AbstractCapability[Any]):
    """Records on which side each hook ran."""

    hook_sides: ClassVar[dict[str, HookSide]] = {'before_model_request': 'workflow'}

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        where.append(('before_model_request', workflow.in_workflow()))
        return request_context

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        where.append(('after_model_request', workflow.in_workflow()))
        return response

    async def before_tool_execute(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: dict[str, Any]
    ) -> dict[str, Any]:
        where.append(('before_tool_execute', workflow.in_workflow()))
        return args

    async def prepare_tools(self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        where.append(('prepare_tools', workflow.in_workflow()))
        return tool_defs


@dataclass
class WritesAFileInTheWorkflow(AbstractCapability[Any]):
    path: str

    async def before_node_run(self, ctx: RunContext[Any], *, node: AgentNode[Any]) -> AgentNode[Any]:
        with open(self.path, 'w') as f:  # noqa: ASYNC230 - the point of the test: I/O where it is not allowed
            f.write('x')
        return node


def sided_agent() -> Agent[None, str]:
    agent = Agent(scripted(ToolCallPart('ping', {}, 'p-1')), name='sided_agent', capabilities=[WhereAmI()])

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    return agent


async def test_io_hooks_run_in_the_activity_unless_moved(client: Client, task_queue: str) -> None:
    where.clear()
    async with build_worker(client, {'sided_agent': sided_agent()}, task_queue=task_queue):
        await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='sided_agent', prompt='go'),
            id=f'sides-{uuid.uuid4()}',
            task_queue=task_queue,
        )
    assert sorted(set(where)) == [
        ('after_model_request', False),
        ('before_model_request', True),
        ('before_tool_execute', False),
        ('prepare_tools', True),
    ]


async def test_io_in_a_workflow_side_hook_fails_the_run_with_a_clear_error(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    agent = Agent('test', name='io_agent', capabilities=[WritesAFileInTheWorkflow(str(tmp_path / 'x'))])
    async with build_worker(client, {'io_agent': agent}, task_queue=task_queue):
        with pytest.raises(WorkflowFailureError) as info:
            await client.execute_workflow(
                AgentWorkflow.run,
                AgentRunInput(agent='io_agent', prompt='go'),
                id=f'io-{uuid.uuid4()}',
                task_queue=task_queue,
            )
    assert 'Workflow-side code tried to do I/O' in str(info.value.cause)
    assert not (tmp_path / 'x').exists()


async def test_only_io_hooks_can_move_and_mistakes_fail_at_registration(client: Client, task_queue: str) -> None:
    @dataclass
    class MovesANodeHook(AbstractCapability[Any]):
        hook_sides: ClassVar[dict[str, HookSide]] = {'before_node_run': 'activity'}

    with pytest.raises(UserError, match="moves 'before_node_run', but only the model-request and tool-execute hooks"):
        build_worker(client, {'bad_agent': Agent('test', capabilities=[MovesANodeHook()])}, task_queue=task_queue)


async def test_split_by_side_keeps_order_and_only_the_io_hooks() -> None:
    workflow_side, activity_side = split_by_side(CombinedCapability([WhereAmI(), WhereAmI()]))
    assert workflow_side.hook_names() == {'before_model_request'}
    assert activity_side.hook_names() == {'after_model_request', 'before_tool_execute'}
