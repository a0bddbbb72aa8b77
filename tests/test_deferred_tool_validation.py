"""Calls to tools that need approval or run externally are validated before they are deferred."""

from __future__ import annotations

from agent import Agent, DeferredToolRequests
from agent.messages import RetryPromptPart, ToolCallPart
from agent.tools import ToolDefinition
from agent.toolsets import ExternalToolset

from ._agent_helpers import call, parts_of, scripted


async def test_approval_tool_called_with_invalid_arguments_is_retried_before_anyone_is_asked():
    agent = Agent(
        scripted(call('delete', {'path': 3, 'extra': True}, 'bad'), call('delete', {'path': 'a'}, 'good')),
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool_plain(requires_approval=True)
    def delete(path: str) -> str:
        return f'deleted {path}'  # pragma: no cover

    result = await agent.run('clean up')

    assert isinstance(result.output, DeferredToolRequests)
    assert [c.tool_call_id for c in result.output.approvals] == ['good']
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert (retry.tool_name, retry.tool_call_id) == ('delete', 'bad')


async def test_external_tool_called_with_invalid_arguments_is_retried_before_it_is_handed_out():
    external = ExternalToolset(
        [
            ToolDefinition(
                name='lookup',
                parameters_json_schema={
                    'type': 'object',
                    'properties': {'key': {'type': 'string'}},
                    'required': ['key'],
                },
            )
        ]
    )
    agent = Agent(
        scripted(call('lookup', '{"key": ', 'cut'), call('lookup', {'key': 'k'}, 'ok')),
        output_type=[str, DeferredToolRequests],
        toolsets=[external],
    )

    result = await agent.run('look it up')

    assert isinstance(result.output, DeferredToolRequests)
    assert [c.tool_call_id for c in result.output.calls] == ['ok']
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert retry.tool_call_id == 'cut'


async def test_approval_call_event_is_sent_once_with_valid_arguments():
    from agent import FunctionToolCallEvent

    agent = Agent(scripted(call('delete', {'path': 'a'}, 'c1')), output_type=[str, DeferredToolRequests])

    @agent.tool_plain(requires_approval=True)
    def delete(path: str) -> str:
        return f'deleted {path}'  # pragma: no cover

    async with agent.run_stream_events('clean up') as stream:
        events = [e async for e in stream]

    [announced] = [e for e in events if isinstance(e, FunctionToolCallEvent)]
    assert isinstance(announced.part, ToolCallPart)
    assert announced.args_valid is True
