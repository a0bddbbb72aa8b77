"""What a parity case is, the scripted model its agent uses, and how it runs as `AgentWorkflow` on a dev server."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from temporalio.client import Client
from temporalio.worker import (
    Interceptor,
    StartActivityInput,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
    WorkflowOutboundInterceptor,
)

from agent import Agent
from agent.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from agent.models import ModelProfile
from agent.models.function import AgentInfo, FunctionModel
from worker import build_worker
from workflows import AgentRunInput, AgentRunOutput, AgentWorkflow

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
    profile: ModelProfile | None = None,
) -> FunctionModel:
    """First calls `calls` (unless empty), then answers with `answer` (given the tool returns, if callable)."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if see is not None:
            see(messages, info)
        if calls and len(messages) == 1:
            return ModelResponse(parts=list(calls))
        return ModelResponse(parts=[TextPart(answer(tool_returns(messages)) if callable(answer) else answer)])

    return FunctionModel(respond, profile=profile)


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
