"""A run in progress (`AgentRun`), its result (`AgentRunResult`) and the event that carries it."""

from __future__ import annotations

import asyncio
import contextvars
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import KW_ONLY, dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, Literal

from typing_extensions import TypeVar

from ._agent_graph import (
    CallToolsNode,
    GraphAgentDeps,
    GraphAgentState,
    ModelRequestNode,
    RunCheckpoint,
    UserPromptNode,
)
from ._callable_value import callable_value
from ._deferred import DeferredToolRequests
from ._enqueue import EnqueueContent, PendingMessage, PendingMessagePriority
from ._node_stream import bind_node
from ._parts import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart
from ._pending_messages import drain_pending, redirect_request
from ._run_context import RunContext
from .capabilities import run_with_node_hooks
from .exceptions import UndrainedPendingMessagesError, UserError
from .graph import End
from .messages import ModelMessagesTypeAdapter
from .result import FinalResult
from .usage import RunUsage

__all__ = ('AgentNodeT', 'AgentRun', 'AgentRunResult', 'AgentRunResultEvent')

if TYPE_CHECKING:

    class _CallableRunUsage(RunUsage):
        """What `usage` gives: a `RunUsage` that also answers the older call form `usage()` (see `callable_value`)."""

        def __call__(self) -> RunUsage: ...


DepsT = TypeVar('DepsT', default=None)
OutputT = TypeVar('OutputT', default=str)

AgentNodeT = UserPromptNode[Any, Any] | ModelRequestNode[Any, Any] | CallToolsNode[Any, Any]


@dataclass
class AgentRunResult(Generic[OutputT]):
    """The result of a finished run: its output, messages and usage."""

    output: OutputT
    """The run's output."""
    _: KW_ONLY
    # Two results are equal when their outputs are (as in Pydantic AI): the run state behind them is not compared.
    _output_tool_name: str | None = field(default=None, repr=False, compare=False)
    _state: GraphAgentState = field(default_factory=GraphAgentState, repr=False, compare=False)
    _new_message_index: int = field(default=0, repr=False, compare=False)
    _metadata: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The run's metadata (the agent's and the run's, merged), if any."""
        return self._metadata

    @property
    def response(self) -> ModelResponse:
        """The last model response of the run.

        Raises:
            ValueError: if the run made no model request (e.g. a `wrap_run` hook answered by itself).
        """
        for message in reversed(self._state.message_history):
            if isinstance(message, ModelResponse):
                return message
        raise ValueError('The run has no model response')

    def all_messages(self, *, output_tool_return_content: str | None = None) -> list[ModelMessage]:
        """Every message of the conversation, including the history the run started from."""
        messages = list(self._state.message_history)
        if output_tool_return_content is not None:
            messages = self._replace_output_return(messages, output_tool_return_content)
        return messages

    def new_messages(self, *, output_tool_return_content: str | None = None) -> list[ModelMessage]:
        """The messages produced by this run."""
        return self.all_messages(output_tool_return_content=output_tool_return_content)[self._new_message_index :]

    def all_messages_json(self) -> bytes:
        """`all_messages()` as JSON."""
        return ModelMessagesTypeAdapter.dump_json(self.all_messages())

    def new_messages_json(self) -> bytes:
        """`new_messages()` as JSON."""
        return ModelMessagesTypeAdapter.dump_json(self.new_messages())

    @property
    def usage(self) -> _CallableRunUsage:
        """Usage of the run (a copy; `usage()`, the older call form, gives the same)."""
        return callable_value(self._state.usage)  # pyright: ignore[reportReturnType]

    @property
    def run_id(self) -> str:
        """The run's id."""
        return self._state.run_id

    @property
    def conversation_id(self) -> str:
        """The conversation's id."""
        return self._state.conversation_id

    def _replace_output_return(self, messages: list[ModelMessage], content: str) -> list[ModelMessage]:
        if not self._output_tool_name or not messages or not isinstance(messages[-1], ModelRequest):
            return messages
        last = messages[-1]
        parts = [
            replace(p, content=content)
            if isinstance(p, ToolReturnPart) and p.tool_name == self._output_tool_name
            else p
            for p in last.parts
        ]
        return [*messages[:-1], replace(last, parts=parts)]


@dataclass(repr=False)
class AgentRunResultEvent(Generic[OutputT]):
    """The last event of a streamed run: the run's result."""

    result: AgentRunResult[OutputT]
    """The result."""
    _: KW_ONLY
    event_kind: Literal['agent_run_result'] = 'agent_run_result'

    def __repr__(self) -> str:
        return f'AgentRunResultEvent(result={self.result!r})'


class AgentRun(Generic[DepsT, OutputT]):
    """A run in progress, driven node by node.

    `await agent_run.next(node)` runs one node with the capabilities' node hooks around it.
    `async for node in agent_run` runs the graph's own iteration, without node hooks.
    """

    def __init__(
        self,
        state: GraphAgentState,
        deps: GraphAgentDeps[DepsT, OutputT],
        first_node: AgentNodeT,
    ) -> None:
        self._state = state
        self._deps = deps
        self._next_node: AgentNodeT | End[FinalResult[OutputT]] = first_node
        bind_node(first_node, state, deps)
        self._result: AgentRunResult[OutputT] | None = None
        # Set by the run-hooks bridge: called when the graph ends or fails, returns the final result.
        self._finish: Any = None
        # Set by the run-hooks bridge: the context variables as `before_run`/`wrap_run` left them, for the nodes.
        self._hooks_context: contextvars.Context | None = None

    @property
    def ctx(self) -> RunContext[DepsT]:
        """The current run context."""
        return self._deps.run_context(self._state)

    @property
    def state(self) -> GraphAgentState:
        """The run's state (plain data)."""
        return self._state

    @property
    def next_node(self) -> AgentNodeT | End[FinalResult[OutputT]]:
        """The node that runs next, or `End` once the run is over."""
        return self._next_node

    @property
    def result(self) -> AgentRunResult[OutputT] | None:
        """The result, once the run has ended."""
        return self._result

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The run's metadata (the agent's and the run's, merged), if any."""
        return self._deps.metadata

    def all_messages(self) -> list[ModelMessage]:
        """All messages so far."""
        return list(self._state.message_history)

    def new_messages(self) -> list[ModelMessage]:
        """The messages produced by this run so far."""
        return self.all_messages()[self._deps.new_message_index :]

    def all_messages_json(self) -> bytes:
        """`all_messages()` as JSON."""
        return ModelMessagesTypeAdapter.dump_json(self.all_messages())

    def new_messages_json(self) -> bytes:
        """`new_messages()` as JSON."""
        return ModelMessagesTypeAdapter.dump_json(self.new_messages())

    @property
    def run_id(self) -> str:
        """The run's id."""
        return self._state.run_id

    @property
    def conversation_id(self) -> str:
        """The conversation's id (shared by the runs that continue one conversation)."""
        return self._state.conversation_id

    @property
    def usage(self) -> _CallableRunUsage:
        """Usage so far (a copy; `usage()`, the older call form, gives the same)."""
        return callable_value(self._state.usage)  # pyright: ignore[reportReturnType]

    def checkpoint(self) -> RunCheckpoint:
        """Where the run stands, to continue it elsewhere as the same run (see `RunPorts.resumed_run`)."""
        state = self._state
        return RunCheckpoint(
            run_id=state.run_id,
            run_step=state.run_step,
            usage=state.usage,
            retries=state.retries,
            tool_retries=dict(state.tool_retries),
            new_message_index=self._deps.new_message_index,
        )

    @property
    def pending_messages(self) -> list[PendingMessage]:
        """The run's live queue of enqueued messages not yet delivered (for inspection; add with `enqueue`)."""
        return self._deps.pending_messages

    def enqueue(self, *content: EnqueueContent, priority: PendingMessagePriority = 'asap') -> None:
        """Queue content to be injected into this run's conversation, as `RunContext.enqueue` does.

        Call it from the event loop driving the run (from another thread, hand it over with
        `loop.call_soon_threadsafe`). Calling with no content is a no-op.

        Args:
            *content: User content, request parts or complete messages; they must end in a request.
            priority: `'asap'` delivers at the next model request (or redirects a run that would
                otherwise end); `'when_idle'` delivers only when the run would otherwise end.
        """
        pending = PendingMessage.from_content(*content, priority=priority)
        if pending is not None:
            self._deps.pending_messages.append(pending)

    async def next(self, node: AgentNodeT) -> AgentNodeT | End[FinalResult[OutputT]]:
        """Run `node` (with the capabilities' node hooks) and return the node after it (or `End`).

        Raises:
            UserError: `node` is the `End` the run already returned: there is nothing left to run.
        """
        if isinstance(node, End):
            # Otherwise a loop that never recognises the end (testing `pydantic_graph.End`, another class) would
            # get the same `End` back forever.
            raise UserError(
                'AgentRun.next() was given the End node: the run has already ended. A loop such as '
                '`while not isinstance(node, End)` must test `agent.graph.End` (not `pydantic_graph.End`, a '
                'different class), or use `Agent.is_end_node(node)`.'
            )
        if _is_graph_end(node) and isinstance(self._next_node, End):
            return self._next_node  # the `pydantic_graph.End` this method returned below: the run has ended
        graph_ends: list[Any] = []

        async def run_node(n: Any) -> Any:
            return await self._run_node(n)

        async def run_hooked() -> Any:
            result: Any = await run_with_node_hooks(self._deps.capability, self.ctx, node, run_node)
            if _is_graph_end(result):
                # Code written for Pydantic AI ends a run from a node hook with `pydantic_graph.End`.
                graph_ends.append(result)
                result = End(result.data)
            # Node hooks run after the node drained the queue: what they enqueued at the end is delivered too.
            return self._redirect_if_pending(result)

        result = await self._step(run_hooked)
        # The caller gets back the `End` its hook returned, which is what its loop tests for.
        return graph_ends[0] if graph_ends and isinstance(result, End) else result

    def __aiter__(self) -> AsyncIterator[AgentNodeT | End[FinalResult[OutputT]]]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[AgentNodeT | End[FinalResult[OutputT]]]:
        if isinstance(self._next_node, End):
            return  # the run hooks answered without running the graph (a `wrap_run` that short-circuits)
        if _wraps_nodes(self._deps.capability):
            warnings.warn(
                "`async for node in run` runs the nodes without the capabilities' `wrap_node_run` hooks (and the "
                'other node hooks); drive the run with `await run.next(node)` to have them run.',
                UserWarning,
                stacklevel=2,
            )
        yield self._next_node
        while not isinstance(self._next_node, End):
            node = await self._step(partial(self._run_node, self._next_node))
            if isinstance(node, End) and self._deps.pending_messages:
                # Ending with messages still queued would drop them without a word (e.g. the run stopped for
                # deferred tool calls, which must be answered before anything else is sent).
                raise UndrainedPendingMessagesError(
                    f'The run ended with undrained pending messages: {len(self._deps.pending_messages)} enqueued '
                    'message(s) never delivered. '
                    'Deliver them in a later run (e.g. with the deferred tool results), or do not enqueue them here.'
                )
            yield node

    async def _step(self, produce: Callable[[], Awaitable[Any]]) -> AgentNodeT | End[FinalResult[OutputT]]:
        if isinstance(self._next_node, End):
            return self._next_node
        try:
            result: AgentNodeT | End[FinalResult[OutputT]] = await self._in_hooks_context(produce)
        except Exception as error:
            if self._finish is None:
                raise
            # The run hooks may recover from the error with a result of their own.
            self._set_result(await self._finish(error=error))
            return self._next_node
        self._next_node = result
        bind_node(result, self._state, self._deps)
        if isinstance(result, End):
            if self._deps.recompute_metadata is not None:
                # Metadata computed by a function describes the run as it ended (its usage, messages, ...).
                self._deps.metadata = await self._deps.recompute_metadata(self._deps.run_context(self._state))
            final = result.data
            run_result = AgentRunResult(
                final.output,
                _output_tool_name=final.tool_name,
                _state=self._state,
                _new_message_index=self._deps.new_message_index,
                _metadata=self._deps.metadata,
            )
            self._set_result(await self._finish(result=run_result) if self._finish is not None else run_result)
        return self._next_node

    async def _in_hooks_context(self, produce: Callable[[], Awaitable[Any]]) -> Any:
        """Run one step with the context variables the run hooks set, as if they wrapped the graph in one task.

        The run hooks run in a task of their own (see `_agent_run_setup`), so a variable `wrap_run` sets would
        otherwise be invisible to the node hooks and tools of the caller's task.
        """
        if self._hooks_context is None:
            return await produce()

        async def step() -> Any:
            return await produce()

        return await asyncio.get_running_loop().create_task(step(), context=self._hooks_context)

    def _set_result(self, result: AgentRunResult[OutputT]) -> None:
        self._result = result
        self._next_node = End(FinalResult(result.output, result._output_tool_name))  # pyright: ignore[reportPrivateUsage]

    async def _run_node(self, node: AgentNodeT | End[FinalResult[OutputT]]) -> AgentNodeT | End[FinalResult[OutputT]]:
        if isinstance(node, End):
            return node
        result = await node.run(self._state, self._deps)
        return self._redirect_if_pending(result)

    def _redirect_if_pending(
        self, result: AgentNodeT | End[FinalResult[OutputT]]
    ) -> AgentNodeT | End[FinalResult[OutputT]]:
        """When the run would end but messages are queued, send them to the model instead of ending."""
        if not isinstance(result, End) or not self._deps.pending_messages:
            return result
        if isinstance(result.data.output, DeferredToolRequests):
            return result
        before, request = redirect_request(drain_pending(self._deps, self._state, at_end=True))
        self._state.message_history.extend(before)
        return ModelRequestNode(request)


def _wraps_nodes(capability: Any) -> bool:
    """Whether a capability wraps nodes in a way that iterating with `async for` (which skips node hooks) loses.

    `Instrumentation` is left out: its node wrapping only keeps the run span current, which the steps of an
    iterated run already have (they run in the context the run hooks set up).
    """
    from .capabilities import Instrumentation
    from .capabilities._ordering import collect_leaves

    return any(leaf.has_wrap_node_run and not isinstance(leaf, Instrumentation) for leaf in collect_leaves(capability))


def _is_graph_end(node: object) -> bool:
    """Whether `node` is an `End` of the separate `pydantic_graph` package (not a dependency of this one)."""
    cls = type(node)
    return cls.__name__ == 'End' and cls.__module__.partition('.')[0] == 'pydantic_graph'
