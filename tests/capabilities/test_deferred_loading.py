"""Deferred capabilities: a catalog entry until the model loads one with `load_capability`, then fully live.

Also the run's registry of capability ids (`RunContext.capabilities`) that loading relies on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from agent import Agent, ModelRequestContext, RunContext, UserError
from agent.builtin_tools import WebSearchTool
from agent.capabilities import AbstractCapability, Capability, Hooks, NativeTool, PrefixTools
from agent.messages import (
    LoadCapabilityCallPart,
    LoadCapabilityReturnPart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from agent.models.function import AgentInfo, FunctionModel
from agent.profiles import ModelProfile
from agent.settings import ModelSettings

CATALOG = 'The following capabilities are deferred and can be loaded using the `load_capability` tool:'


def lookup_order(order_id: str) -> str:
    """Look up an order."""
    return f'{order_id}: shipped'


def refunds(**kwargs: Any) -> Capability[None]:
    return Capability[None](
        id='refunds',
        description='Refund tools.',
        instructions='Quote the refund policy.',
        tools=[lookup_order],
        defer_loading=True,
        **kwargs,
    )


def returns(messages: list[ModelMessage]) -> list[Any]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts]


def load_then_use(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Loads `refunds`, calls its tool, then answers with what the tool returned."""
    done = {p.tool_name: p for p in returns(messages) if isinstance(p, ToolReturnPart)}
    if 'load_capability' not in done:
        return ModelResponse(parts=[ToolCallPart('load_capability', {'id': 'refunds'}, tool_call_id='load')])
    if 'lookup_order' not in done:
        return ModelResponse(parts=[ToolCallPart('lookup_order', {'order_id': 'o-1'}, tool_call_id='look')])
    return ModelResponse(parts=[TextPart(f'answer: {done["lookup_order"].content}')])


async def test_a_deferred_capability_is_a_catalog_entry_until_loaded_then_its_tools_and_instructions_apply() -> None:
    seen: list[tuple[str | None, list[tuple[str, bool]]]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        request = messages[-1]
        assert isinstance(request, ModelRequest)
        seen.append((request.instructions, [(t.name, t.defer_loading) for t in info.function_tools]))
        return load_then_use(messages, info)

    agent = Agent(FunctionModel(model), instructions='Be brief.', capabilities=[refunds()])
    result = await agent.run('Where is my refund?')

    assert result.output == 'answer: o-1: shipped'
    catalog = f'{CATALOG}\n- refunds: Refund tools.'
    # The instructions stay the same after the load (they come with the tool result instead).
    assert [instructions for instructions, _ in seen] == [f'Be brief.\n\n{catalog}'] * 3
    assert [tools for _, tools in seen] == [
        [('load_capability', False), ('lookup_order', True)],
        [('load_capability', False), ('lookup_order', False)],
        [('load_capability', False), ('lookup_order', False)],
    ]
    [call] = [
        p for m in result.all_messages() if isinstance(m, ModelResponse) for p in m.parts if isinstance(p, ToolCallPart)
    ][:1]
    assert isinstance(call, LoadCapabilityCallPart)
    assert call.capability_id == 'refunds'
    [loaded] = [p for p in returns(result.all_messages()) if isinstance(p, LoadCapabilityReturnPart)]
    assert loaded.content == {'instructions': 'Quote the refund policy.'}


async def test_tools_of_an_unloaded_capability_never_reach_a_model_without_tool_search() -> None:
    offered: list[list[str]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append([t.name for t in info.function_tools])
        return load_then_use(messages, info)

    agent = Agent(FunctionModel(model, profile=ModelProfile()), capabilities=[refunds()])
    result = await agent.run('Where is my refund?')

    assert result.output == 'answer: o-1: shipped'
    assert offered == [['load_capability'], ['load_capability', 'lookup_order'], ['load_capability', 'lookup_order']]


async def test_calling_a_tool_of_an_unloaded_capability_asks_the_model_to_load_it_first() -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if not any(isinstance(p, RetryPromptPart) for p in returns(messages)):
            return ModelResponse(parts=[ToolCallPart('lookup_order', {'order_id': 'o-1'}, tool_call_id='early')])
        return ModelResponse(parts=[TextPart('gave up')])

    result = await Agent(FunctionModel(model), capabilities=[refunds()]).run('go')

    [retry] = [p for p in returns(result.all_messages()) if isinstance(p, RetryPromptPart)]
    assert "belongs to the capability 'refunds', which is not loaded" in str(retry.content)


async def test_a_load_recorded_in_the_history_keeps_the_capability_loaded_in_the_next_run() -> None:
    offered: list[list[tuple[str, bool]]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append([(t.name, t.defer_loading) for t in info.function_tools])
        return ModelResponse(parts=[TextPart('ok')])

    agent = Agent(FunctionModel(model), capabilities=[refunds()])

    def load(args: Any) -> list[ModelMessage]:
        return [
            ModelResponse(parts=[ToolCallPart('load_capability', args, 'c1', tool_kind='capability-load')]),
            ModelRequest(parts=[ToolReturnPart('load_capability', {}, 'c1', tool_kind='capability-load')]),
        ]

    await agent.run('again', message_history=load({'id': 'refunds'}))
    # A call whose arguments cannot be read (e.g. cut off mid-stream) loads nothing.
    await agent.run('again', message_history=load('{"id":'))

    assert offered == [
        [('load_capability', False), ('lookup_order', False)],
        [('load_capability', False), ('lookup_order', True)],
    ]


ALREADY = (
    'Capability {!r} is already available. Use its existing instructions and tools; '
    'do not call `load_capability` for it again.'
)


@pytest.mark.parametrize(
    ('loads', 'feedback'),
    [
        (['nope'], ["No capability found with id 'nope'."]),
        (['always'], [ALREADY.format('always')]),
        (['refunds', 'refunds'], [{'instructions': 'Quote the refund policy.'}, ALREADY.format('refunds')]),
    ],
)
async def test_loading_an_unknown_or_already_live_capability_is_sent_back_as_a_retry(
    loads: list[str], feedback: list[Any]
) -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        made = [p for m in messages if isinstance(m, ModelResponse) for p in m.parts]
        if len(made) < len(loads):
            return ModelResponse(parts=[ToolCallPart('load_capability', {'id': loads[len(made)]})])
        return ModelResponse(parts=[TextPart('done')])

    always = Capability[None](id='always', instructions='Always here.')
    result = await Agent(FunctionModel(model), capabilities=[always, refunds()]).run('go')

    answers = [
        p.content for p in returns(result.all_messages()) if isinstance(p, RetryPromptPart | LoadCapabilityReturnPart)
    ]
    assert answers == feedback


async def test_hooks_settings_and_native_tools_of_a_deferred_capability_apply_only_once_it_is_loaded() -> None:
    fired: list[bool | None] = []
    hooks = Hooks[None](id='audit', description='Audit requests.', defer_loading=True)

    @hooks.on.before_model_request
    async def record(ctx: RunContext[None], request_context: ModelRequestContext) -> ModelRequestContext:
        fired.append(ctx.capability_loaded)
        return request_context

    @dataclass
    class Tuned(AbstractCapability[None]):
        def get_model_settings(self) -> ModelSettings:
            return ModelSettings(temperature=0.1)

    seen: list[tuple[Any, list[str]]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        native_kinds = [tool.kind for tool in info.model_request_parameters.native_tools]
        seen.append(((info.model_settings or {}).get('temperature'), native_kinds))
        loads = [p for m in messages if isinstance(m, ModelResponse) for p in m.parts]
        if not loads:
            calls = [ToolCallPart('load_capability', {'id': cap}, f'load-{cap}') for cap in ('audit', 'tuned', 'web')]
            return ModelResponse(parts=calls)
        return ModelResponse(parts=[TextPart('done')])

    agent = Agent(
        FunctionModel(model),
        capabilities=[
            hooks,
            Tuned(id='tuned', defer_loading=True),
            NativeTool[None](WebSearchTool(), id='web', defer_loading=True),
        ],
    )
    await agent.run('go')

    assert fired == [True]
    assert seen == [(None, []), (0.1, ['web_search'])]


def test_capability_ids_are_checked_when_the_agent_is_built() -> None:
    with pytest.raises(UserError, match="Capability id 'dup' is used by multiple capabilities"):
        Agent(FunctionModel(load_then_use), capabilities=[Capability[None](id='dup'), Capability[None](id='dup')])
    with pytest.raises(UserError, match='Deferred capabilities must use stable explicit `id` values'):
        Agent(FunctionModel(load_then_use), capabilities=[Capability[None](defer_loading=True)])


async def test_a_run_names_anonymous_capabilities_after_their_class_and_a_wrapper_stands_for_what_it_wraps() -> None:
    registered: dict[str, Any] = {}

    @dataclass
    class PlainCap(AbstractCapability[None]):
        async def before_model_request(
            self, ctx: RunContext[None], request_context: ModelRequestContext
        ) -> ModelRequestContext:
            registered.update(ctx.capabilities)
            return request_context

    prefixed = PrefixTools(refunds(), prefix='billing')
    agent = Agent(
        FunctionModel(lambda _m, _i: ModelResponse(parts=[TextPart('ok')])),
        capabilities=[PlainCap(), PlainCap(id='plain_cap_2'), PlainCap(), prefixed],
    )
    await agent.run('go')

    assert list(registered) == ['plain_cap', 'plain_cap_2', 'plain_cap_3', 'refunds']
    assert registered['refunds'] is prefixed
    assert (prefixed.id, prefixed.defer_loading, prefixed.get_description()) == ('refunds', True, 'Refund tools.')


@pytest.mark.parametrize('name', ['WebSearch', 'WebFetch', 'ImageGeneration', 'IncludeToolReturnSchemas', 'Thinking'])
def test_a_spec_entry_can_make_a_capability_deferred(name: str) -> None:
    agent = Agent.from_spec(
        {
            'model': 'test',
            'capabilities': [{name: {'id': 'later', 'description': 'Use when needed.', 'defer_loading': True}}],
        }
    )

    [capability] = [cap for cap in agent.capabilities if type(cap).__name__ == name]
    assert (capability.id, capability.description, capability.defer_loading) == ('later', 'Use when needed.', True)
