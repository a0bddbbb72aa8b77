"""Composition of capabilities (`CombinedCapability`), `WrapperCapability`, and the built-in capabilities."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from agent._model_request_context import ModelRequestContext
from agent._parts import ToolCallPart
from agent._run_context import RunContext
from agent._template import TemplateStr
from agent._tool_def import ToolDefinition
from agent._warnings import PydanticAIDeprecationWarning
from agent.capabilities import (
    HOOK_NAMES,
    AbstractCapability,
    AgentBuiltinTool,
    AgentInstructions,
    AgentModelSettings,
    AgentToolset,
    CombinedCapability,
    PrefixTools,
    PrepareOutputTools,
    PrepareTools,
    Toolset,
    WrapperCapability,
)
from agent.messages import AgentStreamEvent
from agent.settings import ModelSettings
from agent.toolsets import AbstractToolset, CombinedToolset, FunctionToolset, WrapperToolset
from agent.usage import RunUsage


def make_ctx(**changes: Any) -> RunContext[Any]:
    return RunContext(deps=None, model=cast(Any, None), usage=RunUsage(), **changes)


def math_toolset() -> FunctionToolset[Any]:
    toolset = FunctionToolset[Any]()

    @toolset.tool_plain
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    return toolset


def greeting_toolset() -> FunctionToolset[Any]:
    toolset = FunctionToolset[Any]()

    @toolset.tool_plain
    def greet(name: str) -> str:
        """Greet someone."""
        return f'Hello, {name}!'

    return toolset


@dataclass
class Configured(AbstractCapability[Any]):
    """Returns fixed configuration values."""

    instructions: AgentInstructions[Any] = None
    model_settings: AgentModelSettings[Any] | None = None
    toolset: AgentToolset[Any] | None = None
    builtin_tools: list[AgentBuiltinTool[Any]] = field(default_factory=list[AgentBuiltinTool[Any]])
    wrapper_label: str | None = None

    def get_instructions(self) -> AgentInstructions[Any] | None:
        return self.instructions

    def get_model_settings(self) -> AgentModelSettings[Any] | None:
        return self.model_settings

    def get_toolset(self) -> AgentToolset[Any] | None:
        return self.toolset

    def get_builtin_tools(self) -> list[AgentBuiltinTool[Any]]:
        return self.builtin_tools

    def get_wrapper_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any] | None:
        return LabelledToolset(toolset, self.wrapper_label) if self.wrapper_label else None


@dataclass
class LabelledToolset(WrapperToolset[Any]):
    label_text: str


@dataclass
class RequestCounter(AbstractCapability[Any]):
    count: int = 0

    async def for_run(self, ctx: RunContext[Any]) -> RequestCounter:
        return RequestCounter()

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self.count += 1
        return request_context


# --- configuration ------------------------------------------------------------------------------------------


def test_instructions_concatenate_in_order_flattening_sequences_and_skipping_none() -> None:
    def dynamic(ctx: RunContext[Any]) -> str:
        return 'dynamic'

    template = TemplateStr('Hello {{name}}')
    combined = CombinedCapability[Any](
        [
            Configured(instructions='first'),
            Configured(),
            Configured(instructions=[template, dynamic]),
            Configured(instructions='last'),
        ]
    )

    assert combined.get_instructions() == ['first', template, dynamic, 'last']


def test_instructions_are_none_when_no_capability_has_any() -> None:
    assert CombinedCapability[Any]([Configured(), Configured()]).get_instructions() is None


def test_static_model_settings_merge_with_later_capabilities_overriding() -> None:
    combined = CombinedCapability[Any](
        [
            Configured(model_settings=ModelSettings(temperature=0.1, max_tokens=10)),
            Configured(),
            Configured(model_settings=ModelSettings(temperature=0.5)),
        ]
    )

    assert combined.get_model_settings() == {'temperature': 0.5, 'max_tokens': 10}


def test_model_settings_functions_see_every_earlier_layer_in_ctx_model_settings() -> None:
    seen: list[ModelSettings | None] = []

    def more_tokens(ctx: RunContext[Any]) -> ModelSettings:
        seen.append(ctx.model_settings)
        return ModelSettings(max_tokens=5)

    def hotter(ctx: RunContext[Any]) -> ModelSettings:
        seen.append(ctx.model_settings)
        return ModelSettings(temperature=0.9)

    combined = CombinedCapability[Any](
        [
            Configured(model_settings=ModelSettings(temperature=0.1)),
            Configured(model_settings=more_tokens),
            Configured(model_settings=hotter),
            Configured(model_settings=ModelSettings(seed=7)),
        ]
    )
    resolve = combined.get_model_settings()
    assert callable(resolve)
    ctx = make_ctx(model_settings=ModelSettings(top_p=0.5, temperature=0.0))

    settings = resolve(ctx)

    assert seen == [
        {'top_p': 0.5, 'temperature': 0.1},
        {'top_p': 0.5, 'temperature': 0.1, 'max_tokens': 5},
    ]
    assert settings == {'temperature': 0.9, 'max_tokens': 5, 'seed': 7}
    assert ctx.model_settings == {'top_p': 0.5, 'temperature': 0.0}


def test_model_settings_are_none_when_no_capability_has_any() -> None:
    assert CombinedCapability[Any]([Configured()]).get_model_settings() is None


async def test_toolsets_combine_including_toolset_functions() -> None:
    def build(ctx: RunContext[Any]) -> AbstractToolset[Any]:
        return greeting_toolset()

    combined = CombinedCapability[Any]([Configured(toolset=math_toolset()), Configured(), Configured(toolset=build)])

    toolset = combined.get_toolset()

    assert isinstance(toolset, CombinedToolset)
    assert sorted(await toolset.get_tools(make_ctx())) == ['add', 'greet']


def test_toolset_is_none_when_no_capability_provides_one() -> None:
    assert CombinedCapability[Any]([Configured(), Configured()]).get_toolset() is None


def test_builtin_tools_collect_in_order() -> None:
    def per_step(ctx: RunContext[Any]) -> str:
        return 'code_execution'

    combined = CombinedCapability[Any](
        [Configured(builtin_tools=['web_search']), Configured(builtin_tools=[per_step, 'image_generation'])]
    )

    assert combined.get_builtin_tools() == ['web_search', per_step, 'image_generation']


def test_wrapper_toolsets_nest_with_the_first_capability_outermost() -> None:
    base = math_toolset()
    combined = CombinedCapability[Any](
        [Configured(wrapper_label='cap1'), Configured(), Configured(wrapper_label='cap3')]
    )

    wrapped = combined.get_wrapper_toolset(base)

    assert isinstance(wrapped, LabelledToolset)
    assert wrapped.label_text == 'cap1'
    assert isinstance(wrapped.wrapped, LabelledToolset)
    assert wrapped.wrapped.label_text == 'cap3'
    assert wrapped.wrapped.wrapped is base


def test_wrapper_toolset_is_none_when_no_capability_wraps() -> None:
    assert CombinedCapability[Any]([Configured(), Configured()]).get_wrapper_toolset(math_toolset()) is None


# --- per-run instances ------------------------------------------------------------------------------------


async def test_for_run_returns_a_new_combination_of_each_parts_per_run_instance() -> None:
    counter = RequestCounter()
    shared = Configured()
    combined = CombinedCapability[Any]([counter, shared])

    first = await combined.for_run(make_ctx())
    second = await combined.for_run(make_ctx())

    assert first is not combined
    assert second is not first
    assert first.capabilities[1] is shared
    assert isinstance(first.capabilities[0], RequestCounter)
    assert first.capabilities[0] is not counter
    await first.before_model_request(make_ctx(), cast(Any, None))
    assert (counter.count, first.capabilities[0].count) == (0, 1)
    assert list(combined.capabilities) == [counter, shared]


# --- hooks composed directly ------------------------------------------------------------------------------


@dataclass
class Mark(AbstractCapability[Any]):
    name: str
    seen: list[list[str]] = field(default_factory=list[list[str]])

    async def prepare_tools(self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        self.seen.append([tool_def.name for tool_def in tool_defs])
        return [tool_def for tool_def in tool_defs if tool_def.name != self.name]

    async def wrap_run_event_stream(
        self, ctx: RunContext[Any], *, stream: AsyncIterable[AgentStreamEvent]
    ) -> AsyncIterator[AgentStreamEvent]:
        async for event in stream:
            yield cast(Any, f'{event}>{self.name}')


async def test_prepare_tools_chain_in_capability_order() -> None:
    first, second = Mark('a'), Mark('b')
    tool_defs = [ToolDefinition(name=name) for name in ('a', 'b', 'c')]

    prepared = await CombinedCapability[Any]([first, second]).prepare_tools(make_ctx(), tool_defs)

    assert first.seen == [['a', 'b', 'c']]
    assert second.seen == [['b', 'c']]
    assert [tool_def.name for tool_def in prepared] == ['c']


async def test_event_stream_wrappers_nest_with_the_first_capability_outermost() -> None:
    async def events() -> AsyncIterator[AgentStreamEvent]:
        for event in ('e1', 'e2'):
            yield cast(Any, event)

    combined = CombinedCapability[Any]([Mark('cap1'), Mark('cap2'), Mark('cap3')])

    seen = [event async for event in combined.wrap_run_event_stream(make_ctx(), stream=events())]

    assert seen == ['e1>cap3>cap2>cap1', 'e2>cap3>cap2>cap1']


def test_default_event_stream_hook_returns_the_stream_itself() -> None:
    stream = cast(AsyncIterable[AgentStreamEvent], object())

    assert AbstractCapability[Any]().wrap_run_event_stream(make_ctx(), stream=stream) is stream


async def test_error_hooks_of_a_combination_stop_at_the_first_recovery() -> None:
    calls: list[str] = []

    @dataclass
    class Handler(AbstractCapability[Any]):
        name: str
        recovers: bool = False

        async def on_tool_execute_error(
            self, ctx: RunContext[Any], *, call: Any, tool_def: Any, args: dict[str, Any], error: Exception
        ) -> Any:
            calls.append(self.name)
            if self.recovers:
                return f'recovered from {error}'
            raise error

    combined = CombinedCapability[Any]([Handler('cap1'), Handler('cap2', recovers=True), Handler('cap3')])

    result = await combined.on_tool_execute_error(
        make_ctx(), call=ToolCallPart('t'), tool_def=ToolDefinition(name='t'), args={}, error=ValueError('boom')
    )

    assert result == 'recovered from boom'
    assert calls == ['cap3', 'cap2']


# --- hook introspection -----------------------------------------------------------------------------------


def test_overridden_hooks_names_only_the_hooks_a_class_implements() -> None:
    assert AbstractCapability.overridden_hooks() == frozenset()
    assert Configured.overridden_hooks() == frozenset()
    assert RequestCounter.overridden_hooks() == {'before_model_request'}
    assert Mark.overridden_hooks() == {'prepare_tools', 'wrap_run_event_stream'}
    assert Mark.overridden_hooks() is Mark.overridden_hooks()


def test_hook_names_of_a_combination_are_the_union_of_its_parts() -> None:
    combined = CombinedCapability[Any]([RequestCounter(), Configured(), Mark('m')])

    assert combined.hook_names() == {'before_model_request', 'prepare_tools', 'wrap_run_event_stream'}
    assert CombinedCapability.overridden_hooks() == set(HOOK_NAMES)


def test_hook_names_of_a_wrapper_are_the_wrapped_ones_plus_its_own_overrides() -> None:
    @dataclass
    class Audited(WrapperCapability[Any]):
        async def after_run(self, ctx: RunContext[Any], *, result: Any) -> Any:
            return result

    assert WrapperCapability[Any](RequestCounter()).hook_names() == {'before_model_request'}
    assert Audited(Mark('m')).hook_names() == {'after_run', 'prepare_tools', 'wrap_run_event_stream'}


# --- WrapperCapability ------------------------------------------------------------------------------------


def test_wrapper_capability_delegates_configuration() -> None:
    def dynamic(ctx: RunContext[Any]) -> ModelSettings:
        return ModelSettings()

    toolset = math_toolset()
    inner = Configured(
        instructions='be brief', model_settings=dynamic, toolset=toolset, builtin_tools=['web'], wrapper_label='w'
    )
    wrapper = WrapperCapability[Any](inner)

    assert wrapper.get_instructions() == 'be brief'
    assert wrapper.get_model_settings() is dynamic
    assert wrapper.get_toolset() is toolset
    assert wrapper.get_builtin_tools() == ['web']
    wrapped_toolset = wrapper.get_wrapper_toolset(toolset)
    assert isinstance(wrapped_toolset, LabelledToolset)
    assert wrapped_toolset.wrapped is toolset


async def test_wrapper_capability_delegates_hooks_and_subclasses_can_extend_them_with_super() -> None:
    log: list[str] = []

    @dataclass
    class AuditedCapability(WrapperCapability[Any]):
        async def before_model_request(
            self, ctx: RunContext[Any], request_context: ModelRequestContext
        ) -> ModelRequestContext:
            log.append(f'Request from {type(self.wrapped).__name__}')
            return await super().before_model_request(ctx, request_context)

    counter = RequestCounter()
    audited = AuditedCapability(counter)
    request_context = cast(ModelRequestContext, object())

    assert await audited.before_model_request(make_ctx(), request_context) is request_context
    assert log == ['Request from RequestCounter']
    assert counter.count == 1
    tool_defs = [ToolDefinition(name='m')]
    assert [td.name for td in await WrapperCapability[Any](Mark('m')).prepare_tools(make_ctx(), tool_defs)] == []


async def test_wrapper_for_run_rewraps_a_fresh_instance_and_keeps_itself_otherwise() -> None:
    counter = RequestCounter()
    wrapper = WrapperCapability[Any](counter)
    unchanged = WrapperCapability[Any](Configured())

    per_run = await wrapper.for_run(make_ctx())

    assert per_run is not wrapper
    assert isinstance(per_run.wrapped, RequestCounter)
    assert per_run.wrapped is not counter
    assert await unchanged.for_run(make_ctx()) is unchanged


# --- PrefixTools, PrepareTools, Toolset ---------------------------------------------------------------------


async def test_prefix_tools_prefixes_the_wrapped_capabilitys_tool_names() -> None:
    prefixed = PrefixTools(Toolset(math_toolset()), prefix='api1')

    toolset = prefixed.get_toolset()

    assert isinstance(toolset, AbstractToolset)
    assert list(await toolset.get_tools(make_ctx())) == ['api1_add']


async def test_prefix_tools_also_prefixes_a_toolset_built_per_run() -> None:
    def build(ctx: RunContext[Any]) -> AbstractToolset[Any]:
        return greeting_toolset()

    toolset = Toolset[Any](build).prefix_tools('mcp').get_toolset()

    assert isinstance(toolset, AbstractToolset)
    assert list(await toolset.get_tools(make_ctx())) == ['mcp_greet']


def test_prefix_tools_without_a_wrapped_toolset_provides_none_and_delegates_the_rest() -> None:
    prefixed = PrefixTools(Configured(instructions='hi'), 'api2')

    assert prefixed.get_toolset() is None
    assert prefixed.get_instructions() == 'hi'
    assert prefixed.prefix == 'api2'


def test_prefix_tools_is_spec_loadable_from_a_built_capability() -> None:
    inner = Toolset[Any](math_toolset())

    loaded = PrefixTools[Any].from_spec(inner, prefix='api1')

    assert loaded == PrefixTools(inner, prefix='api1')
    assert PrefixTools.get_serialization_name() == 'PrefixTools'


def test_prefix_tools_method_wraps_the_capability_itself() -> None:
    cap = Configured()

    prefixed = cap.prefix_tools('x')

    assert isinstance(prefixed, PrefixTools)
    assert prefixed.wrapped is cap
    assert prefixed.prefix == 'x'


async def test_prepare_tools_runs_sync_and_async_functions() -> None:
    tool_defs = [ToolDefinition(name='delete_file'), ToolDefinition(name='read_file')]

    async def hide_dangerous(ctx: RunContext[Any], defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [td for td in defs if not td.name.startswith('delete_')]

    def only_delete(ctx: RunContext[Any], defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [td for td in defs if td.name.startswith('delete_')]

    hidden = await PrepareTools(hide_dangerous).prepare_tools(make_ctx(), tool_defs)
    kept = await PrepareTools(only_delete).prepare_tools(make_ctx(), tool_defs)

    assert [td.name for td in hidden] == ['read_file']
    assert [td.name for td in kept] == ['delete_file']


async def test_prepare_functions_returning_none_hide_every_definition_with_a_deprecation_warning() -> None:
    tool_defs = [ToolDefinition(name='a')]

    def nothing(ctx: RunContext[Any], defs: list[ToolDefinition]) -> None:
        return None

    with pytest.warns(PydanticAIDeprecationWarning, match="prepare callback '.*nothing' returned `None`"):
        assert await PrepareTools(nothing).prepare_tools(make_ctx(), tool_defs) == []
    with pytest.warns(PydanticAIDeprecationWarning, match='Return `\\[\\]` to hide them'):
        assert await PrepareOutputTools(nothing).prepare_output_tools(make_ctx(), tool_defs) == []


def test_toolset_capability_provides_its_toolset_and_is_python_only() -> None:
    toolset = math_toolset()

    assert Toolset(toolset).get_toolset() is toolset
    assert Toolset.get_serialization_name() is None
    assert PrepareTools.get_serialization_name() is None
    assert CombinedCapability.get_serialization_name() is None


# --- spec support and class attributes ----------------------------------------------------------------------


def test_from_spec_builds_with_the_given_arguments_and_names_default_to_the_class_name() -> None:
    @dataclass
    class RateLimit(AbstractCapability[Any]):
        rpm: int = 60

    assert RateLimit.from_spec(rpm=30) == RateLimit(rpm=30)
    assert RateLimit.get_serialization_name() == 'RateLimit'


def test_id_description_and_defer_loading_are_keyword_only_fields_every_capability_has() -> None:
    @dataclass
    class Sized(AbstractCapability[Any]):
        size: int = 1

    @dataclass
    class Runbook(AbstractCapability[Any]):
        id: str | None = 'runbook'
        defer_loading: bool = True

    assert [f.name for f in dataclasses.fields(Sized)] == ['id', 'description', 'defer_loading', 'size']
    sized = Sized(2, id='sized', description='Sizes things.')
    assert (sized.size, sized.id, sized.description, sized.defer_loading) == (2, 'sized', 'Sizes things.', False)
    assert (Runbook().id, Runbook().defer_loading) == ('runbook', True)
    assert Configured().defer_loading is False
    assert Configured().id is None


@pytest.mark.parametrize('alias', ['AgentNode', 'NodeResult', 'WrapNodeRunHandler', 'AgentInstructions'])
def test_generic_aliases_can_be_subscripted_at_runtime(alias: str) -> None:
    import agent.capabilities

    assert alias in repr(getattr(agent.capabilities, alias)[Any])
