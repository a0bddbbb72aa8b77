"""`SetToolMetadata`, `PrepareOutputTools` and `ProcessHistory` in real runs."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pydantic

from agent import Agent, RunContext, ToolDefinition
from agent.capabilities import HistoryProcessor, Hooks, PrepareOutputTools, ProcessHistory, SetToolMetadata
from agent.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel
from agent.output import ToolOutput


class Answer(pydantic.BaseModel):
    value: int


async def test_set_tool_metadata_merges_metadata_onto_the_selected_tools_only():
    seen: dict[str, Any] = {}

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.update({t.name: t.metadata for t in info.function_tools})
        return ModelResponse(parts=[TextPart('ok')])

    agent = Agent(FunctionModel(respond), capabilities=[SetToolMetadata(tools=['drop'], dangerous=True)])

    @agent.tool_plain(metadata={'owner': 'db'})
    def drop(table: str) -> str:
        return table

    @agent.tool_plain
    def read(table: str) -> str:
        return table

    await agent.run('go')

    assert seen == {'drop': {'owner': 'db', 'dangerous': True}, 'read': None}
    assert SetToolMetadata.get_serialization_name() == 'SetToolMetadata'
    assert SetToolMetadata.from_spec(code_mode=True).metadata == {'code_mode': True}


async def test_prepare_output_tools_sees_only_output_tools_and_can_hide_them_on_a_step():
    offered: list[list[str]] = []
    given: list[list[str]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append([t.name for t in [*info.function_tools, *info.output_tools]])
        if not info.output_tools:
            return ModelResponse(parts=[ToolCallPart('ping', {})])
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {'value': 7})])

    def after_first_step(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        given.append([td.name for td in tool_defs])
        return tool_defs if ctx.run_step > 1 else []

    agent = Agent(
        FunctionModel(respond), output_type=ToolOutput(Answer), capabilities=[PrepareOutputTools(after_first_step)]
    )

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    result = await agent.run('go')

    assert result.output == Answer(value=7)
    assert offered == [['ping'], ['ping', 'final_result']]
    assert given == [['final_result'], ['final_result']]


async def test_hooks_prepare_output_tools_and_prepare_tools_both_apply():
    hooks = Hooks()

    @hooks.on.prepare_output_tools
    def describe(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [replace(td, description='The final answer.') for td in tool_defs]

    described: list[str | None] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        described.extend(t.description for t in info.output_tools)
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {'value': 1})])

    agent = Agent(FunctionModel(respond), output_type=ToolOutput(Answer), capabilities=[hooks])
    await agent.run('go')

    assert described == ['The final answer.']


async def test_process_history_output_is_sent_and_kept_and_history_processor_is_the_same_capability():
    lengths: list[int] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        lengths.append(len(messages))
        return ModelResponse(parts=[TextPart('ok')])

    def keep_last(ctx: RunContext[None], messages: list[ModelMessage]) -> list[ModelMessage]:
        return messages[-1:]

    agent = Agent(FunctionModel(respond), capabilities=[ProcessHistory(keep_last)])
    first = await agent.run('one')
    second = await agent.run('two', message_history=first.all_messages())

    assert lengths == [1, 1]
    # The processed history is the run's: the earlier run's messages are gone from it.
    assert [m.parts[0].content for m in second.all_messages()] == ['two', 'ok']  # pyright: ignore[reportAttributeAccessIssue]
    assert second.new_messages() == second.all_messages()
    assert isinstance(HistoryProcessor(keep_last), ProcessHistory)
    assert 'before_model_request' in ProcessHistory(keep_last).hook_names()
