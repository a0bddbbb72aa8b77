"""The built-in capabilities run as `AgentWorkflow` on a dev server, each hook on its side of the split.

Model-request and tool-execute hooks (and so the provider-adaptive tools' checks, and tools themselves) run in
activities, next to the real model; node, prepare-tools and run hooks run in the workflow. Thinking, Hooks
and PrepareTools are also covered by the guide examples in `test_parity.py`.
"""

from __future__ import annotations

import json
import threading
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from temporalio import workflow
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ActivityError

from agent import Agent, DeferredToolRequests, DeferredToolResults, ModelRequestContext, RunContext, Tool
from agent.builtin_tools import ImageGenerationTool, MCPServerTool, WebSearchTool
from agent.capabilities import (
    BuiltinTool,
    HandleDeferredToolCalls,
    HistoryProcessor,
    Hooks,
    ImageGeneration,
    IncludeToolReturnSchemas,
    PrefixTools,
    ProcessHistory,
    ReinjectSystemPrompt,
    SetToolMetadata,
    ThreadExecutor,
    Toolset,
    WebFetch,
    WebSearch,
)
from agent.graph import End
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models.function import AgentInfo, FunctionModel
from agent.toolsets import FunctionToolset
from tests.capabilities.catalog._models import PNG, Script, image_model
from tests.capabilities.catalog._web_server import web_server
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')


async def run(
    client: Client, task_queue: str, agent: Agent[Any, Any], prompt: str = 'go', **kwargs: Any
) -> AgentRunOutput:
    assert agent.name is not None
    async with build_worker(client, {agent.name: agent}, task_queue=task_queue):
        return await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent=agent.name, prompt=prompt, **kwargs),
            id=f'catalog-{uuid.uuid4()}',
            task_queue=task_queue,
        )


def parts_of(messages: list[ModelMessage], kind: type[Any]) -> list[Any]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, kind)]


async def test_native_tools_reach_the_model_activity_as_their_own_classes(client: Client, task_queue: str) -> None:
    script = Script(['searched'], native={'web_search', 'mcp_server'})
    search = WebSearchTool(max_uses=2, user_location={'city': 'Oslo'})
    mcp = MCPServerTool(id='docs', url='https://mcp.example.com', allowed_tools=['lookup'])
    agent = Agent(script.model(), name='catalog_native', capabilities=[BuiltinTool(search), BuiltinTool(mcp)])
    output = await run(client, task_queue, agent)
    assert output.output == 'searched'
    assert script.offered[0].native_tools == [search, mcp]
    assert [type(tool) for tool in script.offered[0].native_tools] == [WebSearchTool, MCPServerTool]


async def test_web_search_serves_each_model_from_the_side_its_profile_supports(client: Client, task_queue: str) -> None:
    def search(query: str) -> str:
        """Search the web."""
        return f'results for {query}'

    native = Script(['native answer'], native={'web_search'})
    output = await run(
        client, task_queue, Agent(native.model(), name='catalog_search_native', capabilities=[WebSearch(local=search)])
    )
    assert (output.output, native.offered[0].native_kinds, native.offered[0].function_tools) == (
        'native answer',
        ['web_search'],
        [],
    )

    local = Script([[ToolCallPart('search', {'query': 'temporal'}, 's1')], 'local answer'])
    output = await run(
        client, task_queue, Agent(local.model(), name='catalog_search_local', capabilities=[WebSearch(local=search)])
    )
    assert output.output == 'local answer'
    assert (local.offered[0].native_kinds, local.offered[0].function_tools) == ([], ['search'])
    assert [p.content for p in parts_of(output.new_messages, ToolReturnPart)] == ['results for temporal']


async def test_web_fetch_fetches_a_loopback_server_from_the_tool_activity_and_refuses_metadata_addresses(
    client: Client, task_queue: str
) -> None:
    with web_server() as server:
        script = Script(
            [
                [ToolCallPart('web_fetch', {'url': f'{server.base_url}/notes.txt'}, 'f1')],
                [ToolCallPart('web_fetch', {'url': 'http://169.254.169.254/latest/meta-data/'}, 'f2')],
                'fetched',
            ]
        )
        agent = Agent(script.model(), name='catalog_fetch', capabilities=[WebFetch(allowed_networks=['127.0.0.1/32'])])
        output = await run(client, task_queue, agent)
    assert output.output == 'fetched'
    assert server.requested == ['/notes.txt']
    assert [p.content for p in parts_of(output.new_messages, ToolReturnPart)] == [
        f'URL: {server.base_url}/notes.txt\n\nplain notes'
    ]
    (refused,) = parts_of(output.new_messages, RetryPromptPart)
    assert 'Refused to fetch http://169.254.169.254/latest/meta-data/: 169.254.169.254 is a link-local address' in (
        refused.content
    )


async def test_image_generation_sends_the_native_tool_to_a_model_activity_that_supports_it(
    client: Client, task_queue: str
) -> None:
    script = Script(['drawn'], native={'image_generation'})
    agent = Agent(script.model(), name='catalog_image_native', capabilities=[ImageGeneration(size='1024x1024')])
    output = await run(client, task_queue, agent)
    assert output.output == 'drawn'
    assert script.offered[0].native_tools == [ImageGenerationTool(size='1024x1024')]
    assert script.offered[0].function_tools == []


async def test_image_generation_falls_back_to_the_fallback_model_in_the_tool_activity(
    client: Client, task_queue: str
) -> None:
    requests: list[Any] = []
    script = Script([[ToolCallPart('generate_image', {'prompt': 'a red circle'}, 'g1')], 'Here it is.'])
    cap = ImageGeneration(fallback_model=image_model(requests))
    output = await run(client, task_queue, Agent(script.model(), name='catalog_image_fallback', capabilities=[cap]))
    assert output.output == 'Here it is.'
    assert requests == [('a red circle', [ImageGenerationTool()])]
    assert [p.content for p in parts_of(output.new_messages, ToolReturnPart)] == ['Generated 1 image: A red circle.']
    assert [p.content for p in parts_of(output.new_messages, UserPromptPart)][-1] == [PNG]


async def test_a_constraint_only_the_native_tool_enforces_fails_the_run_on_a_model_without_it(
    client: Client, task_queue: str
) -> None:
    script = Script(['unreachable'])
    agent = Agent(
        script.model(),
        name='catalog_constrained',
        capabilities=[WebSearch(allowed_domains=['example.com'], local=lambda q: q)],
    )
    with pytest.raises(WorkflowFailureError) as failure:
        await run(client, task_queue, agent)
    activity_error = failure.value.cause
    assert isinstance(activity_error, ActivityError)
    message = str(activity_error.cause)  # the ApplicationError the model activity raised
    assert "WebSearch(allowed_domains) needs the native 'web_search' tool" in message
    assert script.offered == []


async def test_reinject_system_prompt_runs_in_the_workflow_and_reaches_the_model(
    client: Client, task_queue: str
) -> None:
    script = Script(['hello again'])
    agent = Agent(
        script.model(), name='catalog_reinject', system_prompt='Be terse.', capabilities=[ReinjectSystemPrompt()]
    )
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart('hi')]), ModelResponse(parts=[TextPart('hello')])]
    output = await run(client, task_queue, agent, prompt='again', message_history=history)
    assert output.output == 'hello again'
    sent = script.offered[0].messages
    assert [p.content for p in parts_of(sent, SystemPromptPart)] == ['Be terse.']
    assert parts_of(output.new_messages, SystemPromptPart) == []


async def test_include_tool_return_schemas_sends_schemas_to_the_model_activity(client: Client, task_queue: str) -> None:
    seen: list[Any] = []

    def count(word: str) -> int:
        """Count letters."""
        return len(word)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend((t.return_schema, t.description) for t in info.function_tools)
        return ModelResponse(parts=[TextPart('ok')])

    agent = Agent(
        FunctionModel(respond), name='catalog_schemas', tools=[Tool(count)], capabilities=[IncludeToolReturnSchemas()]
    )
    await run(client, task_queue, agent)
    # A function model's API takes no return schema: the schema reaches it at the end of the tool's description.
    assert seen == [(None, 'Count letters.\n\nReturn schema:\n\n{\n  "type": "integer"\n}')]


async def test_toolset_prefix_history_processor_and_thread_executor_work_durably(
    client: Client, task_queue: str
) -> None:
    threads: list[str] = []
    toolset = FunctionToolset()

    @toolset.tool_plain
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        threads.append(threading.current_thread().name)
        return a + b

    def keep_last(messages: list[ModelMessage]) -> list[ModelMessage]:
        return messages[-1:]

    script = Script([[ToolCallPart('math_add', {'a': 2, 'b': 3}, 'a1')], 'five'])
    executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix='catalog-pool')
    agent = Agent(
        script.model(),
        name='catalog_python_only',
        capabilities=[
            PrefixTools(Toolset(toolset), prefix='math'),
            HistoryProcessor(keep_last),
            ThreadExecutor(executor),
        ],
    )
    try:
        output = await run(client, task_queue, agent)
    finally:
        executor.shutdown()
    assert output.output == 'five'
    assert script.offered[0].function_tools == ['math_add']
    assert [len(o.messages) for o in script.offered] == [1, 1]
    assert [p.content for p in parts_of(output.new_messages, ToolReturnPart)] == [5]
    assert len(threads) == 1
    assert threads[0].startswith('catalog-pool')


async def test_activity_side_hooks_do_real_io(client: Client, task_queue: str, tmp_path: Path) -> None:
    audit = tmp_path / 'audit.log'
    hooks = Hooks()
    sides: list[tuple[str, bool]] = []

    @hooks.on.before_tool_execute(tools=['lookup'])
    def write_audit_line(ctx: RunContext[None], *, call: ToolCallPart, tool_def: Any, args: dict[str, Any]) -> None:
        sides.append(('before_tool_execute', workflow.in_workflow()))
        with audit.open('a') as f:
            f.write(f'{call.tool_name} {json.dumps(args)}\n')

    with web_server() as server:

        @hooks.on.after_model_request
        def report_response(
            ctx: RunContext[None], *, request_context: ModelRequestContext, response: ModelResponse
        ) -> None:
            sides.append(('after_model_request', workflow.in_workflow()))
            body = json.dumps({'step': ctx.run_step, 'parts': len(response.parts)}).encode()
            request = urllib.request.Request(f'{server.base_url}/events', data=body, method='POST')
            with urllib.request.urlopen(request, timeout=5) as reply:
                assert reply.status == 200

        script = Script([[ToolCallPart('lookup', {'key': 'a'}, 'l1')], 'looked up'])
        agent = Agent(script.model(), name='catalog_io_hooks', capabilities=[hooks])

        @agent.tool_plain
        def lookup(key: str) -> str:
            return key.upper()

        output = await run(client, task_queue, agent)
        posted = [json.loads(body) for body in server.posted]
    assert output.output == 'looked up'
    assert audit.read_text() == 'lookup {"key": "a"}\n'
    assert posted == [{'step': 1, 'parts': 1}, {'step': 2, 'parts': 1}]
    assert set(sides) == {('before_tool_execute', False), ('after_model_request', False)}


async def test_a_workflow_side_hook_changes_the_course_of_the_run(client: Client, task_queue: str) -> None:
    hooks = Hooks()
    sides: list[bool] = []

    @hooks.on.after_node_run
    async def ask_a_follow_up(ctx: RunContext[None], *, node: Any, result: Any) -> Any:
        sides.append(workflow.in_workflow())
        if isinstance(result, End) and ctx.run_step == 1:
            ctx.enqueue('And in one word?', priority='when_idle')
        return result

    @hooks.on.prepare_tools
    async def hide_admin_tools(ctx: RunContext[None], tool_defs: list[Any]) -> list[Any]:
        return [td for td in tool_defs if not td.name.startswith('admin_')]

    script = Script(['A long answer.', 'Short.'])
    agent = Agent(script.model(), name='catalog_control_flow', capabilities=[hooks])

    @agent.tool_plain
    def admin_reset() -> str:
        return 'reset'

    output = await run(client, task_queue, agent)
    assert output.output == 'Short.'
    assert len(script.offered) == 2
    assert [p.content for p in parts_of(script.offered[1].messages[-1:], UserPromptPart)] == ['And in one word?']
    assert all(o.function_tools == [] for o in script.offered)
    assert sides
    assert all(sides)


async def test_process_history_set_tool_metadata_and_deferred_handler_work_durably(
    client: Client, task_queue: str
) -> None:
    offered: list[tuple[int, dict[str, Any]]] = []
    processed_in_workflow: list[bool] = []
    handled_in_workflow: list[bool] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append((len(messages), {t.name: t.metadata for t in info.function_tools}))
        if len(offered) == 1:
            return ModelResponse(parts=[ToolCallPart('delete', {'name': 'a'}, 'd1')])
        return ModelResponse(parts=[TextPart('deleted')])

    def keep_last(messages: list[ModelMessage]) -> list[ModelMessage]:
        processed_in_workflow.append(workflow.in_workflow())
        return messages[-1:]

    def approve(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
        handled_in_workflow.append(workflow.in_workflow())
        return requests.build_results(approve_all=True)

    agent = Agent(
        FunctionModel(respond),
        name='catalog_pydantic_ai_capabilities',
        capabilities=[
            ProcessHistory(keep_last),
            SetToolMetadata(tools=['delete'], dangerous=True),
            HandleDeferredToolCalls(approve),
        ],
    )

    @agent.tool_plain(requires_approval=True)
    def delete(name: str) -> str:
        return f'deleted {name}'

    output = await run(client, task_queue, agent)

    assert output.output == 'deleted'
    assert offered == [(1, {'delete': {'dangerous': True}}), (1, {'delete': {'dangerous': True}})]
    assert [p.content for p in parts_of(output.new_messages, ToolReturnPart)] == ['deleted a']
    assert set(processed_in_workflow) == {False}  # `before_model_request`: the model-request activity
    assert handled_in_workflow
    assert set(handled_in_workflow) == {True}  # a control-flow hook: the workflow
