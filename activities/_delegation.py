"""Agent delegation in a durable run: a tool's `other_agent.run(...)` (or `run_sync`, `iter`, `run_stream`,
`run_stream_events`) becomes a child run of the workflow.

A tool that delegates (Pydantic AI's pattern: the tool runs another agent, passing `usage=ctx.usage`) runs in a tool
activity like any other. When it starts a run of an agent the worker serves, the run is not made there: the
activity stops the tool (`Delegate`, which user code's `except Exception` does not catch) and returns the run's
request (`DelegatedRun`). The workflow runs it as a child `AgentWorkflow` (durable step by step, able to wait for a
person, shown under the parent in the Web UI) and runs the tool's activity again with the outcome: this time the
same call returns the child's result (or raises its error) at once, and the tool goes on from there. A tool that
delegates several times is run once more per delegation, each run getting the outcomes so far, in call order.

So the code before a delegation runs again on each round, as it would on an activity retry: it must be safe to
repeat (as Temporal asks of every activity). Only the last round's usage counts, the child's included once.

The child's messages stay out of its result, and so out of the parent's history and the next round's input: most
tools read only the output. A result given to the tool holds a reference instead (the child's workflow id); the first
time the tool reads its messages (`new_messages()`, `all_messages()`, `response`, an `iter` run's nodes), the call
stops with `MessagesNeeded`, the activity reads them from the child (its `new_messages` query, which replays the
finished child on a worker) and runs the tool again with them, within the same activity attempt.

The request carries the span current where the tool called `run(...)` (its `execute_tool` span, in a traced worker),
as W3C trace context: the workflow starts the child under it, so the child's spans sit under the tool call that
started them, as in process (see `workflows._tracing`).

A run that cannot cross to another worker is refused with a one-line `UserError` saying what to change: a model
given as an object (name it as `'<provider>:<model>'`), tools, capabilities or instructions added for the one run,
or deps that do not serialize to the agent's `deps_type`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.baggage.propagation import W3CBaggagePropagator
from opentelemetry.propagators.composite import CompositePropagator
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from pydantic import TypeAdapter
from temporalio.client import Client

from agent import exceptions
from agent._agent_graph_state import GraphAgentState
from agent._content import UserContent
from agent._delegation import RunHandedOff
from agent._parts import ModelMessage, ModelResponse
from agent.exceptions import AgentRunError, UserError
from agent.models import Model
from agent.run import AgentRunResult
from agent.usage import RunUsage, UsageLimits

__all__ = (
    'TRACE_CONTEXT',
    'Delegate',
    'DelegatedRun',
    'DelegationOutcome',
    'Delegations',
    'MessagesNeeded',
    'child_messages',
)

_CROSSING = frozenset({'message_history', 'deps', 'model', 'model_settings', 'usage_limits', 'usage', 'metadata'})
"""The run arguments a delegated run takes (with `infer_name`, which only names the agent in process)."""

TRACE_CONTEXT = CompositePropagator([TraceContextTextMapPropagator(), W3CBaggagePropagator()])
"""How `DelegatedRun.trace_context` is written and read: W3C trace context and baggage, whatever the process's
global propagators are (the workflow reading it may run in another process)."""


@dataclass
class DelegatedRun:
    """A run of a served agent that a tool started: what the workflow starts as its child run."""

    agent: str
    """The registered name of the agent."""
    prompt: str | list[UserContent] | None = None
    """The user prompt."""
    message_history: list[ModelMessage] | None = None
    """Earlier messages."""
    deps: Any = None
    """The deps as data (the agent's `deps_type` validates them again in the child)."""
    model: str | None = None
    """A model name to use instead of the agent's."""
    model_settings: dict[str, Any] | None = None
    """Run-level model settings."""
    usage_limits: UsageLimits | None = None
    """Limits, checked against `usage` plus the child's own."""
    usage: RunUsage | None = None
    """The usage the tool passed (`usage=ctx.usage`: the parent's so far), which the child's limits count from."""
    metadata: dict[str, Any] | None = None
    """Run metadata."""
    trace_context: dict[str, str] | None = None
    """The span current where the tool started the run, as `TRACE_CONTEXT` headers (`traceparent`, ...): the parent
    of the child run's spans. `None` when nothing was traced."""


@dataclass
class DelegationOutcome:
    """How a delegated run ended, handed to the tool when it runs again."""

    output: Any = None
    """The child's output, as data."""
    new_messages: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """The child's messages."""
    usage: RunUsage = field(default_factory=RunUsage)
    """The child's own usage (without the `usage` it started from)."""
    run_id: str = ''
    """The child's run id."""
    conversation_id: str = ''
    """The child's conversation id."""
    error: str | None = None
    """Why the child failed (then `output` is unset)."""
    error_type: str | None = None
    """The failure's type name (`UsageLimitExceeded`, `UnexpectedModelBehavior`, ...), to raise the same kind."""
    workflow_id: str = ''
    """The child run's workflow id, where the messages its result left out are read."""
    messages_left_out: int = 0
    """How many of the child's first messages `new_messages` lacks (normally all of them: see the module's
    docstring); read from the child when the tool asks for them."""


class Delegate(RunHandedOff):
    """Stops the tool: a run it started goes to the workflow as `request`.

    A `BaseException`, so a tool's `except Exception` around its `run(...)` call lets it through; not a failure of the
    tool call's span (`RunHandedOff`).
    """

    def __init__(self, request: DelegatedRun) -> None:
        super().__init__(f'run of {request.agent!r} delegated to the workflow')
        self.request = request


class MessagesNeeded(RunHandedOff):
    """Stops a tool that reads the messages of the `index`-th run it delegated, which are not read yet.

    The activity reads them from the child run and runs the tool again. A `BaseException`, as `Delegate` is.
    """

    def __init__(self, index: int) -> None:
        super().__init__(f'the messages of delegated run {index} are read from the child run')
        self.index = index


class Delegations:
    """The `RunRedirect` of one tool call: earlier delegations answered from their outcomes, the next one sent.

    `read` holds the messages read from child runs so far, by delegation number (see `MessagesNeeded`).
    """

    def __init__(
        self,
        served: Callable[[Any], str | None],
        outcomes: Sequence[DelegationOutcome],
        read: Mapping[int, list[ModelMessage]] | None = None,
    ) -> None:
        self._served = served
        self._outcomes = outcomes
        self._read = read or {}
        self._next = 0

    async def __call__(
        self, agent: Any, user_prompt: str | Sequence[UserContent] | None, kwargs: dict[str, Any]
    ) -> AgentRunResult[Any] | None:
        name = self._served(agent)
        if name is None:
            return None  # not an agent of this worker: it runs here, inside the tool, as before
        index, self._next = self._next, self._next + 1
        if index < len(self._outcomes):
            return _result(agent, self._outcomes[index], kwargs, index, self._read.get(index))
        raise Delegate(_request(name, agent, user_prompt, kwargs))


def _request(
    name: str, agent: Any, user_prompt: str | Sequence[UserContent] | None, kwargs: dict[str, Any]
) -> DelegatedRun:
    given = {key for key, value in kwargs.items() if value is not None and key != 'infer_name'}
    if unsupported := sorted(given - _CROSSING):
        raise UserError(
            f'A durable run of {name!r} started from a tool takes only {", ".join(sorted(_CROSSING))}; '
            f'{", ".join(unsupported)} would not reach the worker that runs it: give them to the agent itself.'
        )
    model = kwargs.get('model')
    if isinstance(model, Model):
        raise UserError(
            f'A durable run of {name!r} started from a tool names its model as a string '
            f"('<provider>:<model>'), not a model object, which cannot travel to the worker that runs it."
        )
    deps = kwargs.get('deps')
    try:
        deps_data = TypeAdapter(agent.deps_type).dump_python(deps, mode='json') if deps is not None else None
    except Exception as exc:
        raise UserError(f'The deps of a durable run of {name!r} do not serialize as its deps_type: {exc}') from exc
    history = kwargs.get('message_history')
    usage = kwargs.get('usage')
    return DelegatedRun(
        agent=name,
        prompt=user_prompt if user_prompt is None or isinstance(user_prompt, str) else list(user_prompt),
        message_history=list(history) if history is not None else None,
        deps=deps_data,
        model=model,
        model_settings=kwargs.get('model_settings'),
        usage_limits=kwargs.get('usage_limits'),
        usage=RunUsage() + usage if usage is not None else None,
        metadata=kwargs.get('metadata'),
        trace_context=_trace_context(),
    )


def _trace_context() -> dict[str, str] | None:
    carrier: dict[str, str] = {}
    TRACE_CONTEXT.inject(carrier)  # nothing when no span is current (an untraced worker)
    return carrier or None


def _result(
    agent: Any, outcome: DelegationOutcome, kwargs: dict[str, Any], index: int, read: list[ModelMessage] | None
) -> AgentRunResult[Any]:
    """The child's result as the tool's `run(...)` call returns it (or its error, raised).

    Its messages are `read` (those the outcome left out, read from the child) and the outcome's; when some are left
    out and not read yet, reading them raises `MessagesNeeded`.
    """
    if outcome.error is not None:
        raise _error(outcome)
    usage: RunUsage | None = kwargs.get('usage')
    if usage is not None:
        usage.incr(outcome.usage)  # as an in-process run adds to the usage it was given
    history = list(kwargs.get('message_history') or [])
    output_type = getattr(agent, 'output_type', str)
    output = outcome.output
    if output_type is not str and output is not None:
        output = TypeAdapter(output_type).validate_python(output)
    unread = outcome.messages_left_out > 0 and read is None
    state = GraphAgentState(
        message_history=[*history, *(read or []), *outcome.new_messages],
        usage=usage if usage is not None else outcome.usage,
        run_id=outcome.run_id,
        conversation_id=outcome.conversation_id,
    )
    if unread:
        return _UnreadResult(output, _state=state, _new_message_index=len(history), _delegation=index)
    return AgentRunResult(output, _state=state, _new_message_index=len(history))


@dataclass
class _UnreadResult(AgentRunResult[Any]):
    """A child's result whose messages are not read yet: asking for them stops the tool (`MessagesNeeded`)."""

    _delegation: int = field(default=0, repr=False, compare=False)

    @property
    def response(self) -> ModelResponse:
        raise MessagesNeeded(self._delegation)

    def all_messages(self, *, output_tool_return_content: str | None = None) -> list[ModelMessage]:
        raise MessagesNeeded(self._delegation)


async def child_messages(client: Client, outcome: DelegationOutcome) -> list[ModelMessage]:
    """The messages `outcome` left out, read page by page from its child run (`AgentWorkflow`'s `new_messages`
    query)."""
    messages: list[ModelMessage] = []
    handle = client.get_workflow_handle(outcome.workflow_id)
    while len(messages) < outcome.messages_left_out:
        # The query's `MessagePage`, as the data it travels as (`workflows` is a floor above this one).
        page = {'offset': len(messages), 'limit': outcome.messages_left_out - len(messages)}
        got = await handle.query('new_messages', page, result_type=list[ModelMessage])
        if not got:
            raise RuntimeError(
                f'Child run {outcome.workflow_id} gave {len(messages)} of its {outcome.messages_left_out} messages.'
            )
        messages.extend(got)
    return messages


def _error(outcome: DelegationOutcome) -> Exception:
    """The child's failure as the exception an in-process run would have raised: its class where the agent's
    exceptions have it (or the nearest base class that takes a message alone), else `AgentRunError`."""
    message = outcome.error or 'The delegated run failed.'
    known = getattr(exceptions, outcome.error_type or '', None)
    if isinstance(known, type) and issubclass(known, AgentRunError | UserError):
        for cls in known.__mro__:
            if cls in (RuntimeError, Exception):
                break
            try:
                return cls(message)
            except TypeError:
                continue  # a constructor that wants more than a message (`ToolRetriesExhausted`): its base's
    return AgentRunError(message)
