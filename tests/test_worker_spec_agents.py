"""Workers load agents from spec files (`--agents path/to/agent.yaml`): an agent runs durably without Python."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from temporalio.client import Client

from agent import Agent, UserError
from agent.capabilities import ReinjectSystemPrompt, Thinking
from agent.messages import ModelRequest
from worker import build_worker, load_agents
from workflows import AgentRunInput, AgentWorkflow

SPEC = """\
model: test
name: spec_helper
instructions: Answer briefly.
model_settings: {temperature: 0}
capabilities:
  - Thinking: {effort: low}
  - ReinjectSystemPrompt
"""


def test_spec_files_load_next_to_module_references(tmp_path: Path) -> None:
    named = tmp_path / 'helper.yaml'
    named.write_text(SPEC)
    unnamed = tmp_path / 'fallback.json'
    unnamed.write_text('{"model": "test", "capabilities": ["Thinking"]}')
    agents = load_agents([str(named), str(unnamed), 'tests.durable.crash_agent:crash_agent'])
    assert list(agents) == ['spec_helper', 'fallback', 'crash_agent']
    helper, fallback = agents['spec_helper'], agents['fallback']
    assert isinstance(helper, Agent)
    assert isinstance(fallback, Agent)
    assert helper.capabilities == [Thinking(effort='low'), ReinjectSystemPrompt()]
    assert fallback.capabilities == [Thinking()]


def test_missing_or_invalid_spec_files_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"Agent spec file '.*missing\.yaml' does not exist"):
        load_agents([str(tmp_path / 'missing.yaml')])
    bad = tmp_path / 'bad.yml'
    bad.write_text('model: test\ncapabilities:\n  - Hooks\n')
    with pytest.raises(UserError, match=r"Capability 'Hooks' is not in the provided"):
        load_agents([str(bad)])


@pytest.mark.asyncio(loop_scope='session')
async def test_an_agent_defined_by_a_spec_file_runs_durably(client: Client, task_queue: str, tmp_path: Path) -> None:
    path = tmp_path / 'helper.yaml'
    path.write_text(SPEC)
    agents = load_agents([str(path)])
    async with build_worker(client, agents, task_queue=task_queue):
        output = await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent='spec_helper', prompt='hello'),
            id=f'spec-agent-{uuid.uuid4()}',
            task_queue=task_queue,
        )
    assert output.output == 'success (no tool calls)'
    request = output.new_messages[0]
    assert isinstance(request, ModelRequest)
    assert request.instructions == 'Answer briefly.'


def test_a_reference_may_name_a_durable_agent_with_its_options() -> None:
    from workflows import DurableAgent

    agents = load_agents(['tests.durable.crash_agent:crash_agent_local'])
    assert list(agents) == ['crash_agent']  # named by its agent
    durable = agents['crash_agent']
    assert isinstance(durable, DurableAgent)
    assert durable.model_activity.local
    assert durable.tool_activity.local


def test_a_reference_to_something_else_says_what_it_is() -> None:
    with pytest.raises(UserError, match=r'tests.durable.crash_agent:Path is a type, not an Agent or a DurableAgent'):
        load_agents(['tests.durable.crash_agent:Path'])
