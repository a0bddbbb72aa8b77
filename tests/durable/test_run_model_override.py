"""A run's `model` override reaches its activities: tools and MCP servers see the run's model, not the agent's own.

The agent's default model here needs an OpenAI key that the tests do not have; a run naming `"model": "test"`
completes all the same, as it does in-process.
"""

from __future__ import annotations

import json
import uuid

import mcp_types as types
import pytest
from mcp.server.mcpserver import Context
from mcp.server.mcpserver import MCPServer as SDKServer
from temporalio.client import Client

from agent import Agent, RunContext
from tests.mcp._servers import InProcessServer
from worker import build_worker
from workflows import AgentRunOutput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')

DEFAULT_MODEL = 'openai:gpt-4o'
"""The agents' own model: building it without `OPENAI_API_KEY` fails (so the agents defer it)."""


@pytest.fixture(autouse=True)
def _no_openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)


def tool_agent() -> Agent[None, str]:
    agent = Agent(DEFAULT_MODEL, name='overridden', defer_model_check=True)

    @agent.tool
    async def ask_the_run_model(ctx: RunContext[None]) -> str:
        """Asks the run's model a question of its own."""
        answer = await Agent(ctx.model).run('a sub-question')
        return f'{ctx.model.model_name} said {answer.output}'

    return agent


def sampling_agent() -> Agent[None, str]:
    app = SDKServer('sampler')

    @app.tool()
    async def summarize(text: str, ctx: Context) -> str:
        """Asks the client's model for a summary."""
        result = await ctx.session.create_message(
            [types.SamplingMessage(role='user', content=types.TextContent(type='text', text=text))], max_tokens=50
        )
        assert isinstance(result.content, types.TextContent)
        return f'{result.model}: {result.content.text}'

    return Agent(
        DEFAULT_MODEL, name='overridden_sampling', defer_model_check=True, toolsets=[InProcessServer(app, id='sampler')]
    )


async def _run_durably(client: Client, task_queue: str, agent: Agent[None, str]) -> AgentRunOutput:
    assert agent.name is not None
    async with build_worker(client, {agent.name: agent}, task_queue=task_queue):
        return await client.execute_workflow(
            AgentWorkflow.run,
            {'agent': agent.name, 'prompt': 'go', 'model': 'test'},
            id=f'override-{uuid.uuid4()}',
            task_queue=task_queue,
        )


async def test_a_tool_uses_the_model_the_run_names(client: Client, task_queue: str) -> None:
    in_process = await tool_agent().run('go', model='test')
    durable = await _run_durably(client, task_queue, tool_agent())
    # Before, the tool activity built the agent's own model and the run failed with "No API key for OpenAI".
    assert json.loads(durable.output) == {'ask_the_run_model': 'test said success (no tool calls)'}
    assert durable.output == in_process.output


@pytest.mark.filterwarnings('ignore::mcp.MCPDeprecationWarning')  # the server samples through a 2025-era call
async def test_an_mcp_server_lists_its_tools_and_samples_with_the_model_the_run_names(
    client: Client, task_queue: str
) -> None:
    durable = await _run_durably(client, task_queue, sampling_agent())
    summary = json.loads(durable.output)['summarize']
    assert summary.startswith('test: ')
