"""A failure too large for Temporal is cut to fit, so the run's failure still says what went wrong.

Without the cut, Temporal replaces a failure over its size limit with its own "Failure exceeds size limit", and the
message of the exception (the one thing a person needs) is gone.
"""

from __future__ import annotations

import pytest
from temporalio.client import Client

from agent import Agent, UserError
from agent.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel

from ._failure_history import failed_run, failure_messages, history_bytes, workflow_task_failures

pytestmark = pytest.mark.asyncio(loop_scope='session')

START = 'The report could not be built: '
HUGE = START + 'x' * 3_000_000
"""A 3 MB message, beyond Temporal's 2 MB limit for one failure."""
LIMIT_TEXT = b'exceeds size limit'


def calls_the_tool(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart('build_report', {}, 'r-1')])
    return ModelResponse(parts=[TextPart('unreachable')])


def assert_cut_to_fit(messages: list[str]) -> None:
    """The messages hold the start of the huge one, marked as cut, and are far below Temporal's limit."""
    assert any(m.startswith(START) or m.startswith(f'ValueError: {START}') for m in messages), messages[:2]
    assert any('[cut:' in m for m in messages)
    assert sum(len(m) for m in messages) < 200_000


async def test_a_tool_error_with_a_huge_message_fails_the_run_with_its_start(client: Client, task_queue: str) -> None:
    agent = Agent(FunctionModel(calls_the_tool), name='size_agent')

    @agent.tool_plain
    def build_report() -> str:
        raise ValueError(HUGE)

    error, history = await failed_run(client, task_queue, agent, 'size_agent')
    messages = failure_messages(error)
    assert messages[1].startswith(f'ValueError: {START}')
    assert_cut_to_fit(messages)
    assert LIMIT_TEXT not in history_bytes(history)


async def test_a_tool_error_chained_from_a_huge_one_keeps_its_own_message(client: Client, task_queue: str) -> None:
    agent = Agent(FunctionModel(calls_the_tool), name='size_agent')

    @agent.tool_plain
    def build_report() -> str:
        try:
            raise ValueError(HUGE)
        except ValueError as exc:
            raise RuntimeError('The report tool gave up') from exc

    error, history = await failed_run(client, task_queue, agent, 'size_agent')
    messages = failure_messages(error)
    assert messages[1] == 'RuntimeError: The report tool gave up'
    assert_cut_to_fit(messages)
    assert LIMIT_TEXT not in history_bytes(history)


async def test_a_huge_error_raised_in_the_workflow_fails_the_run_with_its_start(
    client: Client, task_queue: str
) -> None:
    agent = Agent(FunctionModel(calls_the_tool), name='size_agent')

    @agent.instructions
    def instructions() -> str:  # instructions run in the workflow
        raise UserError(HUGE)

    error, history = await failed_run(client, task_queue, agent, 'size_agent')
    messages = failure_messages(error)
    assert messages[1].startswith(f'UserError: {START}')
    assert_cut_to_fit(messages)
    assert LIMIT_TEXT not in history_bytes(history)
    assert workflow_task_failures(history) == 0
