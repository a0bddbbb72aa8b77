"""Output functions: called with the model's arguments (and the run context), awaited if async, able to retry."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from agent import Agent, ModelRetry, RunContext, ToolOutput
from agent.messages import ModelMessage, ModelResponse, RetryPromptPart, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel
from agent.output import NativeOutput, PromptedOutput


class Query(BaseModel):
    """A search query."""

    text: str
    limit: int = 3


@dataclass
class Point:
    x: int
    y: int


def tool_calls(*args: str, seen: list[AgentInfo] | None = None) -> FunctionModel:
    remaining = list(args)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if seen is not None:
            seen.append(info)
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, remaining.pop(0))])

    return FunctionModel(respond)


async def test_an_output_function_taking_the_run_context_gets_it():
    def run_query(ctx: RunContext[str], text: str, limit: int) -> str:
        return f'{ctx.deps}:{text}:{limit}'

    agent = Agent(tool_calls('{"text": "cats", "limit": 2}'), deps_type=str, output_type=run_query)

    result = await agent.run('Search', deps='db')

    assert result.output == 'db:cats:2'


async def test_an_async_output_function_is_awaited():
    async def run_query(ctx: RunContext[None], text: str) -> list[str]:
        return [text, text]

    agent = Agent(tool_calls('{"text": "dogs"}'), output_type=run_query)

    result = await agent.run('Search')

    assert result.output == ['dogs', 'dogs']


async def test_an_output_function_taking_one_model_exposes_the_model_schema():
    seen: list[AgentInfo] = []

    async def search(query: Query) -> str:
        """Search the index."""
        return f'{query.text}/{query.limit}'

    agent = Agent(tool_calls('{"text": "owls"}', seen=seen), output_type=search)

    result = await agent.run('Search')

    assert result.output == 'owls/3'
    tool = seen[0].output_tools[0]
    assert tool.name == 'final_result'
    assert tool.description == 'Search the index.'
    assert tool.parameters_json_schema == {
        'title': 'Query',
        'type': 'object',
        'properties': {'text': {'type': 'string'}, 'limit': {'type': 'integer', 'default': 3}},
        'required': ['text'],
    }


async def test_an_output_function_taking_one_dataclass_is_flattened_too():
    seen: list[AgentInfo] = []

    def norm(point: Point) -> int:
        return abs(point.x) + abs(point.y)

    agent = Agent(tool_calls('{"x": 3, "y": -4}', seen=seen), output_type=ToolOutput(norm, name='norm'))

    result = await agent.run('Measure')

    assert result.output == 7
    assert set(seen[0].output_tools[0].parameters_json_schema['properties']) == {'x', 'y'}


async def test_model_retry_from_an_output_function_asks_the_model_again():
    def checked(text: str) -> str:
        if text == 'bad':
            raise ModelRetry('Try a better query.')
        return text.upper()

    agent = Agent(tool_calls('{"text": "bad"}', '{"text": "good"}'), output_type=checked)

    result = await agent.run('Search')

    assert result.output == 'GOOD'
    retries = [p for m in result.all_messages() for p in getattr(m, 'parts', []) if isinstance(p, RetryPromptPart)]
    assert [(r.content, r.tool_name) for r in retries] == [('Try a better query.', 'final_result')]


async def test_several_output_functions_become_one_tool_each():
    seen: list[AgentInfo] = []

    def as_int(value: int) -> int:
        return value

    def as_words(text: str) -> list[str]:
        return text.split()

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        return ModelResponse(parts=[ToolCallPart('final_result_as_words', {'text': 'a b'})])

    agent = Agent(FunctionModel(respond), output_type=[as_int, as_words])

    result = await agent.run('Split')

    assert result.output == ['a', 'b']
    assert [t.name for t in seen[0].output_tools] == ['final_result_as_int', 'final_result_as_words']


async def test_output_functions_work_in_native_and_prompted_output():
    async def located(ctx: RunContext[str], city: str) -> str:
        return f'{city} ({ctx.deps})'

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart('{"city": "Lyon"}')])

    for output_type in (NativeOutput(located), PromptedOutput(located)):
        agent = Agent(FunctionModel(respond), deps_type=str, output_type=output_type)
        result = await agent.run('Where?', deps='France')
        assert result.output == 'Lyon (France)'


async def test_streaming_an_output_function_gives_its_result_at_the_end():
    async def shout(text: str) -> str:
        return text.upper()

    agent = Agent(tool_calls('{"text": "hi"}'), output_type=shout)

    async with agent.run_stream('Shout') as stream:
        outputs = [output async for output in stream.stream_output()]

    assert outputs[-1] == 'HI'
