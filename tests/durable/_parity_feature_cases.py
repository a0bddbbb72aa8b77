"""Parity cases for what capabilities contribute: toolsets, instructions, model settings and tool preparation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent import Agent, ModelSettings, RunContext, ToolDefinition
from agent.capabilities import AbstractCapability, PrepareTools, Thinking
from agent.messages import ToolCallPart
from agent.models import ModelProfile
from agent.toolsets import AbstractToolset, AgentToolset, FunctionToolset
from agent.toolsets.wrapper import WrapperToolset

from ._parity_harness import Case, Log, call_then_answer

THINKS = ModelProfile(supports_thinking=True)
"""The profile of a model that can think, so the `thinking` setting reaches it."""


def math_tools() -> Case:
    math_toolset = FunctionToolset()

    @math_toolset.tool_plain
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    @dataclass
    class MathTools(AbstractCapability[Any]):
        """Provides basic math operations."""

        def get_toolset(self) -> AgentToolset[Any] | None:
            return math_toolset

    log = Log()
    model = call_then_answer(
        [ToolCallPart('add', {'a': 2, 'b': 3}, 'add-1')],
        lambda returns: f'The answer is {returns[0].content}',
        see=lambda _, info: log.entries.append([t.name for t in info.function_tools]),
    )
    agent = Agent(model, capabilities=[MathTools()], name='parity_math_tools')
    return Case(agent, 'The answer is 5.0', log.observe, log.reset, [['add'], ['add']], prompt='What is 2 + 3?')


def log_tool_calls() -> Case:
    @dataclass
    class LoggingToolset(WrapperToolset[Any]):
        """Logs all tool calls."""

        async def call_tool(self, tool_name: str, tool_args: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
            print(f' Calling tool: {tool_name}')
            return await super().call_tool(tool_name, tool_args, *args, **kwargs)

    @dataclass
    class LogToolCalls(AbstractCapability[Any]):
        """Wraps the agent's toolset to log all tool calls."""

        def get_wrapper_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any]:
            return LoggingToolset(wrapped=toolset)

    model = call_then_answer([ToolCallPart('greet', {'name': 'Ada'}, 'greet-1')], lambda r: str(r[0].content))
    agent = Agent(model, capabilities=[LogToolCalls()], name='parity_log_tool_calls')

    @agent.tool_plain
    def greet(name: str) -> str:
        """Greet someone."""
        return f'Hello, {name}!'

    return Case(agent, 'Hello, Ada!', printed=' Calling tool: greet\n')


def knows_current_time() -> Case:
    @dataclass
    class KnowsCurrentTime(AbstractCapability[Any]):
        """Tells the agent what step of the run it is."""

        def get_instructions(self):
            def _get_time(ctx: RunContext[Any]) -> str:
                return f'The current date and time is step {ctx.run_step}.'

            return _get_time

    log = Log()
    model = call_then_answer(
        [ToolCallPart('noop', {}, 'noop-1')],
        'The current time is 3:45 PM.',
        see=lambda _, info: log.entries.append(info.instructions),
    )
    agent = Agent(model, capabilities=[KnowsCurrentTime()], name='parity_knows_current_time')

    @agent.tool_plain
    def noop() -> str:
        return 'ok'

    steps = ['The current date and time is step 1.', 'The current date and time is step 2.']
    return Case(agent, 'The current time is 3:45 PM.', log.observe, log.reset, steps, prompt='What time is it?')


def thinking_on_retry() -> Case:
    @dataclass
    class ThinkingOnRetry(AbstractCapability[None]):
        """Enables thinking mode after the first step."""

        def get_model_settings(self):
            def resolve(ctx: RunContext[None]) -> ModelSettings:
                return ModelSettings(thinking='high') if ctx.run_step > 1 else ModelSettings()

            return resolve

    log = Log()
    # The model sees the unified `thinking` setting in its request parameters (a model that can think).
    model = call_then_answer(
        [ToolCallPart('noop', {}, 'noop-1')],
        'Hello! How can I help you today?',
        see=lambda _, info: log.entries.append((info.model_settings, info.model_request_parameters.thinking)),
        profile=THINKS,
    )
    agent = Agent(
        model, capabilities=[ThinkingOnRetry()], model_settings={'temperature': 0.5}, name='parity_thinking_on_retry'
    )

    @agent.tool_plain
    def noop() -> str:
        return 'ok'

    settings = [({'temperature': 0.5}, None), ({'temperature': 0.5}, 'high')]
    return Case(agent, 'Hello! How can I help you today?', log.observe, log.reset, settings)


def prepare_tools_case(style: str) -> Case:
    @dataclass
    class HideDangerousTools(AbstractCapability[Any]):
        """Hides tools matching certain name prefixes from the model."""

        hidden_prefixes: tuple[str, ...] = ('delete_', 'drop_')

        async def prepare_tools(self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
            return [td for td in tool_defs if not any(td.name.startswith(p) for p in self.hidden_prefixes)]

    async def hide_dangerous(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [td for td in tool_defs if not td.name.startswith('delete_')]

    log = Log()
    # The model calls the hidden tool anyway: it is rejected as unknown, and the visible one runs.
    model = call_then_answer(
        [ToolCallPart('delete_file', {'path': '/etc'}, 'del-1'), ToolCallPart('read_file', {'path': 'a'}, 'read-1')],
        lambda returns: '; '.join(str(r.content) for r in returns),
        see=lambda _, info: log.entries.append([t.name for t in info.function_tools]),
    )
    capability = HideDangerousTools() if style == 'capability' else PrepareTools(hide_dangerous)
    agent = Agent(model, capabilities=[capability], name=f'parity_prepare_tools_{style}')

    @agent.tool_plain
    def delete_file(path: str) -> str:
        """Delete a file."""
        log.entries.append(f'deleted {path}')
        return f'deleted {path}'

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file."""
        return f'contents of {path}'

    return Case(agent, 'contents of a', log.observe, log.reset, [['read_file'], ['read_file']])


def thinking() -> Case:
    log = Log()
    model = call_then_answer(
        [],
        'The capital of France is Paris.',
        see=lambda _, info: log.entries.append((info.model_settings, info.model_request_parameters.thinking)),
        profile=THINKS,
    )
    agent = Agent(model, capabilities=[Thinking(effort='high')], name='parity_thinking')
    return Case(agent, 'The capital of France is Paris.', log.observe, log.reset, [(None, 'high')], prompt='Capital?')
