"""The examples of the capabilities guide, run as written apart from the import rename and the model.

Hosted models are replaced by `FunctionModel`s that answer the way the guide's sample output shows.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterable
from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from agent import (
    Agent,
    AgentStreamEvent,
    ModelRequestContext,
    ModelRequestNode,
    ModelSettings,
    RunContext,
    ToolDefinition,
)
from agent.capabilities import (
    AbstractCapability,
    AgentNode,
    NodeResult,
    PrepareTools,
    WrapModelRequestHandler,
    WrapNodeRunHandler,
    WrapperCapability,
    WrapToolExecuteHandler,
)
from agent.graph import End
from agent.messages import (
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    PartStartEvent,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from agent.models import ModelProfile
from agent.models.function import AgentInfo, FunctionModel
from agent.result import FinalResult
from agent.toolsets import AbstractToolset, AgentToolset, FunctionToolset
from agent.toolsets.wrapper import WrapperToolset


def _last_tool_returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    return [p for p in last.parts if isinstance(p, ToolReturnPart)]


def call_then_answer(tool_calls: list[tuple[str, dict[str, Any]]], answer: Any) -> FunctionModel:
    """A model that first calls the given tools, then answers with `answer(tool_returns)` (or a fixed text)."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = _last_tool_returns(messages)
        last = messages[-1]
        answered = isinstance(last, ModelRequest) and any(p.part_kind == 'retry-prompt' for p in last.parts)
        if not returns and not answered and tool_calls:
            return ModelResponse(parts=[ToolCallPart(name, args) for name, args in tool_calls])
        text = cast(str, answer(returns) if callable(answer) else answer)
        return ModelResponse(parts=[TextPart(text)])

    return FunctionModel(respond)


def test_custom_capability_tools_math_tools() -> None:
    math_toolset = FunctionToolset()

    @math_toolset.tool_plain
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    @math_toolset.tool_plain
    def multiply(a: float, b: float) -> float:
        """Multiply two numbers."""
        return a * b

    @dataclass
    class MathTools(AbstractCapability[Any]):
        """Provides basic math operations."""

        def get_toolset(self) -> AgentToolset[Any] | None:
            return math_toolset

    model = call_then_answer([('add', {'a': 2, 'b': 3})], lambda returns: f'The answer is {returns[0].content}')
    agent = Agent(model, capabilities=[MathTools()])
    result = agent.run_sync('What is 2 + 3?')
    assert result.output == 'The answer is 5.0'


def test_wrapper_toolset_logs_tool_calls(capsys: pytest.CaptureFixture[str]) -> None:
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

    agent = Agent('test', capabilities=[LogToolCalls()])

    @agent.tool_plain
    def greet(name: str) -> str:
        """Greet someone."""
        return f'Hello, {name}!'

    result = agent.run_sync('hello')
    assert capsys.readouterr().out == ' Calling tool: greet\n'
    assert 'Hello, ' in result.output


def test_capability_instructions_callable_sees_run_context() -> None:
    @dataclass
    class KnowsCurrentTime(AbstractCapability[Any]):
        """Tells the agent what time it is."""

        def get_instructions(self):
            def _get_time(ctx: RunContext[Any]) -> str:
                return f'The current date and time is step {ctx.run_step}.'

            return _get_time

    seen: list[str | None] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info.instructions)
        return ModelResponse(parts=[TextPart('The current time is 3:45 PM.')])

    agent = Agent(FunctionModel(respond), capabilities=[KnowsCurrentTime()])
    result = agent.run_sync('What time is it?')
    assert result.output == 'The current time is 3:45 PM.'
    assert seen == ['The current date and time is step 1.']


def test_dynamic_settings_enable_thinking_after_first_step() -> None:
    @dataclass
    class ThinkingOnRetry(AbstractCapability[None]):
        """Enables thinking mode when the agent is retrying."""

        def get_model_settings(self):
            def resolve(ctx: RunContext[None]) -> ModelSettings:
                if ctx.run_step > 1:
                    return ModelSettings(thinking='high')
                return ModelSettings()

            return resolve

    settings_seen: list[tuple[ModelSettings | None, object]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        # A model that can think sees the unified `thinking` setting in its request parameters.
        settings_seen.append((info.model_settings, info.model_request_parameters.thinking))
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart('noop', {})])
        return ModelResponse(parts=[TextPart('Hello! How can I help you today?')])

    model = FunctionModel(respond, profile=ModelProfile(supports_thinking=True))
    agent = Agent(model, capabilities=[ThinkingOnRetry()], model_settings={'temperature': 0.5})

    @agent.tool_plain
    def noop() -> str:
        return 'ok'

    result = agent.run_sync('hello')
    assert result.output == 'Hello! How can I help you today?'
    assert settings_seen == [({'temperature': 0.5}, None), ({'temperature': 0.5}, 'high')]


def test_node_logging_records_each_node() -> None:
    @dataclass
    class NodeLogger(AbstractCapability[Any]):
        """Logs each node that executes during a run."""

        nodes: list[str] = field(default_factory=list)

        async def wrap_node_run(
            self, ctx: RunContext[Any], *, node: AgentNode[Any], handler: WrapNodeRunHandler[Any]
        ) -> NodeResult[Any]:
            self.nodes.append(type(node).__name__)
            return await handler(node)

    logger = NodeLogger()
    agent = Agent('test', capabilities=[logger])
    agent.run_sync('hello')
    assert logger.nodes == ['UserPromptNode', 'ModelRequestNode', 'CallToolsNode']


def test_node_modification_ends_run_after_max_model_requests() -> None:
    @dataclass
    class MaxModelRequests(AbstractCapability[Any]):
        """Limits the number of model requests per run by ending early."""

        max_requests: int = 5
        count: int = 0

        async def for_run(self, ctx: RunContext[Any]) -> MaxModelRequests:
            return MaxModelRequests(max_requests=self.max_requests)

        async def wrap_node_run(
            self, ctx: RunContext[Any], *, node: AgentNode[Any], handler: WrapNodeRunHandler[Any]
        ) -> NodeResult[Any]:
            if isinstance(node, ModelRequestNode):
                self.count += 1
                if self.count > self.max_requests:
                    return End(FinalResult(output='Max model requests reached'))
            return await handler(node)

    def always_call_tool(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart('again', {})])

    agent = Agent(FunctionModel(always_call_tool), capabilities=[MaxModelRequests(max_requests=2)])

    @agent.tool_plain
    def again() -> str:
        return 'call me again'

    result = agent.run_sync('loop')
    assert result.output == 'Max model requests reached'
    assert result.usage().requests == 2
    # A second run gets a fresh counter from for_run.
    assert agent.run_sync('loop').usage().requests == 2


@pytest.mark.parametrize('style', ['capability', 'prepare_tools_capability'])
def test_prepare_tools_hides_dangerous_tools(style: str) -> None:
    @dataclass
    class HideDangerousTools(AbstractCapability[Any]):
        """Hides tools matching certain name prefixes from the model."""

        hidden_prefixes: tuple[str, ...] = ('delete_', 'drop_')

        async def prepare_tools(self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
            return [td for td in tool_defs if not any(td.name.startswith(p) for p in self.hidden_prefixes)]

    async def hide_dangerous(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [td for td in tool_defs if not td.name.startswith('delete_')]

    seen: list[list[str]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append([t.name for t in info.function_tools])
        return ModelResponse(parts=[TextPart('done')])

    capability = HideDangerousTools() if style == 'capability' else PrepareTools(hide_dangerous)
    agent = Agent(FunctionModel(respond), capabilities=[capability])

    @agent.tool_plain
    def delete_file(path: str) -> str:
        """Delete a file."""
        return f'deleted {path}'

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file."""
        return f'contents of {path}'

    agent.run_sync('hello')
    assert seen == [['read_file']]


def test_hidden_tool_call_is_rejected_as_unknown() -> None:
    async def hide_delete(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [td for td in tool_defs if not td.name.startswith('delete_')]

    deleted: list[str] = []
    model = call_then_answer([('delete_file', {'path': '/etc'})], lambda returns: 'gave up')
    agent = Agent(model, capabilities=[PrepareTools(hide_delete)], retries=2)

    @agent.tool_plain
    def delete_file(path: str) -> str:
        deleted.append(path)
        return 'deleted'

    result = agent.run_sync('delete it')
    assert deleted == []
    retry = result.all_messages()[2]
    assert isinstance(retry, ModelRequest)
    assert 'Unknown tool name' in retry.parts[0].model_response()  # type: ignore[union-attr]


async def test_stream_auditor_sees_tool_calls_results_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    @dataclass
    class StreamAuditor(AbstractCapability[Any]):
        """Logs tool calls and text output during streamed runs."""

        async def wrap_run_event_stream(
            self, ctx: RunContext[Any], *, stream: AsyncIterable[AgentStreamEvent]
        ) -> AsyncIterable[AgentStreamEvent]:
            async for event in stream:
                if isinstance(event, FunctionToolCallEvent):
                    print(f'Tool called: {event.part.tool_name}')
                elif isinstance(event, FunctionToolResultEvent):
                    print(f'Tool result: {event.tool_return.content!r}')
                elif isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                    print(f'Text: {event.part.content!r}')
                yield event

    model = call_then_answer([('lookup', {'key': 'x'})], 'All done')
    agent = Agent(model, capabilities=[StreamAuditor()])

    @agent.tool_plain
    def lookup(key: str) -> str:
        return f'value of {key}'

    async with agent.run_stream_events('go') as events:
        kinds = [type(event).__name__ async for event in events]
    assert capsys.readouterr().out == "Tool called: lookup\nTool result: 'value of x'\nText: 'All done'\n"
    assert kinds[-1] == 'AgentRunResultEvent'
    assert 'FinalResultEvent' in kinds


def test_error_logger_recovers_model_errors_and_reraises_tool_errors() -> None:
    @dataclass
    class ErrorLogger(AbstractCapability[Any]):
        """Logs all errors that occur during agent runs."""

        errors: list[str] = field(default_factory=list)

        async def on_model_request_error(
            self, ctx: RunContext[Any], *, request_context: ModelRequestContext, error: Exception
        ) -> ModelResponse:
            self.errors.append(f'Model error: {error}')
            return ModelResponse(parts=[TextPart(content='Service temporarily unavailable.')])

        async def on_tool_execute_error(
            self, ctx: RunContext[Any], *, call: Any, tool_def: Any, args: dict[str, Any], error: Exception
        ) -> Any:
            self.errors.append(f'Tool {call.tool_name} failed: {error}')
            raise error

    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise ConnectionError('provider down')

    logger = ErrorLogger()
    result = Agent(FunctionModel(broken), capabilities=[logger]).run_sync('hi')
    assert result.output == 'Service temporarily unavailable.'
    assert logger.errors == ['Model error: provider down']

    tool_logger = ErrorLogger()
    agent = Agent('test', capabilities=[tool_logger])

    @agent.tool_plain
    def explode() -> str:
        raise ValueError('kaboom')

    with pytest.raises(ValueError, match='kaboom'):
        agent.run_sync('hi')
    assert tool_logger.errors == ['Tool explode failed: kaboom']


def test_audited_wrapper_capability_delegates(capsys: pytest.CaptureFixture[str]) -> None:
    @dataclass
    class AuditedCapability(WrapperCapability[Any]):
        """Wraps any capability and logs its model requests."""

        async def before_model_request(
            self, ctx: RunContext[Any], request_context: ModelRequestContext
        ) -> ModelRequestContext:
            print(f'Request from {type(self.wrapped).__name__}')
            return await super().before_model_request(ctx, request_context)

    @dataclass
    class Shout(AbstractCapability[Any]):
        async def after_model_request(
            self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
        ) -> ModelResponse:
            return ModelResponse(parts=[TextPart(response.text.upper() if response.text else '')])

    agent = Agent(call_then_answer([], 'quiet'), capabilities=[AuditedCapability(Shout())])
    assert agent.run_sync('hi').output == 'QUIET'
    assert capsys.readouterr().out == 'Request from Shout\n'


def test_per_run_state_isolation_keeps_shared_counter_at_zero() -> None:
    @dataclass
    class RequestCounter(AbstractCapability[Any]):
        """Counts model requests per run."""

        count: int = 0

        async def for_run(self, ctx: RunContext[Any]) -> RequestCounter:
            return RequestCounter()

        async def before_model_request(
            self, ctx: RunContext[Any], request_context: ModelRequestContext
        ) -> ModelRequestContext:
            self.count += 1
            return request_context

    counter = RequestCounter()
    agent = Agent('test', capabilities=[counter])
    agent.run_sync('first run')
    agent.run_sync('second run')
    assert counter.count == 0


def test_guardrail_redacts_pii_from_responses() -> None:
    @dataclass
    class PIIRedactionGuardrail(AbstractCapability[Any]):
        """Redacts email addresses and phone numbers from model responses."""

        async def after_model_request(
            self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
        ) -> ModelResponse:
            for part in response.parts:
                if isinstance(part, TextPart):
                    part.content = re.sub(
                        r'[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}', '[EMAIL REDACTED]', part.content
                    )
                    part.content = re.sub(r'\b\d{3}[-.]?\d{3}[-.]?\d{4}\b', '[PHONE REDACTED]', part.content)
            return response

    model = call_then_answer([], 'You can reach Jane at jane.doe@example.com or 555-123-4567.')
    agent = Agent(model, capabilities=[PIIRedactionGuardrail()])
    result = agent.run_sync("What's Jane's contact info?")
    assert result.output == 'You can reach Jane at [EMAIL REDACTED] or [PHONE REDACTED].'
    # The redacted text is what the history keeps, too.
    assert 'example.com' not in result.all_messages_json().decode()


def test_logging_middleware_wraps_model_requests_and_tools(capsys: pytest.CaptureFixture[str]) -> None:
    @dataclass
    class VerboseLogging(AbstractCapability[Any]):
        """Logs model requests and tool executions."""

        async def wrap_model_request(
            self, ctx: RunContext[Any], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler
        ) -> ModelResponse:
            print(f' Model request (step {ctx.run_step}, {len(request_context.messages)} messages)')
            response = await handler(request_context)
            print(f' Model response: {len(response.parts)} parts')
            return response

        async def wrap_tool_execute(
            self,
            ctx: RunContext[Any],
            *,
            call: ToolCallPart,
            tool_def: ToolDefinition,
            args: dict[str, Any],
            handler: WrapToolExecuteHandler,
        ) -> Any:
            print(f' Tool call: {call.tool_name}({args})')
            result = await handler(args)
            print(f' Tool result: {result!r}')
            return result

    agent = Agent(call_then_answer([], 'Hello! How can I help you today?'), capabilities=[VerboseLogging()])
    result = agent.run_sync('hello')
    print(f'Output: {result.output}')
    assert capsys.readouterr().out == (
        ' Model request (step 1, 1 messages)\n Model response: 1 parts\nOutput: Hello! How can I help you today?\n'
    )

    tool_agent = Agent(call_then_answer([('double', {'x': 4})], 'ok'), capabilities=[VerboseLogging()])

    @tool_agent.tool_plain
    def double(x: int) -> int:
        return x * 2

    tool_agent.run_sync('go')
    out = capsys.readouterr().out
    assert " Tool call: double({'x': 4})\n Tool result: 8\n" in out
    assert ' Model request (step 2, 3 messages)' in out


def test_hooks_see_the_running_agent_name(capsys: pytest.CaptureFixture[str]) -> None:
    @dataclass
    class LogRequest(AbstractCapability[None]):
        async def before_model_request(
            self, ctx: RunContext[None], request_context: ModelRequestContext
        ) -> ModelRequestContext:
            agent_name = ctx.agent.name if ctx.agent else 'unknown'
            print(f'[{agent_name}] Sending {len(request_context.messages)} messages')
            return request_context

    agent = Agent('test', name='my_agent', capabilities=[LogRequest()])
    agent.run_sync('hi')
    assert capsys.readouterr().out == '[my_agent] Sending 1 messages\n'


def test_thinking_capability_sets_unified_thinking_setting() -> None:
    from agent.capabilities import Thinking

    settings_seen: list[tuple[ModelSettings | None, object]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        settings_seen.append((info.model_settings, info.model_request_parameters.thinking))
        return ModelResponse(parts=[TextPart('The capital of France is Paris.')])

    model = FunctionModel(respond, profile=ModelProfile(supports_thinking=True))
    agent = Agent(model, capabilities=[Thinking(effort='high')])
    result = agent.run_sync('What is the capital of France?')
    assert result.output == 'The capital of France is Paris.'
    assert settings_seen == [(None, 'high')]


def test_thread_executor_runs_sync_tools_on_the_given_pool() -> None:
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from agent.capabilities import ThreadExecutor

    executor = ThreadPoolExecutor(max_workers=16, thread_name_prefix='agent-worker')
    agent = Agent('test', capabilities=[ThreadExecutor(executor)])
    thread_names: list[str] = []

    @agent.tool_plain
    def where() -> str:
        thread_names.append(threading.current_thread().name)
        return 'here'

    try:
        agent.run_sync('hi')
    finally:
        executor.shutdown()
    assert len(thread_names) == 1
    assert thread_names[0].startswith('agent-worker')


def test_thinking_loads_from_a_spec() -> None:
    from agent import AgentSpec
    from agent.capabilities import Thinking

    agent = Agent.from_spec(AgentSpec(model='test', capabilities=[{'Thinking': {'effort': 'low'}}]))
    assert agent.capabilities == [Thinking(effort='low')]
