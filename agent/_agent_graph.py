"""The agent graph: `UserPromptNode` -> `ModelRequestNode` -> `CallToolsNode` -> ... -> `End`.

All run state lives in `GraphAgentState` (plain, serializable data). Everything that is not state
(the agent, the model, toolsets, capabilities, the ports) lives in `GraphAgentDeps`, rebuilt whenever a
run is (re)started. Nodes are small dataclasses holding only messages, so a run can be suspended
between any two nodes and resumed from its state and the next node.

What a model response leads to is worked out below the graph, in `_call_tools` (tool calls) and `_call_output`
(text, image and output tools): they return the request that answers the response, or the `End`, and
`CallToolsNode` makes the next node of it. So the handlers never import the nodes, and the graph imports them.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from typing import Any, Generic

from typing_extensions import TypeVar

from ._agent_graph_state import GraphAgentDeps, GraphAgentState, RunCheckpoint, check_output_retries
from ._call_tools import handle_response
from ._content import UserContent
from ._deferred import DeferredToolResult, DeferredToolResults
from ._env import now_utc
from ._events import AgentStreamEvent
from ._instructions import resolve_settings
from ._model_request_context import ModelRequestContext
from ._parts import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from ._pending_messages import drain_pending, merge_requests
from ._processed_history import HistorySink, adopt_processed_history
from ._request_content import refresh_dynamic_system_prompts, run_instructions, user_content
from ._run_context import RunContext
from ._streaming import stream_model_request
from ._threads import call_maybe_async
from ._tool_def import ToolDefinition, ToolPartKind
from ._tool_manager import ToolManager
from ._typed_tool_parts import narrow_tool_call_part
from .capabilities._dispatch import RejectedResponse
from .exceptions import ModelRetry, UserError
from .graph import BaseNode, End
from .models import ModelRequestParameters
from .result import FinalResult

__all__ = (
    'CallToolsNode',
    'GraphAgentDeps',
    'GraphAgentState',
    'ModelRequestNode',
    'RunCheckpoint',
    'UserPromptNode',
)

DepsT = TypeVar('DepsT', default=None)
OutputT = TypeVar('OutputT', default=str)


def _typed_tool_calls(response: ModelResponse, manager: ToolManager[Any] | None) -> ModelResponse:
    """`response` with calls of tools that declare a `tool_kind` (e.g. `load_capability`) as their typed parts."""
    if manager is None:
        return response
    kinds: dict[str, ToolPartKind] = {
        name: kind for name, tool in manager.tools.items() if (kind := tool.tool_def.tool_kind) is not None
    }
    if not kinds:
        return response
    parts = [
        narrow_tool_call_part(part, kinds[part.tool_name])
        if isinstance(part, ToolCallPart) and part.tool_kind is None and part.tool_name in kinds
        else part
        for part in response.parts
    ]
    changed = any(new is not old for new, old in zip(parts, response.parts, strict=True))
    return replace(response, parts=parts) if changed else response


def _stamp(message: ModelRequest | ModelResponse, state: GraphAgentState) -> None:
    message.run_id = message.run_id or state.run_id
    message.conversation_id = message.conversation_id or state.conversation_id


def _resume_with_results(
    history: list[ModelMessage], results: DeferredToolResults, user_prompt: str | Sequence[UserContent] | None
) -> CallToolsNode[Any, Any]:
    """Resume from the last response's tool calls with `results` (the requests after it hold earlier results).

    Raises:
        UserError: the history has no response with tool calls to answer.
    """
    if not history:
        raise UserError('Tool call results were provided, but the message history is empty.')
    index = next((i for i in range(len(history) - 1, -1, -1) if isinstance(history[i], ModelResponse)), None)
    if index is None:
        raise UserError('Tool call results were provided, but the message history does not contain a `ModelResponse`.')
    response = history[index]
    assert isinstance(response, ModelResponse)
    if not response.tool_calls:
        raise UserError(
            'Tool call results were provided, but the message history does not contain any unprocessed tool calls.'
        )
    answered = frozenset(
        part.tool_call_id
        for message in history[index + 1 :]
        for part in message.parts
        if isinstance(part, ToolReturnPart | RetryPromptPart) and part.tool_call_id
    )
    return CallToolsNode(
        response,
        tool_call_results=results.to_tool_call_results(),
        tool_call_metadata=results.metadata or None,
        user_prompt=user_prompt,
        answered_call_ids=answered,
    )


class _AgentNode(
    BaseNode[GraphAgentState, GraphAgentDeps[DepsT, OutputT], FinalResult[OutputT]], Generic[DepsT, OutputT]
):
    """The base of the agent graph's nodes: their state, dependencies and the result of the `End` they can reach."""

    # Plain class attributes, not dataclass fields: they never take part in equality, repr or copies.
    _graph: tuple[GraphAgentState, GraphAgentDeps[Any, Any]] | None = None
    """The run the node was handed out by (set by `AgentRun`), so it can be streamed."""
    _streamed_next: Any = None
    """The node after this one, once `stream()` has run it."""

    def _stream(self, ctx: object) -> AbstractAsyncContextManager[AsyncIterable[AgentStreamEvent]]:
        from ._node_stream import stream_node

        return stream_node(self, ctx)


@dataclass
class UserPromptNode(_AgentNode[DepsT, OutputT]):
    """Builds the first request of a run from the prompt, system prompts and any deferred tool results."""

    user_prompt: str | Sequence[UserContent] | None
    """The prompt of this run, if any."""

    async def run(
        self, state: GraphAgentState, deps: GraphAgentDeps[DepsT, OutputT]
    ) -> ModelRequestNode[DepsT, OutputT] | CallToolsNode[DepsT, OutputT]:
        """Run the node."""
        history = state.message_history
        prompt_parts: list[ModelRequestPart] = []
        if self.user_prompt is not None:
            prompt_parts.append(UserPromptPart(self.user_prompt))

        if deps.deferred_tool_results is not None:
            results, deps.deferred_tool_results = deps.deferred_tool_results, None
            return _resume_with_results(history, results, self.user_prompt)

        last = history[-1] if history else None
        if isinstance(last, ModelResponse) and last.tool_calls:
            if self.user_prompt is not None:
                names = ', '.join(sorted({c.tool_name for c in last.tool_calls}))
                raise UserError(
                    'Cannot provide a new user prompt when the message history contains unprocessed tool calls. '
                    f'The calls ({names}) have no results: pass deferred_tool_results with their results (or '
                    'approvals) to resume the run, or resume without a prompt to run them.'
                )
            # Resuming without a prompt from a response whose tool calls never ran: run them now.
            return CallToolsNode(last)
        if (
            isinstance(last, ModelResponse)
            and self.user_prompt is None
            and not await run_instructions(deps, deps.run_context(state))
        ):
            # Nothing new to tell the model: the response already in the history is the run's answer.
            return CallToolsNode(last)

        parts: list[ModelRequestPart] = []
        if not history:
            ctx = deps.run_context(state)
            for prompt in deps.system_prompts:
                if isinstance(prompt, str):
                    parts.append(SystemPromptPart(prompt))
                elif (part := await prompt.run(ctx)) is not None:
                    parts.append(part)
        else:
            await refresh_dynamic_system_prompts(state, deps)
        parts.extend(prompt_parts)
        if isinstance(last, ModelRequest) and self.user_prompt is None:
            if (resumed_prompt := user_content(last)) is not None:
                # The run continues the request the history ends with, so that request's prompt is the run's prompt.
                deps.prompt = resumed_prompt
            # The history ends with a request that never got an answer: it is sent again (as part of the history
            # given, not as a new message of this run: `new_message_index` stays after it).
            request = merge_requests(history.pop(), parts)  # pyright: ignore[reportArgumentType]
            deps.resumed_request = request
        else:
            # A new prompt after a trailing request (tool results, say) is a request of its own; the model gets the
            # two as one request (see `merge_trailing_requests`).
            request = ModelRequest(parts=parts)
        return ModelRequestNode(request)


@dataclass
class ModelRequestNode(_AgentNode[DepsT, OutputT]):
    """Sends a request to the model; the response goes to a `CallToolsNode`."""

    request: ModelRequest
    """The request to send (tool results, retry prompts and/or a user prompt)."""

    async def prepare(
        self, state: GraphAgentState, deps: GraphAgentDeps[DepsT, OutputT]
    ) -> tuple[RunContext[DepsT], ModelRequestContext]:
        """Everything before the model call: queue drain, step count, tools, instructions, settings, limits."""
        request = self.request
        deps.usage_limits.check_before_request(state.usage)
        state.run_step += 1
        # Tools and instructions are prepared with the request already in the history (`ctx.messages`), as the
        # model will see it; it is replaced below by its final form, with instructions and timestamp.
        position = len(state.message_history)
        state.message_history.append(request)
        ctx = deps.run_context(state)
        deps.toolset = await deps.toolset.for_run_step(ctx)
        manager = await ToolManager[DepsT].for_step(ctx, deps.toolset, deps.capability, deps.ports)
        # `prepare_tools` hooks already see this step's tools (`ctx.tools`, `ctx.available_tool_names`).
        ctx.tool_manager = manager
        tool_defs = await _visible_tool_defs(ctx, deps, manager)
        ctx.tool_definitions = {td.name: td for td in tool_defs}
        ctx.tool_manager = manager
        deps.tool_manager = manager

        instructions = await run_instructions(deps, ctx)
        resumed = deps.resumed_request is self.request
        request = replace(request, instructions=instructions, timestamp=now_utc())
        if resumed:
            deps.resumed_request = request
        _stamp(request, state)
        state.message_history[position] = request
        # `'asap'` messages follow the request as messages of their own; the model gets them merged with it.
        state.message_history.extend(drain_pending(deps, state, at_end=False))

        settings = await resolve_settings([*deps.settings_layers, deps.run_model_settings], ctx)
        ctx.model_settings = settings
        deps.last_max_tokens = settings.get('max_tokens') if settings else None
        params = _request_parameters(deps, tool_defs, await _native_tools(deps, ctx))
        request_context = ModelRequestContext(
            model=deps.model,
            # A copy: the model-request hooks' output becomes the run's history (see `_processed_history`).
            messages=list(state.message_history),
            model_settings=settings,
            model_request_parameters=params,
        )
        return ctx, request_context

    async def finish(
        self, state: GraphAgentState, deps: GraphAgentDeps[DepsT, OutputT], response: ModelResponse
    ) -> CallToolsNode[DepsT, OutputT]:
        """Record the response and its usage."""
        state.usage.requests += 1
        state.usage.incr(response.usage)
        deps.usage_limits.check_tokens(state.usage)
        response = _typed_tool_calls(response, deps.tool_manager)
        _stamp(response, state)
        state.message_history.append(response)
        return CallToolsNode(response)

    def stream(self, ctx: object) -> AbstractAsyncContextManager[AsyncIterable[AgentStreamEvent]]:
        """Run the node now, streaming the model's response: `async with node.stream(agent_run.ctx) as events:`.

        The events are the response's part events and `FinalResultEvent`; the run's loop then moves on to the
        node after this one without asking the model again.

        Raises:
            UserError: the node was not handed out by `agent.iter()`, or has already been streamed.
        """
        return self._stream(ctx)

    async def run(
        self, state: GraphAgentState, deps: GraphAgentDeps[DepsT, OutputT]
    ) -> CallToolsNode[DepsT, OutputT] | ModelRequestNode[DepsT, OutputT]:
        """Run the node (streaming the response if the run has an event stream).

        A model-request hook raising `ModelRetry` (rejecting the request or the response) asks the model again with a
        retry prompt, counted against the output retries.
        """
        if self._streamed_next is not None:
            return self._streamed_next
        ctx, request_context = await self.prepare(state, deps)
        adopt = _history_adopter(state, deps)
        try:
            if deps.event_sink is not None:
                response = await stream_model_request(ctx, deps, request_context, adopt)
            else:
                response = await deps.ports.request_model(ctx, request_context, deps.capability, adopt=adopt)
        except ModelRetry as retry:
            if isinstance(retry, RejectedResponse):
                await self.finish(state, deps, retry.response)
            check_output_retries(state, deps, retry.message)
            return ModelRequestNode(ModelRequest(parts=[RetryPromptPart(retry.message)]))
        return await self.finish(state, deps, response)


def _history_adopter(state: GraphAgentState, deps: GraphAgentDeps[Any, Any]) -> HistorySink | None:
    """Where the history the `before_model_request` hooks leave goes: it becomes the run's (no hooks: unchanged)."""
    if 'before_model_request' not in deps.capability.hook_names():
        return None
    return lambda messages: adopt_processed_history(state, deps, messages)


async def _visible_tool_defs(
    ctx: RunContext[Any], deps: GraphAgentDeps[Any, Any], manager: ToolManager[Any]
) -> list[ToolDefinition]:
    output_defs = deps.output_schema.tool_defs
    for output_def in output_defs:
        if (clash := manager.tools.get(output_def.name)) is not None:
            label = clash.toolset.label
            raise UserError(
                f'{label[:1].upper()}{label[1:]} defines a tool whose name conflicts with existing tool from the '
                f"agent's output tools: {output_def.name!r}. {clash.toolset.tool_name_conflict_hint}"
            )
    if deps.prepare_output_tools is not None and output_defs:
        changed = await call_maybe_async(deps.prepare_output_tools, ctx, output_defs)
        if changed is not None:
            output_defs = list(changed)
    prepared = await deps.capability.prepare_tools(ctx, [*manager.tool_defs, *output_defs])
    visible = {td.name: td for td in prepared}
    # Tools hidden by prepare_tools can't be called this step; changed definitions are the ones in force.
    manager.tools = {
        name: replace(tool, tool_def=visible[name]) for name, tool in manager.tools.items() if name in visible
    }
    return list(prepared)


async def _native_tools(deps: GraphAgentDeps[Any, Any], ctx: RunContext[Any]) -> list[Any]:
    tools: list[Any] = []
    for tool in deps.native_tools:
        if callable(tool):
            resolved = await call_maybe_async(tool, ctx)
            if resolved is not None:
                tools.append(resolved)
        else:
            tools.append(tool)
    return tools


def _request_parameters(
    deps: GraphAgentDeps[Any, Any], tool_defs: list[ToolDefinition], native_tools: list[Any]
) -> ModelRequestParameters:
    schema = deps.output_schema
    return ModelRequestParameters(
        function_tools=[td for td in tool_defs if td.kind != 'output'],
        native_tools=native_tools,
        output_mode=schema.mode,
        output_object=schema.output_object,
        output_tools=[td for td in tool_defs if td.kind == 'output'],
        prompted_output_template=schema.template,
        allow_text_output=schema.allows_text,
        allow_image_output=schema.allows_image,
    )


@dataclass
class CallToolsNode(_AgentNode[DepsT, OutputT]):
    """Handles a model response: runs the tools it calls, or produces the final output."""

    model_response: ModelResponse
    """The response to handle."""
    tool_call_results: dict[str, DeferredToolResult] | None = None
    """When resuming with deferred tool results: the results of the calls still open, normalized."""
    tool_call_metadata: dict[str, dict[str, Any]] | None = None
    """When resuming: metadata per tool call id, for the tools as `ctx.tool_call_metadata`."""
    user_prompt: str | Sequence[UserContent] | None = None
    """When resuming: the new prompt, sent after the tool results."""
    answered_call_ids: frozenset[str] = frozenset()
    """When resuming: the calls a previous run already answered (in the requests after the response)."""

    def stream(self, ctx: object) -> AbstractAsyncContextManager[AsyncIterable[AgentStreamEvent]]:
        """Run the node now, streaming its tool calls and results: `async with node.stream(agent_run.ctx) as events:`.

        Raises:
            UserError: the node was not handed out by `agent.iter()`, or has already been streamed.
        """
        return self._stream(ctx)

    async def run(
        self, state: GraphAgentState, deps: GraphAgentDeps[DepsT, OutputT]
    ) -> ModelRequestNode[DepsT, OutputT] | End[FinalResult[OutputT]]:
        """Run the node."""
        if self._streamed_next is not None:
            return self._streamed_next
        outcome = await handle_response(self, state, deps)
        return ModelRequestNode(outcome) if isinstance(outcome, ModelRequest) else outcome
