"""`Agent`: the configuration of an agent, and the entry points that run it."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeAlias, TypedDict, overload

from typing_extensions import TypeVar

from ._abstract_agent import AbstractAgent
from ._agent_context import AgentContextMixin
from ._agent_decorators import AgentDecoratorsMixin
from ._agent_nodes import AgentNodeChecksMixin
from ._agent_run_setup import RunSetup, build_run
from ._agent_spec import AgentSpecMixin
from ._agent_streams import event_stream, streamed_run
from ._agent_ui import AgentUIMixin
from ._capture import capture_run_messages, claim_capture
from ._content import UserContent
from ._deferred import DeferredToolResults
from ._delegation import redirected
from ._deprecated_kwargs import toolsets_from_deprecated_kwargs
from ._finished_run import FinishedRun
from ._instructions import SystemPromptRunner, flatten_instructions
from ._instrumentation import InstrumentationSettings
from ._output_json_schema import output_json_schema
from ._override import AgentOverrideMixin, merge_metadata, resolve_spec
from ._parts import ModelMessage, SystemPromptPart
from ._run_context import RunContext
from ._spec import AgentSpec
from ._template import TemplateStr
from .capabilities._registry import check_agent_capability_ids
from .concurrency import AbstractConcurrencyLimiter, AnyConcurrencyLimit, normalize_to_limiter
from .exceptions import UserError
from .models import Model, infer_model
from .output import OutputSchema, OutputSpec, OutputValidator
from .result import AgentEventStream, StreamedRunResult, StreamedRunResultSync
from .run import AgentRun, AgentRunResult
from .settings import ModelSettings
from .toolsets import AbstractToolset, DynamicToolset, FunctionToolset
from .toolsets.function import AgentFunctionToolset
from .usage import RunUsage, UsageLimits

if TYPE_CHECKING:
    pass

__all__ = ('Agent', 'AgentRetries', 'EndStrategy', 'capture_run_messages')


AgentDepsT = TypeVar('AgentDepsT', default=None)
OutputDataT = TypeVar('OutputDataT', default=str)
RunOutputT = TypeVar('RunOutputT')

EndStrategy = Literal['early', 'graceful', 'exhaustive']
"""What happens to the other tool calls of a response with a final result.

`'early'` answers them all "not executed"; `'graceful'` runs the function tools but not the other output tools;
`'exhaustive'` runs the function tools and processes every output tool call (the first valid one is the output).
"""

EventStreamHandler: TypeAlias = Callable[[RunContext[Any], AsyncIterator[Any]], Awaitable[None]]
"""Receives a run's events as they happen (`Agent(event_stream_handler=...)`): the run context and the events."""

EventStreamProcessor: TypeAlias = Callable[[RunContext[Any], AsyncIterator[Any]], AsyncIterator[Any]]
"""Takes a run's events and yields the events to pass on (what `ProcessEventStream` wraps)."""


class AgentRetries(TypedDict, total=False):
    """Retry budgets per category, for `Agent(retries={...})`; a missing key means 1."""

    tools: int
    """How often each tool may fail (bad arguments, `ModelRetry`, timeout) before the run fails."""
    output: int
    """How often output validation may fail before the run fails."""


class Agent(
    AgentOverrideMixin,
    AgentSpecMixin,
    AgentContextMixin,
    AgentDecoratorsMixin[AgentDepsT],
    AgentNodeChecksMixin,
    AgentUIMixin[AgentDepsT, OutputDataT],
    AbstractAgent[AgentDepsT, OutputDataT],
):
    """An agent: a model, instructions, tools, capabilities and an output type.

    ```python
    from agent import Agent

    agent = Agent('test', instructions='Be concise.')
    result = agent.run_sync('Hello')
    print(result.output)
    ```
    """

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        output_type: OutputSpec = str,
        instructions: Any = None,
        system_prompt: str | Sequence[str] = (),
        deps_type: type[AgentDepsT] | Any = type(None),
        name: str | None = None,
        description: TemplateStr[Any] | str | None = None,
        model_settings: ModelSettings | Callable[..., ModelSettings] | None = None,
        retries: int | AgentRetries = 1,
        output_retries: int | None = None,
        tool_retries: int | None = None,
        tools: Sequence[Any] = (),
        builtin_tools: Sequence[Any] = (),
        native_tools: Sequence[Any] = (),
        prepare_tools: Callable[..., Any] | None = None,
        prepare_output_tools: Callable[..., Any] | None = None,
        toolsets: Sequence[Any] | None = None,
        defer_model_check: bool = False,
        end_strategy: EndStrategy = 'early',
        metadata: dict[str, Any] | Callable[..., dict[str, Any]] | None = None,
        event_stream_handler: EventStreamHandler | None = None,
        tool_timeout: float | None = None,
        capabilities: Sequence[Any] | None = None,
        validation_context: Any = None,
        instrument: InstrumentationSettings | bool | None = None,
        history_processors: Sequence[Callable[..., Any]] | None = None,
        max_concurrency: AnyConcurrencyLimit = None,
        **deprecated_kwargs: Any,
    ) -> None:
        toolsets = [*(toolsets or []), *toolsets_from_deprecated_kwargs(deprecated_kwargs)]
        self._override_var = ContextVar('agent_override', default=None)
        if model is None or defer_model_check or isinstance(model, Model):
            self._model: Model | str | None = model
        else:
            self._model = infer_model(model)
        self.name = name
        self.description = description
        self.output_type = output_type
        self.deps_type = deps_type
        self.model_settings = model_settings
        self.end_strategy: EndStrategy = end_strategy
        self.instrument: InstrumentationSettings | bool | None = instrument
        """Whether runs are traced with OpenTelemetry (`None`: as `Agent.instrument_all()` says)."""
        self._output_schema = OutputSchema.build(output_type)
        if isinstance(retries, int):
            retries = AgentRetries(tools=retries, output=retries)
        # The explicit per-category arguments (older spelling) win over the `retries` dict.
        tool_budget = tool_retries if tool_retries is not None else retries.get('tools', 1)
        self._max_result_retries = output_retries if output_retries is not None else retries.get('output', 1)
        self._default_retries = tool_budget
        self._instructions = flatten_instructions(instructions)
        self._system_prompts: list[str | SystemPromptRunner] = (
            [system_prompt] if isinstance(system_prompt, str) else list(system_prompt)
        )
        self._output_validators: list[OutputValidator] = []
        self._function_toolset: FunctionToolset[AgentDepsT] = AgentFunctionToolset(
            tools, max_retries=tool_budget, timeout=tool_timeout, id='<agent>'
        )
        self._toolsets: list[Any] = list(toolsets or [])
        self._prepare_tools = prepare_tools
        self._prepare_output_tools = prepare_output_tools
        self._native_tools = [*builtin_tools, *native_tools]
        self._metadata = metadata
        self._event_stream_handler = event_stream_handler
        self._validation_context = validation_context
        self._capabilities: list[Any] = list(capabilities or [])
        check_agent_capability_ids(self._capabilities)
        # Runs of this agent wait for (and hold) a slot of this limiter; share one limiter to bound several agents.
        self._concurrency_limiter: AbstractConcurrencyLimiter | None = normalize_to_limiter(max_concurrency)
        if history_processors:
            from .capabilities import HistoryProcessor

            self._capabilities.extend(HistoryProcessor(p) for p in history_processors)

    _instrument_default: ClassVar[InstrumentationSettings | bool] = False

    @staticmethod
    def instrument_all(instrument: InstrumentationSettings | bool = True) -> None:
        """Trace the runs of every agent created without its own `instrument=` setting (see `Instrumentation`)."""
        Agent._instrument_default = instrument

    # ----- configuration -----

    @property
    def model(self) -> Model | str | None:
        """The default model, if any."""
        return self._model

    @model.setter
    def model(self, value: Model | str | None) -> None:
        self._model = value

    @property
    def toolsets(self) -> list[AbstractToolset[AgentDepsT]]:
        """The agent's toolsets: its own function tools first, then the ones passed in."""
        own = self._overridden('function_toolset', self._function_toolset)
        return [own, *self._overridden('toolsets', self._toolsets)]

    @property
    def capabilities(self) -> list[Any]:
        """The agent's capabilities."""
        return list(self._overridden('capabilities', self._capabilities))

    def output_json_schema(self, output_type: OutputSpec | None = None) -> dict[str, Any]:
        """The JSON schema of a run's output, for the agent's `output_type` or the one given."""
        return output_json_schema(output_type if output_type is not None else self.output_type)

    def toolset(self, func: Any = None, /, *, per_run_step: bool = True, id: str | None = None) -> Any:
        """Register a function of the run context that returns a toolset (or `None`) as a `DynamicToolset`.

        Usable bare (`@agent.toolset`) or with arguments (`@agent.toolset(per_run_step=False)`).

        Args:
            func: The toolset function, sync or async.
            per_run_step: Call the function again before every model request (otherwise once per run).
            id: The toolset id; needed for durable runs, where it names the toolset's activities.
        """

        def register(f: Any) -> Any:
            self._toolsets.append(DynamicToolset(f, per_run_step=per_run_step, id=id))
            return f

        return register if func is None else register(func)

    # ----- running -----

    @asynccontextmanager
    async def iter(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: OutputSpec | None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        conversation_id: str | None = None,
        model: Model | str | None = None,
        instructions: Any = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: dict[str, Any] | Callable[..., dict[str, Any]] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[Any] | None = None,
        capabilities: Sequence[Any] | None = None,
        builtin_tools: Sequence[Any] | None = None,
        event_stream_handler: EventStreamHandler | None = None,
        spec: AgentSpec | dict[str, Any] | None = None,
        retries: int | AgentRetries | dict[str, int] | None = None,
    ) -> AsyncGenerator[AgentRun[AgentDepsT, Any], None]:
        """Start a run and drive it node by node.

        ```python
        async with agent.iter('What is 2 + 2?') as agent_run:
            node = agent_run.next_node
            while not isinstance(node, End):
                node = await agent_run.next(node)
        print(agent_run.result.output)
        ```

        A `spec` (`AgentSpec` or its dict form) adds to the agent's configuration for this run: its model is used
        if none is given, its instructions, capabilities, model settings and metadata are added.

        `retries` sets this run's output retry budget (an int, or `{'output': n}`), ahead of the spec's and the
        agent's; `override(retries=...)` still wins over it. Tool budgets belong to the agent and its tools.

        Called from a durable run's tool, on an agent the worker serves, the run is the workflow's child run: the
        block gets it once it has ended, as a `FinishedRun` (see `agent._finished_run`).

        Raises:
            UserError: for tool retries in `retries`.
        """
        # The call's keyword arguments, as `run(...)` hands them on: first, before the body adds locals of its own.
        given = {key: value for key, value in locals().items() if key not in ('self', 'user_prompt', 'infer_name')}
        if infer_name and self.name is None:
            self._infer_name(inspect.currentframe())
        if (finished := await redirected(self, user_prompt, given)) is not None:
            yield FinishedRun(finished, user_prompt)
            return
        output_retries = _run_output_retries(retries)
        if (resolved := resolve_spec(spec)) is not None:
            if output_retries is None:
                output_retries = resolved.output_retries
            model = model if model is not None else resolved.model
            if resolved.instructions:
                instructions = [*flatten_instructions(instructions), *resolved.instructions]
            capabilities = [*(capabilities or []), *resolved.capabilities]
            if resolved.model_settings and not callable(model_settings):
                model_settings = {**resolved.model_settings, **(model_settings or {})}  # type: ignore[typeddict-item]
            if resolved.metadata:
                metadata = merge_metadata(resolved.metadata, metadata)
        # `override()` wins over what the call passes (see `_override`), but does not hide an agent that could not
        # run without it: such a run fails as it would outside the override.
        if model is None and self._model is None and self._is_overridden('model'):
            raise UserError(
                '`model` must either be set on the agent or included when calling it. '
                '(Even when `override(model=...)` is customizing the model that will actually be called)'
            )
        model = self._overridden('model', model)
        deps = self._overridden('deps', deps)
        if self._is_overridden('toolsets'):
            toolsets = None
        if self._is_overridden('instructions'):
            instructions = None
        if self._is_overridden('metadata'):
            metadata = None
        if self._is_overridden('model_settings'):
            model_settings = None
        if self._is_overridden('output_retries'):
            output_retries = None
        setup = RunSetup(
            agent=self,
            user_prompt=user_prompt,
            output_type=output_type,
            message_history=message_history,
            deferred_tool_results=deferred_tool_results,
            conversation_id=conversation_id,
            model=model,
            instructions=instructions,
            deps=deps,
            model_settings=model_settings,
            usage_limits=usage_limits,
            usage=usage,
            metadata=metadata,
            toolsets=toolsets,
            capabilities=capabilities,
            builtin_tools=builtin_tools,
            event_stream_handler=event_stream_handler or self._event_stream_handler,
            output_retries=output_retries,
        )
        captured = claim_capture()
        async with build_run(setup) as agent_run:
            try:
                yield agent_run
            finally:
                if captured is not None:
                    captured[:] = agent_run.all_messages()

    async def run(self, user_prompt: str | Sequence[UserContent] | None = None, **kwargs: Any) -> AgentRunResult[Any]:
        """Run the agent to completion and return its result. Accepts the same keyword arguments as `iter`.

        Called from a durable run's tool, on an agent the worker serves, the run is the workflow's child run instead
        (see `agent._delegation`); the result is the same.
        """
        if kwargs.get('infer_name', True) and self.name is None:
            self._infer_name(inspect.currentframe())
        if (result := await redirected(self, user_prompt, kwargs)) is not None:
            return result
        return await super().run(user_prompt, **kwargs)

    def run_sync(self, user_prompt: str | Sequence[UserContent] | None = None, **kwargs: Any) -> AgentRunResult[Any]:
        """Run the agent synchronously (in a fresh event loop). Accepts the same keyword arguments as `iter`.

        Raises:
            UserError: when called from a running event loop (use `await agent.run(...)` there).
        """
        if kwargs.get('infer_name', True) and self.name is None:
            self._infer_name(inspect.currentframe())
        return super().run_sync(user_prompt, **kwargs)

    def run_stream_events(
        self, user_prompt: str | Sequence[UserContent] | None = None, **kwargs: Any
    ) -> AgentEventStream[Any]:
        """Run the agent and stream its events, ending with an `AgentRunResultEvent`.

        ```python
        async with agent.run_stream_events('Hello') as events:
            async for event in events:
                ...
        ```

        Iterating it without `async with` still works but is deprecated. Accepts the same keyword arguments as
        `iter`.
        """
        if kwargs.get('infer_name', True) and self.name is None:
            self._infer_name(inspect.currentframe())
        return AgentEventStream._of_run(lambda: event_stream(self, user_prompt, [], **kwargs))  # pyright: ignore[reportPrivateUsage]

    @asynccontextmanager
    async def run_stream(
        self, user_prompt: str | Sequence[UserContent] | None = None, **kwargs: Any
    ) -> AsyncGenerator[StreamedRunResult[Any], None]:
        """Run the agent, streaming the final output as it is generated.

        ```python
        async with agent.run_stream('Tell me a story') as result:
            async for text in result.stream_text(delta=True):
                print(text, end='')
        ```
        """
        if kwargs.get('infer_name', True) and self.name is None:
            self._infer_name(inspect.currentframe())
        output_type = kwargs.get('output_type')
        schema = OutputSchema.build(output_type) if output_type is not None else self._output_schema
        if (finished := await redirected(self, user_prompt, kwargs)) is not None:
            # A child run of the durable run (see `agent._finished_run`): complete, its streams give the output.
            yield StreamedRunResult[Any]._finished(finished, schema)  # pyright: ignore[reportPrivateUsage]
            return
        async with streamed_run(self, user_prompt, schema, self._output_validators, **kwargs) as result:
            yield result

    def run_stream_sync(
        self, user_prompt: str | Sequence[UserContent] | None = None, **kwargs: Any
    ) -> StreamedRunResultSync[Any]:
        """`run_stream` for synchronous code: the run goes on in a private event loop (in a thread of its own).

        ```python
        result = agent.run_stream_sync('Tell me a story')
        for text in result.stream_text(delta=True):
            print(text, end='')
        ```

        Raises:
            UserError: when called from a running event loop (use `agent.run_stream(...)` there).
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise UserError('run_stream_sync() cannot be called from a running event loop; use `agent.run_stream`.')
        if kwargs.get('infer_name', True) and self.name is None:
            self._infer_name(inspect.currentframe())
        # `infer_name` is done: past this point the caller's frame is a thread away.
        return StreamedRunResultSync._start(self.run_stream(user_prompt, **{**kwargs, 'infer_name': False}))  # pyright: ignore[reportPrivateUsage]

    async def system_prompt_parts(
        self,
        *,
        deps: AgentDepsT = None,
        model: Model | str | None = None,
        message_history: Sequence[ModelMessage] | None = None,
        prompt: str | Sequence[UserContent] | None = None,
        usage: RunUsage | None = None,
        model_settings: ModelSettings | None = None,
    ) -> list[SystemPromptPart]:
        """Evaluate the agent's system prompts outside a run (e.g. to rebuild a history that should carry them).

        The `RunContext` they receive is built from the arguments and is not backed by a run, so `ctx.enqueue`
        raises there.
        """
        resolved = self._resolve_model(model) if (model or self._model) is not None else None
        ctx = RunContext[AgentDepsT](
            deps=deps,
            model=resolved,  # pyright: ignore[reportArgumentType]
            usage=usage or RunUsage(),
            agent=self,
            prompt=prompt,
            messages=list(message_history or []),
            model_settings=model_settings,
        )
        return await self._system_prompt_parts(ctx)

    async def _system_prompt_parts(self, ctx: RunContext[AgentDepsT]) -> list[SystemPromptPart]:
        parts: list[SystemPromptPart] = []
        for prompt in self._system_prompts:
            if isinstance(prompt, str):
                parts.append(SystemPromptPart(prompt))
            elif (part := await prompt.run(ctx)) is not None:
                parts.append(part)
        return parts

    # ----- helpers -----

    def _infer_name(self, frame: Any) -> None:
        """Take the agent's name from the variable it is assigned to in the caller's frame."""
        if frame is None:
            return
        caller = frame.f_back
        # `run_stream` is an async context manager: contextlib's frames stand between it and the caller.
        while caller is not None and caller.f_code.co_filename in (__file__, contextlib.__file__):
            caller = caller.f_back
        if caller is None:
            return
        for scope in (caller.f_locals, caller.f_globals):
            for var_name, value in scope.items():
                if value is self:
                    self.name = var_name
                    return

    @overload
    def _resolve_model(self, model: None) -> Model: ...
    @overload
    def _resolve_model(self, model: Model | str) -> Model: ...
    def _resolve_model(self, model: Model | str | None) -> Model:
        chosen = model if model is not None else self._model
        if chosen is None:
            raise UserError('No model given: pass `model=` to the run or set a model on the Agent.')
        return infer_model(chosen)

    def __repr__(self) -> str:
        return (
            f'{type(self).__name__}(model={self.model!r}, name={self.name!r}, end_strategy={self.end_strategy!r}, '
            f'model_settings={self.model_settings!r}, output_type={self.output_type!r})'
        )


def _run_output_retries(retries: int | AgentRetries | dict[str, int] | None) -> int | None:
    """The output retry budget a run's `retries=` sets, if any.

    Raises:
        UserError: for tool retries, which a single run cannot change (they are counted per tool across the run).
    """
    if retries is None or isinstance(retries, int):
        return retries
    if 'tools' in retries:
        raise UserError(
            'Per-run `retries` cannot set tool retries: set them on the agent (`retries={"tools": n}`) or the tool.'
        )
    return retries.get('output')
