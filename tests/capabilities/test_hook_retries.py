"""`ModelRetry` raised by wrap hooks: the model is asked again, and what it already answered stays in the history."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent import Agent, ModelRequestContext, ModelRetry, RunContext
from agent.capabilities import AbstractCapability, WrapModelRequestHandler, WrapToolExecuteHandler
from agent.messages import ModelMessage, ModelRequest, ModelResponse, RetryPromptPart, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel
from agent.tools import ToolDefinition


async def test_a_response_a_wrap_hook_rejects_stays_in_the_history_before_the_retry_prompt() -> None:
    answers = iter(['first', 'second'])

    @dataclass
    class RejectFirst(AbstractCapability[Any]):
        rejected: bool = False

        async def wrap_model_request(
            self, ctx: RunContext[Any], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler
        ) -> ModelResponse:
            response = await handler(request_context)
            if not self.rejected:
                self.rejected = True
                raise ModelRetry('Not good enough.')
            return response

    model = FunctionModel(lambda _m, _i: ModelResponse(parts=[TextPart(next(answers))]))
    result = await Agent(model, capabilities=[RejectFirst()]).run('go')

    assert result.output == 'second'
    shapes = [
        (type(m).__name__, [getattr(p, 'content', None) for p in m.parts if not isinstance(p, ToolCallPart)])
        for m in result.all_messages()
    ]
    assert shapes == [
        ('ModelRequest', ['go']),
        ('ModelResponse', ['first']),
        ('ModelRequest', ['Not good enough.']),
        ('ModelResponse', ['second']),
    ]


async def test_a_retry_from_wrap_tool_execute_skips_the_execute_error_hooks() -> None:
    errors: list[BaseException] = []

    @dataclass
    class RetryTools(AbstractCapability[Any]):
        async def wrap_tool_execute(
            self,
            ctx: RunContext[Any],
            *,
            call: ToolCallPart,
            tool_def: ToolDefinition,
            args: dict[str, Any],
            handler: WrapToolExecuteHandler,
        ) -> Any:
            raise ModelRetry('Use another tool.')

        async def on_tool_execute_error(
            self,
            ctx: RunContext[Any],
            *,
            call: ToolCallPart,
            tool_def: ToolDefinition,
            args: dict[str, Any],
            error: Exception,
        ) -> Any:
            errors.append(error)
            raise error

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        retried = [
            p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, RetryPromptPart)
        ]
        if retried:
            return ModelResponse(parts=[TextPart(str(retried[0].content))])
        return ModelResponse(parts=[ToolCallPart('ping', {}, 'c1')])

    agent = Agent(FunctionModel(model), capabilities=[RetryTools()])

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    result = await agent.run('go')

    assert result.output == 'Use another tool.'
    assert errors == []
