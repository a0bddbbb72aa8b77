"""A capability that records every hook it sees, and three of them composed, for the dispatch tests."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, cast

from agent._model_request_context import ModelRequestContext
from agent._parts import ModelResponse, TextPart, ToolCallPart
from agent._run_context import RunContext
from agent._tool_def import ToolDefinition
from agent.capabilities import (
    AbstractCapability,
    AgentNode,
    CombinedCapability,
    NodeResult,
    RawToolArgs,
    ValidatedToolArgs,
    WrapModelRequestHandler,
    WrapNodeRunHandler,
    WrapRunHandler,
    WrapToolExecuteHandler,
    WrapToolValidateHandler,
)
from agent.usage import RunUsage

NAMES = ('cap1', 'cap2', 'cap3')
CALL = ToolCallPart('add', {'a': 1})
TOOL_DEF = ToolDefinition(name='add')


def make_ctx() -> RunContext[Any]:
    return RunContext(deps=None, model=cast(Any, None), usage=RunUsage())


def make_request_context() -> ModelRequestContext:
    return ModelRequestContext(
        model=cast(Any, None), messages=[], model_settings=None, model_request_parameters=cast(Any, None)
    )


def text_of(response: ModelResponse) -> str:
    return '|'.join(part.content for part in response.parts if isinstance(part, TextPart))


@dataclass
class Recorder(AbstractCapability[Any]):
    """Logs every hook; `before_*`/`after_*` leave a mark on the value they pass on."""

    name: str
    log: list[str]
    recover: Any = None
    """Returned by every error hook when set."""
    transform_to: type[Exception] | None = None
    """Error hooks raise this instead of the error they got, when set."""
    before_raises: Exception | None = None
    """Raised by every `before_*` hook when set."""
    wrap_raises: Exception | None = None
    """Raised by every `wrap_*` hook (after logging its entry) when set."""

    def _enter(self, hook: str, value: Any = None) -> None:
        self.log.append(f'{hook} enter {self.name}' if value is None else f'{hook} enter {self.name} {value}')
        if self.wrap_raises is not None:
            raise self.wrap_raises

    def _before(self, hook: str) -> None:
        self.log.append(f'{hook} {self.name}')
        if self.before_raises is not None:
            raise self.before_raises

    def _error(self, hook: str, error: BaseException) -> Any:
        self.log.append(f'{hook} {self.name} {type(error).__name__}({error})')
        if self.recover is not None:
            return self.recover
        if self.transform_to is not None:
            raise self.transform_to(self.name) from error
        raise error

    async def before_run(self, ctx: RunContext[Any]) -> None:
        self._before('before_run')

    async def after_run(self, ctx: RunContext[Any], *, result: Any) -> Any:
        self.log.append(f'after_run {self.name}')
        return f'{result}>{self.name}'

    async def wrap_run(self, ctx: RunContext[Any], *, handler: WrapRunHandler) -> Any:
        self._enter('wrap_run')
        result = await handler()
        self.log.append(f'wrap_run exit {self.name} {result}')
        return result

    async def on_run_error(self, ctx: RunContext[Any], *, error: BaseException) -> Any:
        return self._error('on_run_error', error)

    async def before_node_run(self, ctx: RunContext[Any], *, node: AgentNode[Any]) -> AgentNode[Any]:
        self._before('before_node_run')
        return cast(Any, f'{node}+{self.name}')

    async def after_node_run(
        self, ctx: RunContext[Any], *, node: AgentNode[Any], result: NodeResult[Any]
    ) -> NodeResult[Any]:
        self.log.append(f'after_node_run {self.name} {node}')
        return cast(Any, f'{result}>{self.name}')

    async def wrap_node_run(
        self, ctx: RunContext[Any], *, node: AgentNode[Any], handler: WrapNodeRunHandler[Any]
    ) -> NodeResult[Any]:
        self._enter('wrap_node_run', node)
        result = await handler(node)
        self.log.append(f'wrap_node_run exit {self.name} {result}')
        return result

    async def on_node_run_error(
        self, ctx: RunContext[Any], *, node: AgentNode[Any], error: BaseException
    ) -> NodeResult[Any]:
        return self._error('on_node_run_error', error)

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self._before('before_model_request')
        return replace(request_context, messages=[*request_context.messages, cast(Any, self.name)])

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        self.log.append(f'after_model_request {self.name} {text_of(response)}')
        return ModelResponse(parts=[*response.parts, TextPart(self.name)])

    async def wrap_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, handler: WrapModelRequestHandler
    ) -> ModelResponse:
        self._enter('wrap_model_request')
        response = await handler(request_context)
        self.log.append(f'wrap_model_request exit {self.name} {text_of(response)}')
        return response

    async def on_model_request_error(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, error: Exception
    ) -> ModelResponse:
        return self._error('on_model_request_error', error)

    async def before_tool_validate(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: RawToolArgs
    ) -> RawToolArgs:
        self._before('before_tool_validate')
        return f'{args}+{self.name}'

    async def after_tool_validate(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: ValidatedToolArgs
    ) -> ValidatedToolArgs:
        self.log.append(f'after_tool_validate {self.name}')
        return {**args, 'trail': [*args.get('trail', []), self.name]}

    async def wrap_tool_validate(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: RawToolArgs,
        handler: WrapToolValidateHandler,
    ) -> ValidatedToolArgs:
        self._enter('wrap_tool_validate', args)
        validated = await handler(args)
        self.log.append(f'wrap_tool_validate exit {self.name}')
        return validated

    async def on_tool_validate_error(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: RawToolArgs, error: Exception
    ) -> ValidatedToolArgs:
        return self._error('on_tool_validate_error', error)

    async def before_tool_execute(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition, args: ValidatedToolArgs
    ) -> ValidatedToolArgs:
        self._before('before_tool_execute')
        return {**args, 'seen_by': [*args.get('seen_by', []), self.name]}

    async def after_tool_execute(
        self, ctx: RunContext[Any], *, call: Any, tool_def: Any, args: ValidatedToolArgs, result: Any
    ) -> Any:
        self.log.append(f'after_tool_execute {self.name} {result}')
        return f'{result}>{self.name}'

    async def wrap_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        handler: WrapToolExecuteHandler,
    ) -> Any:
        self._enter('wrap_tool_execute')
        result = await handler(args)
        self.log.append(f'wrap_tool_execute exit {self.name} {result}')
        return result

    async def on_tool_execute_error(
        self, ctx: RunContext[Any], *, call: Any, tool_def: Any, args: ValidatedToolArgs, error: Exception
    ) -> Any:
        return self._error('on_tool_execute_error', error)


@dataclass
class Trio:
    """Three recorders sharing one log, composed in order."""

    log: list[str] = field(default_factory=list[str])
    caps: list[Recorder] = field(init=False)

    def __post_init__(self) -> None:
        self.caps = [Recorder(name, self.log) for name in NAMES]

    @property
    def combined(self) -> CombinedCapability[Any]:
        return CombinedCapability(self.caps)
