"""Exceptions raised by the agent runtime.

There are three families, and code that catches them should know which one it is dealing with:

```
BaseException
├── ControlFlowSignal                 (handled by the run loop, never escapes a run)
│   ├── ModelRetry                    ask the model to try again
│   ├── ApprovalRequired              defer a tool call until a human approves it
│   ├── CallDeferred                  defer a tool call to be executed outside the run
│   ├── SkipModelRequest              use a supplied response instead of calling the model
│   ├── SkipToolValidation            use supplied arguments instead of validating
│   └── SkipToolExecution             use a supplied result instead of running the tool
├── UserError                         the developer misused the API (a RuntimeError)
│   └── UndrainedPendingMessagesError a node-by-node run ended with enqueued messages never delivered
├── AgentRunError                     a run failed
│   ├── UsageLimitExceeded
│   ├── ConcurrencyLimitExceeded      too many callers were already waiting for a concurrency slot
│   ├── UnexpectedModelBehavior
│   │   ├── ToolRetriesExhausted      a tool kept failing after its retries
│   │   ├── ContentFilterError        the provider's content filter left the response empty
│   │   └── IncompleteToolCall        the token limit cut a tool call's arguments short
│   └── ModelAPIError
│       └── ModelHTTPError            a provider answered with an HTTP error status
├── ToolRetryError                    carries a tool's retry prompt through `wrap_tool_*` handlers
├── ToolFailed                        the result of an external call that failed (`DeferredToolResults.calls`)
└── FallbackExceptionGroup            every model of a `FallbackModel` failed (an `ExceptionGroup`)
```

Control-flow signals are `Exception` subclasses so that they travel through user code and
`asyncio` machinery unchanged, but the run loop always catches them before they reach the caller.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from .messages import ModelResponse, RetryPromptPart

__all__ = (
    'AgentRunError',
    'ApprovalRequired',
    'CallDeferred',
    'ConcurrencyLimitExceeded',
    'ContentFilterError',
    'ControlFlowSignal',
    'FallbackExceptionGroup',
    'IncompleteToolCall',
    'ModelAPIError',
    'ModelHTTPError',
    'ModelRetry',
    'SkipModelRequest',
    'SkipToolExecution',
    'SkipToolValidation',
    'ToolFailed',
    'ToolRetriesExhausted',
    'ToolRetryError',
    'UndrainedPendingMessagesError',
    'UnexpectedModelBehavior',
    'UsageLimitExceeded',
    'UserError',
)


class ControlFlowSignal(Exception):
    """Base of the exceptions the run loop handles itself; they never escape a run."""


class ModelRetry(ControlFlowSignal):
    """Raised by a tool, args validator or output validator to ask the model to try again.

    The message is sent back to the model in a `RetryPromptPart`.
    """

    message: str
    """The message returned to the model."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ModelRetry) and other.message == self.message

    def __hash__(self) -> int:
        return hash((type(self), self.message))

    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, _handler: Any) -> Any:
        # Lets a `ModelRetry` be part of `DeferredToolResults.calls` and survive a JSON round trip.
        return _message_result_schema(cls, 'model-retry')


class ApprovalRequired(ControlFlowSignal):
    """Raised by a tool to defer the call until a human approves it.

    The call ends up in `DeferredToolRequests.approvals`; when it is approved the tool runs again with
    `ctx.tool_call_approved=True`.
    """

    metadata: dict[str, Any] | None
    """Metadata attached to the request, surfaced in `DeferredToolRequests.metadata`."""

    def __init__(self, metadata: dict[str, Any] | None = None) -> None:
        self.metadata = metadata
        super().__init__('Tool call requires approval')


class CallDeferred(ControlFlowSignal):
    """Raised by a tool to defer the call to be executed outside the agent run.

    The call ends up in `DeferredToolRequests.calls`; its result is supplied later through
    `DeferredToolResults.calls`.
    """

    metadata: dict[str, Any] | None
    """Metadata attached to the request, surfaced in `DeferredToolRequests.metadata`."""

    def __init__(self, metadata: dict[str, Any] | None = None) -> None:
        self.metadata = metadata
        super().__init__('Tool call was deferred')


class ToolFailed(Exception):
    """A tool call that is done and failed, reported to the model as a failed result rather than a retry.

    Give it as the result of an external call (a value of `DeferredToolResults.calls`): the model gets the call's
    return with `outcome='failed'` and this message as its content, and no tool retry is counted. Unlike
    `ModelRetry`, it does not ask the model to try again. (Pydantic AI 2.x also lets a tool function raise it; here a
    tool that raises it fails the run like any other exception.)
    """

    message: str
    """The failure message returned to the model."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolFailed) and other.message == self.message

    def __hash__(self) -> int:
        return hash((type(self), self.message))

    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, _handler: Any) -> Any:
        # Lets a `ToolFailed` be part of `DeferredToolResults.calls` and survive a JSON round trip.
        return _message_result_schema(cls, 'tool-failed')


class SkipModelRequest(ControlFlowSignal):
    """Raised from `before_model_request` or `wrap_model_request` to skip the model call."""

    response: ModelResponse
    """The response to use instead of calling the model."""

    def __init__(self, response: ModelResponse) -> None:
        self.response = response
        super().__init__('Model request skipped')


class SkipToolValidation(ControlFlowSignal):
    """Raised from `before_tool_validate` or `wrap_tool_validate` to skip argument validation."""

    def __init__(self, args: dict[str, Any]) -> None:
        super().__init__('Tool validation skipped')
        self._validated_args = args

    @property
    def args(self) -> dict[str, Any]:  # pyright: ignore[reportIncompatibleVariableOverride]
        """The already-validated arguments to use.

        (`BaseException.args` would turn a dict into a tuple, so the arguments are kept separately.)
        """
        return self._validated_args


class SkipToolExecution(ControlFlowSignal):
    """Raised from `before_tool_execute` or `wrap_tool_execute` to skip running the tool."""

    result: Any
    """The tool result to use instead of running the tool."""

    def __init__(self, result: Any) -> None:
        self.result = result
        super().__init__('Tool execution skipped')


class UserError(RuntimeError):
    """The developer used the API incorrectly; the message says what was wrong and what to do."""

    message: str

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class UndrainedPendingMessagesError(UserError):
    """A run driven by `async for node in agent_run` ended while enqueued messages were still waiting.

    The messages could not be delivered (e.g. the run ended with deferred tool calls, which must be answered
    before anything else is sent); they are reported rather than silently dropped.
    """


class AgentRunError(RuntimeError):
    """Base class for errors that fail an agent run."""

    message: str

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)

    def __str__(self) -> str:
        return self.message


class UsageLimitExceeded(AgentRunError):
    """A `UsageLimits` limit was (or would be) exceeded."""


class ConcurrencyLimitExceeded(AgentRunError):
    """A concurrency limiter's queue of waiting callers was already full (its `max_queued`)."""


class UnexpectedModelBehavior(AgentRunError):
    """The model behaved in a way the run cannot continue from (e.g. retries exhausted)."""

    body: str | None
    """The offending content, if any."""

    def __init__(self, message: str, body: str | None = None) -> None:
        self.body = body
        super().__init__(message)

    def __str__(self) -> str:
        return f'{self.message}, body:\n{self.body}' if self.body else self.message


class ToolRetriesExhausted(UnexpectedModelBehavior):
    """A tool (or the output) failed more times than its `max_retries` allows."""

    tool_name: str
    """The tool that kept failing (the output tool's name for output retries)."""

    def __init__(self, tool_name: str, max_retries: int, last_error: RetryPromptPart | None = None) -> None:
        self.tool_name = tool_name
        self.last_error = last_error
        detail = f': {last_error.model_response()}' if last_error is not None else ''
        super().__init__(f'Tool {tool_name!r} exceeded max retries count of {max_retries}{detail}')


class ContentFilterError(UnexpectedModelBehavior):
    """The provider's content filter stopped the response, leaving nothing to continue the run with."""


class IncompleteToolCall(UnexpectedModelBehavior):
    """The model hit its token limit while writing a tool call, so the call's arguments are cut short.

    Raise `max_tokens` (or ask for less) and run again.
    """


class ModelAPIError(AgentRunError):
    """A model provider's API failed (connection error, malformed response, ...)."""

    model_name: str
    """The model the request was sent to."""

    def __init__(self, model_name: str, message: str) -> None:
        self.model_name = model_name
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        # The default pickling passes only the message back to `__init__`, which also needs the model name.
        return type(self), (self.model_name, self.message)


class ModelHTTPError(ModelAPIError):
    """A model provider answered with an HTTP error status (4xx or 5xx)."""

    status_code: int
    """The HTTP status code."""
    body: object | None
    """The decoded response body, if any."""
    retry_after: float | None
    """Seconds the provider asked us to wait before retrying (from `retry-after`), if given."""

    def __init__(
        self, status_code: int, model_name: str, body: object | None = None, *, retry_after: float | None = None
    ) -> None:
        self.status_code = status_code
        self.body = body
        self.retry_after = retry_after
        super().__init__(model_name, f'status_code: {status_code}, model_name: {model_name}, body: {body}')

    def __reduce__(self) -> tuple[Any, ...]:
        return partial(type(self), retry_after=self.retry_after), (self.status_code, self.model_name, self.body)

    @property
    def retryable(self) -> bool:
        """Whether retrying the same request may succeed (408, 409, 429 and 5xx)."""
        return self.status_code in (408, 409, 429) or self.status_code >= 500


class FallbackExceptionGroup(ExceptionGroup[Any]):
    """Raised by `FallbackModel` when every one of its models failed: one exception per model, in order."""


class ToolRetryError(Exception):
    """Carries a tool's retry prompt (bad arguments, or a `ModelRetry` from the tool) to whoever handles it.

    Raised by the handlers passed to `wrap_tool_validate` and `wrap_tool_execute` hooks when the call should go
    back to the model as a `RetryPromptPart`; a hook may catch it to inspect or replace the retry. The message is
    the prompt's text, or a summary of its validation errors.
    """

    tool_retry: RetryPromptPart
    """The retry prompt that will be sent to the model."""

    def __init__(self, tool_retry: RetryPromptPart) -> None:
        self.tool_retry = tool_retry
        super().__init__(_retry_message(tool_retry))

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        # The default pickling passes the message back to `__init__`, which expects the part.
        return type(self), (self.tool_retry,)


def _retry_message(part: RetryPromptPart) -> str:
    if isinstance(part.content, str):
        return part.content
    errors = part.content
    target = f' for {part.tool_name!r}' if part.tool_name else ''
    lines = [f'{len(errors)} validation error{"" if len(errors) == 1 else "s"}{target}']
    for error in errors:
        location = '.'.join(str(item) for item in error['loc']) or '__root__'
        # Like pydantic's own rendering: the offending input is shown when the error carries it.
        shown_input = f', input_value={error["input"]!r}' if 'input' in error else ''
        lines.append(f'{location}\n  {error["msg"]} [type={error["type"]}{shown_input}]')
    return '\n'.join(lines)


def _message_result_schema(cls: type[Any], kind: str) -> Any:
    """The pydantic schema of a result that is a message with a kind: the instance, or `{'message', 'kind'}` data."""
    from pydantic_core import core_schema

    def from_data(data: Any) -> Any:
        return cls(cast('dict[str, Any]', data)['message']) if isinstance(data, dict) else data

    fields = {
        'message': core_schema.typed_dict_field(core_schema.str_schema()),
        'kind': core_schema.typed_dict_field(core_schema.literal_schema([kind]), required=False),
    }
    return core_schema.no_info_after_validator_function(
        from_data,
        core_schema.union_schema([core_schema.is_instance_schema(cls), core_schema.typed_dict_schema(fields)]),
        serialization=core_schema.plain_serializer_function_ser_schema(
            lambda result: {'message': result.message, 'kind': kind}
        ),
    )
