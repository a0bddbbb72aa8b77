"""Parity cases for capability hooks: node, model-request and tool-execute hooks, error hooks and wrappers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agent import Agent, ModelRequestContext, ModelRequestNode, RunContext, ToolDefinition
from agent.capabilities import (
    AbstractCapability,
    AgentNode,
    Hooks,
    NodeResult,
    WrapModelRequestHandler,
    WrapNodeRunHandler,
    WrapperCapability,
    WrapToolExecuteHandler,
)
from agent.graph import End
from agent.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel
from agent.result import FinalResult

from ._parity_harness import Case, call_then_answer


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

    # Model-request hooks run in the activity, on the run's own `for_run` copy there too.
    return Case(agent, 'counted', lambda: counter.count, reset, 0)


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


def hooks() -> Case:
    hooks = Hooks[None]()

    @hooks.on.before_model_request
    async def log_request(ctx: RunContext[None], request_context: ModelRequestContext) -> ModelRequestContext:
        agent_name = ctx.agent.name if ctx.agent else 'unknown'
        print(f'[{agent_name}] Sending {len(request_context.messages)} messages')
        return request_context

    agent = Agent(call_then_answer([], 'hi there'), name='parity_hooks', capabilities=[hooks])
    return Case(agent, 'hi there', printed='[parity_hooks] Sending 1 messages\n')
