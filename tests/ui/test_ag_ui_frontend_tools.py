"""Frontend tools: offered to the model, called for the client to execute, answered on the next request."""

from __future__ import annotations

from ag_ui.core import RunAgentInput, RunFinishedEvent, Tool, ToolCallArgsEvent, ToolCallStartEvent, UserMessage

from agent.models.function import AgentInfo
from agent.ui.ag_ui import FRONTEND_TOOLSET_ID, AGUIAdapter

from ._ag_ui import calling_agent, client_check, encode, run_events, run_input, types

SHOW_MAP = Tool(
    name='show_map',
    description='Show a city on the map in the page.',
    parameters={'type': 'object', 'properties': {'city': {'type': 'string'}}, 'required': ['city']},
)


async def test_a_frontend_tool_call_ends_the_run_for_the_client_to_answer():
    agent = calling_agent('show_map', '{"city": "Paris"}', answer='Shown.')
    adapter = AGUIAdapter(agent, run_input(tools=[SHOW_MAP]))

    events = await run_events(adapter)

    assert types(events)[-5:] == [
        'TOOL_CALL_START',
        'TOOL_CALL_ARGS',
        'TOOL_CALL_ARGS',
        'TOOL_CALL_END',
        'RUN_FINISHED',
    ]
    start = next(e for e in events if isinstance(e, ToolCallStartEvent))
    assert (start.tool_call_id, start.tool_call_name) == ('call-1', 'show_map')
    args = ''.join(e.delta for e in events if isinstance(e, ToolCallArgsEvent))
    assert args == '{"city": "Paris"}'
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert finished.model_dump(by_alias=True)['outcome'] == {'type': 'success', 'pendingToolCallIds': ['call-1']}
    # No result was sent: the frontend executes the call.
    assert 'TOOL_CALL_RESULT' not in types(events)


async def test_the_model_sees_the_frontend_tools_with_their_schema():
    seen: list[AgentInfo] = []
    agent = calling_agent('show_map', '{"city": "Paris"}', seen=seen)
    adapter = AGUIAdapter(agent, run_input(tools=[SHOW_MAP]))

    await run_events(adapter)

    [tool_def] = seen[0].function_tools
    assert (tool_def.name, tool_def.description, tool_def.kind) == ('show_map', SHOW_MAP.description, 'external')
    assert tool_def.parameters_json_schema == SHOW_MAP.parameters
    assert adapter.toolset is not None
    assert adapter.toolset.id == FRONTEND_TOOLSET_ID


async def test_the_next_request_carrying_the_tool_result_continues_the_run():
    agent = calling_agent('show_map', '{"city": "Paris"}', answer='Shown:')
    first = await run_events(AGUIAdapter(agent, run_input(tools=[SHOW_MAP])))
    # The client rebuilds the conversation from the stream, executes the call and adds its result.
    client = client_check(encode(first))
    assert client['error'] is None
    client_messages = [
        {'id': 'user-1', 'role': 'user', 'content': 'Hello'},
        *client['agent']['messages'],
        {'id': 'tool-1', 'role': 'tool', 'toolCallId': 'call-1', 'content': 'map shown at zoom 12'},
    ]
    second_input = RunAgentInput.model_validate(
        {'threadId': 'thread-1', 'runId': 'run-2', 'messages': client_messages, 'tools': [SHOW_MAP.model_dump()]}
    )

    second = await run_events(AGUIAdapter(agent, second_input))

    text = ''.join(getattr(e, 'delta', '') for e in second if e.type.value == 'TEXT_MESSAGE_CONTENT')
    assert text == 'Shown: map shown at zoom 12'
    finished = second[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert 'outcome' not in finished.model_dump(by_alias=True, exclude_none=True)  # a plain success names none
    assert client_check(encode(second))['error'] is None


async def test_a_run_without_frontend_tools_has_no_frontend_toolset():
    adapter = AGUIAdapter(calling_agent('x'), run_input(UserMessage(id='u', content='Hi')))

    assert adapter.toolset is None
