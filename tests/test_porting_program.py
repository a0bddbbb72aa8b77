"""A program written for Pydantic AI runs here after renaming the import, and nothing else.

The program below is Pydantic AI code as its users write it (root imports, `FunctionModel` and `TestModel`,
structured output, toolsets, capabilities, a deferred tool with approval, an MCP server); the test renames
`pydantic_ai` to `agent` and runs it.
"""

from __future__ import annotations

import sys
from typing import Any

PROGRAM = """
from pydantic import BaseModel

from pydantic_ai import (
    Agent,
    DeferredToolRequests,
    DeferredToolResults,
    FunctionToolset,
    ModelRequest,
    ModelResponse,
    RunContext,
    TextPart,
    ToolCallPart,
    ToolDenied,
)
from pydantic_ai.capabilities import Hooks, PrefixTools, Toolset
from pydantic_ai.mcp import MCPServerStdio
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel


class City(BaseModel):
    name: str
    population: int


weather = FunctionToolset()


@weather.tool
def forecast(ctx: RunContext[str], city: str) -> str:
    return f'{ctx.deps}: sunny in {city}'


hooks = Hooks()
seen_requests = []


@hooks.on.before_model_request
async def count(ctx, request_context):
    seen_requests.append(len(request_context.messages))
    return request_context


def script(messages: list, info: AgentInfo) -> ModelResponse:
    last = messages[-1]
    if isinstance(last, ModelRequest) and any(part.part_kind == 'tool-return' for part in last.parts):
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {'name': 'Paris', 'population': 2100000})])
    return ModelResponse(parts=[ToolCallPart('w_forecast', {'city': 'Paris'})])


agent = Agent(
    FunctionModel(script),
    deps_type=str,
    output_type=City,
    capabilities=[PrefixTools(Toolset(weather), prefix='w'), hooks],
)
result = agent.run_sync('Weather in Paris?', deps='Forecast')
results['city'] = result.output
results['requests'] = list(seen_requests)
results['tool_return'] = [
    part.content for message in result.all_messages() for part in message.parts if part.part_kind == 'tool-return'
]

approvals = Agent(TestModel(), output_type=[str, DeferredToolRequests])


@approvals.tool_plain(requires_approval=True)
def delete_file(path: str) -> str:
    return f'deleted {path}'


first = approvals.run_sync('Delete it')
assert isinstance(first.output, DeferredToolRequests)
call = first.output.approvals[0]
denied = approvals.run_sync(
    message_history=first.all_messages(),
    deferred_tool_results=DeferredToolResults(approvals={call.tool_call_id: ToolDenied('Not that one.')}),
)
results['denied'] = [
    part.content for message in denied.new_messages() for part in message.parts if part.part_kind == 'tool-return'
]

def ask_the_clock(messages: list, info: AgentInfo) -> ModelResponse:
    returns = [part for part in messages[-1].parts if part.part_kind == 'tool-return']
    if returns:
        return ModelResponse(parts=[TextPart(f'The clock says {returns[0].content}')])
    return ModelResponse(parts=[ToolCallPart('get_current_time', {'timezone': 'UTC'})])


clock = Agent(FunctionModel(ask_the_clock), toolsets=[MCPServerStdio(PYTHON, MCP_ARGS, timeout=60)])
results['mcp'] = clock.run_sync('What time is it?').output
"""


def test_a_pydantic_ai_program_runs_after_renaming_the_import() -> None:
    results: dict[str, Any] = {}
    source = PROGRAM.replace('pydantic_ai', 'agent')
    namespace: dict[str, Any] = {
        '__name__': 'ported',
        'results': results,
        'PYTHON': sys.executable,
        'MCP_ARGS': ['-m', 'mcp_server_time', '--local-timezone', 'UTC'],
    }

    exec(compile(source, 'ported_program', 'exec'), namespace)

    assert results['city'].model_dump() == {'name': 'Paris', 'population': 2100000}
    assert results['tool_return'][0] == 'Forecast: sunny in Paris'
    assert results['requests'] == [1, 3]
    assert results['denied'] == ['Not that one.']
    assert results['mcp'].startswith('The clock says')
    assert "'timezone': 'UTC'" in results['mcp']
