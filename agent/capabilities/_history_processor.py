"""`ProcessHistory` (and its earlier name `HistoryProcessor`): rewrites the messages sent on each model request."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from agent._model_request_context import ModelRequestContext
from agent._parts import ModelMessage
from agent._run_context import RunContext
from agent._threads import call_maybe_async
from agent._tool import AgentDepsT
from agent._utils import takes_run_context

from ._abstract import AbstractCapability

__all__ = ('HistoryProcessor', 'ProcessHistory')


@dataclass
class ProcessHistory(AbstractCapability[AgentDepsT]):
    """Passes the messages of every model request through `processor` before they are sent.

    The processor takes `(messages)` or `(ctx, messages)`, sync or async, and returns the messages to
    send (e.g. the last N, or with old tool results summarized). What it returns replaces the run's
    message history, so `all_messages()` and `new_messages()` show what the model was sent; it must
    end with a request. A sync processor runs in a worker thread.

    In a durable run the processor runs in the model-request activity, next to the model (its hook is
    `before_model_request`, an activity-side hook), so it may do I/O such as asking a model for a summary;
    the activity hands the processed history back to the workflow, which adopts it as in-process.
    """

    processor: Callable[..., Any]
    """The function rewriting the messages."""
    _takes_ctx: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._takes_ctx = _takes_ctx(self.processor)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        # Takes a function, which an agent spec cannot express.
        return None

    async def before_model_request(
        self, ctx: RunContext[AgentDepsT], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        args = (ctx, request_context.messages) if self._takes_ctx else (request_context.messages,)
        messages: list[ModelMessage] = await call_maybe_async(self.processor, *args)
        return replace(request_context, messages=list(messages))


def _takes_ctx(processor: Callable[..., Any]) -> bool:
    """A first parameter annotated `RunContext` takes the context; unannotated, two required ones do."""
    if takes_run_context(processor):
        return True
    try:
        parameters = list(inspect.signature(processor).parameters.values())
    except (TypeError, ValueError):
        return False
    if not parameters or parameters[0].annotation is not inspect.Parameter.empty:
        return False
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in parameters if p.kind in positional and p.default is inspect.Parameter.empty]
    return len(required) >= 2


@dataclass
class HistoryProcessor(ProcessHistory[AgentDepsT]):
    """`ProcessHistory` under the name the capability catalogue of the specification gives it."""
