"""The `Agent` API beyond running: node helpers, sync streaming, dynamic toolsets, `async with agent`, results."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Self

import pydantic
import pytest

from agent import Agent, AgentRunResultEvent, RunContext, UserError
from agent.messages import ModelMessage, ModelResponse, TextPart
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel
from agent.toolsets import FunctionToolset


async def _stream_words(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    for word in ('The ', 'cat ', 'sat.'):
        yield word


async def test_node_helpers_name_each_node_of_a_run():
    agent = Agent(TestModel())
    kinds: list[str] = []

    async with agent.iter('hi') as run:
        async for node in run:
            if Agent.is_user_prompt_node(node):
                kinds.append('user prompt')
            elif Agent.is_model_request_node(node):
                kinds.append('model request')
            elif Agent.is_call_tools_node(node):
                kinds.append('call tools')
            elif Agent.is_end_node(node):
                kinds.append(f'end: {node.data.output}')

    assert kinds == ['user prompt', 'model request', 'call tools', 'end: success (no tool calls)']


def test_run_stream_sync_streams_text_from_synchronous_code():
    agent = Agent(FunctionModel(stream_function=_stream_words))

    result = agent.run_stream_sync('hi')
    pieces = list(result.stream_text(delta=True, debounce_by=None))

    assert pieces == ['The ', 'cat ', 'sat.']
    assert result.is_complete
    assert result.get_output() == 'The cat sat.'
    assert result.response.parts == [TextPart('The cat sat.')]


def test_run_stream_sync_get_output_runs_to_the_end():
    result = Agent(TestModel(custom_output_text='done')).run_stream_sync('hi')

    assert result.get_output() == 'done'
    assert len(result.all_messages()) == 2


async def test_run_stream_sync_refuses_a_running_event_loop():
    with pytest.raises(UserError, match='running event loop'):
        Agent(TestModel()).run_stream_sync('hi')


def test_toolset_decorator_builds_the_run_toolset_from_the_run_context():
    agent = Agent(TestModel(), deps_type=str)

    @agent.toolset
    def by_deps(ctx: RunContext[str]) -> FunctionToolset[str]:
        def greet() -> str:
            return f'hello {ctx.deps}'

        return FunctionToolset([greet])

    assert agent.run_sync('hi', deps='Ada').output == '{"greet":"hello Ada"}'


def test_toolset_decorator_accepts_options():
    agent = Agent(TestModel())

    @agent.toolset(per_run_step=False, id='once')
    async def once(ctx: RunContext[None]) -> None:
        return None

    assert agent.toolsets[-1].id == 'once'
    assert agent.run_sync('hi').output == 'success (no tool calls)'


def test_description_is_set_by_the_constructor_and_by_specs():
    assert Agent(TestModel(), description='Answers questions').description == 'Answers questions'
    assert Agent.from_spec({'model': 'test', 'description': 'From a spec'}).description == 'From a spec'
    assert Agent(TestModel()).description is None


class City(pydantic.BaseModel):
    name: str


def test_output_json_schema_describes_the_output_type():
    assert Agent(TestModel()).output_json_schema() == {'type': 'string'}
    assert Agent(TestModel(), output_type=City).output_json_schema() == City.model_json_schema(mode='serialization')
    assert Agent(TestModel()).output_json_schema([City, int]) == {
        'anyOf': [
            {
                'properties': {'name': {'title': 'Name', 'type': 'string'}},
                'required': ['name'],
                'title': 'City',
                'type': 'object',
            },
            {'type': 'integer'},
        ]
    }


def test_output_json_schema_of_an_output_function_is_its_return_type():
    def parse(text: str) -> int:
        return int(text)

    assert Agent(TestModel(), output_type=parse).output_json_schema() == {'type': 'integer'}


class _CountingToolset(FunctionToolset[Any]):
    def __init__(self) -> None:
        super().__init__()
        self.entries = 0
        self.exits = 0

    async def __aenter__(self) -> Self:
        self.entries += 1
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        self.exits += 1
        return None


async def test_async_with_agent_enters_its_toolsets_once_until_the_last_exit():
    toolset = _CountingToolset()
    agent = Agent(TestModel(), toolsets=[toolset])

    async with agent as entered:
        async with agent:
            counts_inside = (toolset.entries, toolset.exits)
        counts_after_inner = (toolset.entries, toolset.exits)

    assert entered is agent
    assert counts_inside == (1, 0)
    assert counts_after_inner == (1, 0)
    assert (toolset.entries, toolset.exits) == (1, 1)


async def test_run_and_result_expose_the_merged_metadata_and_the_last_response():
    agent = Agent(TestModel(custom_output_text='ok'), metadata={'team': 'a'})

    async with agent.iter('hi', metadata={'run': 1}) as run:
        async for _ in run:
            pass

    assert run.metadata == {'team': 'a', 'run': 1}
    assert run.result is not None
    assert run.result.metadata == {'team': 'a', 'run': 1}
    assert run.result.response.parts == [TextPart('ok')]
    assert run.result.response is run.result.all_messages()[-1]


async def test_stream_text_debounce_gathers_pieces_that_arrive_together():
    agent = Agent(FunctionModel(stream_function=_stream_words))

    async with agent.run_stream('hi') as result:
        grouped = [text async for text in result.stream_text(debounce_by=60)]
    async with agent.run_stream('hi') as result:
        each = [text async for text in result.stream_text(debounce_by=None)]

    # The first piece opens a 60 s window that every later piece falls in: one update with the whole text.
    assert grouped == ['The cat sat.']
    assert each == ['The ', 'The cat ', 'The cat sat.']


def test_a_run_spec_adds_instructions_and_metadata_to_the_agents():
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(info.instructions or '')])

    agent = Agent(FunctionModel(respond), instructions='Agent.', metadata={'a': 1})

    result = agent.run_sync('hi', spec={'instructions': 'Spec.', 'metadata': {'b': 2}})

    assert result.output == 'Agent.\n\nSpec.'
    assert result.metadata == {'a': 1, 'b': 2}


def test_a_run_spec_supplies_the_model_when_none_is_given():
    result = Agent().run_sync('hi', spec={'model': 'test'})

    assert result.output == 'success (no tool calls)'


async def test_run_stream_events_can_be_iterated_directly_or_entered_first():
    agent = Agent(TestModel(custom_output_text='ok'))

    with pytest.warns(DeprecationWarning, match='Iterating `AgentEventStream` directly'):
        direct = [event async for event in agent.run_stream_events('hi')]
    async with agent.run_stream_events('hi') as events:
        entered = [event async for event in events]

    for stream in (direct, entered):
        assert isinstance(stream[-1], AgentRunResultEvent)
        assert stream[-1].result.output == 'ok'
    assert [type(e).__name__ for e in direct] == [type(e).__name__ for e in entered]


def test_an_agents_repr_shows_its_model_name_end_strategy_settings_and_output_type():
    assert repr(Agent()) == (
        "Agent(model=None, name=None, end_strategy='early', model_settings=None, output_type=<class 'str'>)"
    )
    agent = Agent(name='helper', output_type=int, model_settings={'temperature': 0}, end_strategy='exhaustive')
    assert repr(agent) == (
        "Agent(model=None, name='helper', end_strategy='exhaustive', model_settings={'temperature': 0}, "
        "output_type=<class 'int'>)"
    )


def test_unknown_constructor_arguments_are_named_and_mcp_servers_still_means_toolsets():
    from agent.toolsets import FunctionToolset

    with pytest.raises(UserError, match=r'^Unknown keyword arguments: `usage_limits`, `colour`$'):
        Agent('test', usage_limits=None, colour='red')

    server = FunctionToolset[None]()
    with pytest.warns(DeprecationWarning, match='`mcp_servers` is deprecated, use `toolsets` instead'):
        agent = Agent('test', mcp_servers=[server])
    assert agent.toolsets[1:] == [server]
