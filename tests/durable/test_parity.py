"""The capabilities guide's examples give the same result in-process and as `AgentWorkflow` on a dev server.

Each case runs one agent both ways and compares the output, the usage, the new messages (with timestamps and
run/conversation ids normalized; tool call ids are fixed by the scripted models), what the case's hooks and
model recorded, and what they printed.

Where a durable run differs by design it is stated in the case (`durable_observed`): model-request and
tool-execute hooks run in activities on the agent's registered capabilities (without `for_run`), and a tool
activity that raises is retried by Temporal.
"""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.worker import (
    Interceptor,
    StartActivityInput,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
    WorkflowOutboundInterceptor,
)

from agent import Agent, ModelRequestContext, ModelRequestNode, ModelSettings, RunContext, ToolDefinition
from agent.capabilities import (
    AbstractCapability,
    AgentNode,
    Hooks,
    NodeResult,
    PrepareTools,
    Thinking,
    WrapModelRequestHandler,
    WrapNodeRunHandler,
    WrapperCapability,
    WrapToolExecuteHandler,
)
from agent.graph import End
from agent.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from agent.models.function import AgentInfo, FunctionModel
from agent.result import FinalResult
from agent.toolsets import AbstractToolset, AgentToolset, FunctionToolset
from agent.toolsets.wrapper import WrapperToolset
from agent.usage import RunUsage
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow

pytestmark = pytest.mark.asyncio(loop_scope='session')

SAME: Any = object()
"""`durable_observed` default: the durable run records what the in-process run records."""


@dataclass
class Case:
    """One guide example, runnable both ways."""

    agent: Agent[Any, Any]
    """The example's agent; its name is also its registered name."""
    output: Any
    """The output both runs must give."""
    observe: Callable[[], Any] = lambda: None
    """What the example's hooks and model recorded during the last run."""
    reset: Callable[[], None] = lambda: None
    """Forget what was recorded, before each run."""
    observed: Any = None
    """What the in-process run records."""
    printed: str = ''
    """What the run prints."""
    durable_observed: Any = SAME
    """What the durable run records, where that differs by design."""
    prompt: str = 'hello'
    """The user prompt."""
    fails: type[Exception] | None = None
    """The exception an in-process run raises (the durable run then fails with the same error)."""

    @property
    def name(self) -> str:
        assert self.agent.name is not None
        return self.agent.name


@dataclass
class Log:
    """A list the example's model and hooks append to."""

    entries: list[Any] = field(default_factory=list[Any])

    def observe(self) -> list[Any]:
        return list(self.entries)

    def reset(self) -> None:
        self.entries.clear()


def tool_returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    last = messages[-1]
    return [p for p in last.parts if isinstance(p, ToolReturnPart)] if isinstance(last, ModelRequest) else []


def call_then_answer(
    calls: list[ToolCallPart],
    answer: str | Callable[[list[ToolReturnPart]], str],
    see: Callable[[list[ModelMessage], AgentInfo], object] | None = None,
) -> FunctionModel:
    """First calls `calls` (unless empty), then answers with `answer` (given the tool returns, if callable)."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if see is not None:
            see(messages, info)
        if calls and len(messages) == 1:
            return ModelResponse(parts=list(calls))
        return ModelResponse(parts=[TextPart(answer(tool_returns(messages)) if callable(answer) else answer)])

    return FunctionModel(respond)


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
    model = call_then_answer(
        [ToolCallPart('noop', {}, 'noop-1')],
        'Hello! How can I help you today?',
        see=lambda _, info: log.entries.append(info.model_settings),
    )
    agent = Agent(
        model, capabilities=[ThinkingOnRetry()], model_settings={'temperature': 0.5}, name='parity_thinking_on_retry'
    )

    @agent.tool_plain
    def noop() -> str:
        return 'ok'

    settings = [{'temperature': 0.5}, {'temperature': 0.5, 'thinking': 'high'}]
    return Case(agent, 'Hello! How can I help you today?', log.observe, log.reset, settings)


def node_logger() -> Case:
    @dataclass
    class NodeLogger(AbstractCapability[Any]):
        """Logs each node that executes during a run."""

        nodes: list[str] = field(default_factory=list[str])

        async def wrap_node_run(
            self, ctx: RunContext[Any], *, node: AgentNode[Any], handler: WrapNodeRunHandler[Any]
        ) -> NodeResult[Any]:
            self.nodes.append(type(node).__name__)
            return await handler(node)

    logger = NodeLogger()
    model = call_then_answer([ToolCallPart('noop', {}, 'noop-1')], 'done')
    agent = Agent(model, capabilities=[logger], name='parity_node_logger')

    @agent.tool_plain
    def noop() -> str:
        return 'ok'

    nodes = ['UserPromptNode', 'ModelRequestNode', 'CallToolsNode', 'ModelRequestNode', 'CallToolsNode']
    return Case(agent, 'done', lambda: list(logger.nodes), logger.nodes.clear, nodes)


def max_model_requests() -> Case:
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
        return ModelResponse(parts=[ToolCallPart('again', {}, f'again-{len(messages)}')])

    registered = MaxModelRequests(max_requests=2)
    agent = Agent(FunctionModel(always_call_tool), capabilities=[registered], name='parity_max_model_requests')

    @agent.tool_plain
    def again() -> str:
        return 'call me again'

    # The registered instance never counts: each run counts on its own `for_run` copy.
    return Case(agent, 'Max model requests reached', lambda: registered.count, lambda: None, 0, prompt='loop')


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


@dataclass
class ErrorLogger(AbstractCapability[Any]):
    """Logs all errors that occur during agent runs."""

    errors: list[str] = field(default_factory=list[str])

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


def error_logger_model() -> Case:
    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise ConnectionError('provider down')

    logger = ErrorLogger()
    agent = Agent(FunctionModel(broken), capabilities=[logger], name='parity_error_logger_model')
    observed = ['Model error: provider down']
    return Case(agent, 'Service temporarily unavailable.', lambda: list(logger.errors), logger.errors.clear, observed)


def error_logger_tool() -> Case:
    logger = ErrorLogger()
    model = call_then_answer([ToolCallPart('explode', {}, 'boom-1')], 'unreachable')
    agent = Agent(model, capabilities=[logger], name='parity_error_logger_tool')

    @agent.tool_plain
    def explode() -> str:
        raise ValueError('kaboom')

    failed = 'Tool explode failed: kaboom'
    # The tool activity is retried (three attempts) before the run fails, and the hook sees every attempt.
    return Case(
        agent,
        None,
        lambda: list(logger.errors),
        logger.errors.clear,
        [failed],
        durable_observed=[failed] * 3,
        fails=ValueError,
    )


def audited_capability() -> Case:
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

    agent = Agent(call_then_answer([], 'quiet'), capabilities=[AuditedCapability(Shout())], name='parity_audited')
    return Case(agent, 'QUIET', printed='Request from Shout\n', prompt='hi')


def request_counter() -> Case:
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
    model = call_then_answer([ToolCallPart('noop', {}, 'noop-1')], 'counted')
    agent = Agent(model, capabilities=[counter], name='parity_request_counter')

    @agent.tool_plain
    def noop() -> str:
        return 'ok'

    def reset() -> None:
        counter.count = 0

    # Model-request hooks run in the activity on the registered instance: `for_run` does not apply there.
    return Case(agent, 'counted', lambda: counter.count, reset, 0, durable_observed=2)


def pii_redaction() -> Case:
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
    agent = Agent(model, capabilities=[PIIRedactionGuardrail()], name='parity_pii_redaction')
    output = 'You can reach Jane at [EMAIL REDACTED] or [PHONE REDACTED].'
    return Case(agent, output, prompt="What's Jane's contact info?")


def verbose_logging() -> Case:
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

    model = call_then_answer([ToolCallPart('double', {'x': 4}, 'double-1')], 'ok')
    agent = Agent(model, capabilities=[VerboseLogging()], name='parity_verbose_logging')

    @agent.tool_plain
    def double(x: int) -> int:
        return x * 2

    printed = (
        ' Model request (step 1, 1 messages)\n Model response: 1 parts\n'
        " Tool call: double({'x': 4})\n Tool result: 8\n"
        ' Model request (step 2, 3 messages)\n Model response: 1 parts\n'
    )
    return Case(agent, 'ok', printed=printed, prompt='go')


def thinking() -> Case:
    log = Log()
    model = call_then_answer(
        [], 'The capital of France is Paris.', see=lambda _, info: log.entries.append(info.model_settings)
    )
    agent = Agent(model, capabilities=[Thinking(effort='high')], name='parity_thinking')
    return Case(
        agent, 'The capital of France is Paris.', log.observe, log.reset, [{'thinking': 'high'}], prompt='Capital?'
    )


def hooks() -> Case:
    hooks = Hooks[None]()

    @hooks.on.before_model_request
    async def log_request(ctx: RunContext[None], request_context: ModelRequestContext) -> ModelRequestContext:
        agent_name = ctx.agent.name if ctx.agent else 'unknown'
        print(f'[{agent_name}] Sending {len(request_context.messages)} messages')
        return request_context

    agent = Agent(call_then_answer([], 'hi there'), name='parity_hooks', capabilities=[hooks])
    return Case(agent, 'hi there', printed='[parity_hooks] Sending 1 messages\n')


CASES = [
    math_tools(),
    log_tool_calls(),
    knows_current_time(),
    thinking_on_retry(),
    node_logger(),
    max_model_requests(),
    prepare_tools_case('capability'),
    prepare_tools_case('prepare_tools_capability'),
    error_logger_model(),
    error_logger_tool(),
    audited_capability(),
    request_counter(),
    pii_redaction(),
    verbose_logging(),
    thinking(),
    hooks(),
]

VOLATILE = frozenset({'timestamp', 'run_id', 'conversation_id'})


def normalized(messages: list[ModelMessage]) -> Any:
    """The messages as JSON, with the fields that differ between any two runs blanked."""

    def blank(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: '<volatile>' if k in VOLATILE and v is not None else blank(v) for k, v in value.items()}
        if isinstance(value, list):
            return [blank(v) for v in value]
        return value

    return blank(ModelMessagesTypeAdapter.dump_python(messages, mode='json'))


class QuickRetries(Interceptor):
    """Shortens the wait between activity attempts (the number of attempts stays the workflow's)."""

    def workflow_interceptor_class(self, input: WorkflowInterceptorClassInput) -> type[WorkflowInboundInterceptor]:
        return _QuickRetriesInbound


class _QuickRetriesInbound(WorkflowInboundInterceptor):
    def init(self, outbound: WorkflowOutboundInterceptor) -> None:
        super().init(_QuickRetriesOutbound(outbound))


class _QuickRetriesOutbound(WorkflowOutboundInterceptor):
    def start_activity(self, input: StartActivityInput) -> Any:
        if input.retry_policy is not None:
            input.retry_policy = dataclasses.replace(input.retry_policy, initial_interval=timedelta(milliseconds=10))
        return super().start_activity(input)


async def run_durably(client: Client, task_queue: str, case: Case) -> AgentRunOutput:
    async with build_worker(client, {case.name: case.agent}, task_queue=task_queue, interceptors=[QuickRetries()]):
        return await client.execute_workflow(
            AgentWorkflow.run,
            AgentRunInput(agent=case.name, prompt=case.prompt),
            id=f'parity-{uuid.uuid4()}',
            task_queue=task_queue,
        )


@pytest.mark.parametrize('case', CASES, ids=[case.name.removeprefix('parity_') for case in CASES])
async def test_guide_example_gives_the_same_run_in_process_and_durably(
    case: Case, client: Client, task_queue: str, capsys: pytest.CaptureFixture[str]
) -> None:
    case.reset()
    capsys.readouterr()
    if case.fails is not None:
        with pytest.raises(case.fails) as raised:
            await case.agent.run(case.prompt)
        in_process_observed = case.observe()
        in_process_printed = capsys.readouterr().out

        case.reset()
        with pytest.raises(WorkflowFailureError) as failure:
            await run_durably(client, task_queue, case)
        activity_error = failure.value.cause
        assert isinstance(activity_error, ActivityError)
        cause = activity_error.cause
        assert isinstance(cause, ApplicationError)
        assert (cause.type, cause.message) == (type(raised.value).__name__, str(raised.value))
    else:
        local = await case.agent.run(case.prompt)
        in_process_observed = case.observe()
        in_process_printed = capsys.readouterr().out

        case.reset()
        durable = await run_durably(client, task_queue, case)
        assert local.output == case.output
        assert durable.output == local.output
        assert normalized(durable.new_messages) == normalized(local.new_messages())
        assert durable.usage == local.usage()
        assert durable.usage != RunUsage()

    assert in_process_observed == case.observed
    expected_durable = case.observed if case.durable_observed is SAME else case.durable_observed
    assert case.observe() == expected_durable
    assert in_process_printed == case.printed
    assert capsys.readouterr().out == case.printed
