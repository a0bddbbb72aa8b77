"""Serving an agent over AG-UI: `handle_ag_ui_request` for a Starlette/FastAPI route, `AGUIApp` for a whole app.

Both copy deps that carry state (`StateDeps`, any `StateHandler` dataclass) for each request: the adapter
puts the request's state into the deps, and requests served at the same time must not share one state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Generic, Literal

from agent._agent import Agent
from agent.capabilities import AbstractCapability
from agent.messages import ModelMessage
from agent.models import Model
from agent.output import OutputSpec
from agent.settings import ModelSettings
from agent.tools import DeferredToolResults
from agent.toolsets import AbstractToolset
from agent.ui._adapter import DEFAULT_FILE_URL_SCHEMES, Metadata
from agent.ui._event_stream import AgentDepsT, OnCompleteFunc, OutputDataT
from agent.ui._state import StateHandler
from agent.usage import RunUsage, UsageLimits

from ._adapter import AGUIAdapter

try:
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import BaseRoute, Route
    from starlette.types import ExceptionHandler, Lifespan
except ImportError as e:  # pragma: no cover
    raise ImportError(
        'Please install the `starlette` package to serve agents over AG-UI, '
        "you can use the `ui` optional group — `pip install 'durable-agents[ui]'`"
    ) from e

__all__ = ('AGUIApp', 'handle_ag_ui_request')


async def handle_ag_ui_request(
    agent: Agent[AgentDepsT, OutputDataT],
    request: Request,
    *,
    deps: AgentDepsT = None,
    message_history: Sequence[ModelMessage] | None = None,
    deferred_tool_results: DeferredToolResults | None = None,
    output_type: OutputSpec | None = None,
    model: Model | str | None = None,
    instructions: Any = None,
    model_settings: ModelSettings | None = None,
    usage_limits: UsageLimits | None = None,
    usage: RunUsage | None = None,
    metadata: Metadata | None = None,
    infer_name: bool = True,
    toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
    capabilities: Sequence[AbstractCapability[AgentDepsT]] | None = None,
    on_complete: OnCompleteFunc[Any] | None = None,
    manage_system_prompt: Literal['server', 'client'] = 'server',
    allowed_file_url_schemes: frozenset[str] = DEFAULT_FILE_URL_SCHEMES,
) -> Response:
    """Answer an AG-UI request with a run of `agent`, as a streaming response of AG-UI events.

    For a Starlette or FastAPI route:

        @app.post('/agent')
        async def run_agent(request: Request) -> Response:
            return await handle_ag_ui_request(agent, request)

    A body that is not a valid `RunAgentInput` gets a 422 response listing what is wrong.

    Args:
        agent: The agent to run.
        request: The HTTP request, whose body is a `RunAgentInput`.
        deps: The run's deps; deps that carry state are copied for the request and receive its state.
        message_history: Trusted server-side history, put before the client's messages.
        deferred_tool_results: Results for deferred tool calls, instead of those from the request's `resume`.
        output_type: The run's output type instead of the agent's.
        model: The model to use instead of the agent's.
        instructions: More instructions for this run.
        model_settings: Model settings for this run.
        usage_limits: Limits on requests and tokens.
        usage: Usage to start from.
        metadata: Metadata for the run (a dict, or a function of the run context returning one).
        infer_name: Infer the agent's name from the caller's variables if it has none.
        toolsets: More toolsets for this run (the frontend's tools are added after them).
        capabilities: More capabilities for this run.
        on_complete: Called with the run's result when it completes; an async generator's events are sent too.
        manage_system_prompt: Who owns the system prompt (see `UIAdapter.manage_system_prompt`).
        allowed_file_url_schemes: The URL schemes accepted for client file URLs.
    """
    if isinstance(deps, StateHandler):
        deps = replace(deps)
    return await AGUIAdapter[AgentDepsT, OutputDataT].dispatch_request(
        request,
        agent=agent,
        deps=deps,
        message_history=message_history,
        deferred_tool_results=deferred_tool_results,
        output_type=output_type,
        model=model,
        instructions=instructions,
        model_settings=model_settings,
        usage_limits=usage_limits,
        usage=usage,
        metadata=metadata,
        infer_name=infer_name,
        toolsets=toolsets,
        capabilities=capabilities,
        on_complete=on_complete,
        manage_system_prompt=manage_system_prompt,
        allowed_file_url_schemes=allowed_file_url_schemes,
    )


class AGUIApp(Starlette, Generic[AgentDepsT, OutputDataT]):
    """A Starlette app serving one agent over AG-UI: a `POST` to `path` runs it (see `handle_ag_ui_request`).

    Mount it in another app, or serve it as it is, e.g. `uvicorn module:app`, with `app = agent.to_ag_ui()`.
    """

    def __init__(
        self,
        agent: Agent[AgentDepsT, OutputDataT],
        *,
        path: str = '/',
        deps: AgentDepsT = None,
        message_history: Sequence[ModelMessage] | None = None,
        output_type: OutputSpec | None = None,
        model: Model | str | None = None,
        instructions: Any = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: Metadata | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        capabilities: Sequence[AbstractCapability[AgentDepsT]] | None = None,
        on_complete: OnCompleteFunc[Any] | None = None,
        manage_system_prompt: Literal['server', 'client'] = 'server',
        allowed_file_url_schemes: frozenset[str] = DEFAULT_FILE_URL_SCHEMES,
        debug: bool = False,
        routes: Sequence[BaseRoute] | None = None,
        middleware: Sequence[Middleware] | None = None,
        exception_handlers: Mapping[Any, ExceptionHandler] | None = None,
        lifespan: Lifespan[AGUIApp[AgentDepsT, OutputDataT]] | None = None,
    ) -> None:
        """Create the app.

        Args:
            agent: The agent to serve.
            path: The path that runs the agent.
            deps: The deps of every run (copied per request when they carry state).
            message_history: Trusted server-side history, put before each request's messages.
            output_type: The runs' output type instead of the agent's.
            model: The model to use instead of the agent's.
            instructions: More instructions for every run.
            model_settings: Model settings for every run.
            usage_limits: Limits on requests and tokens, per run.
            usage: Usage to start each run from.
            metadata: Metadata for each run (a dict, or a function of the run context returning one).
            infer_name: Infer the agent's name from the caller's variables if it has none.
            toolsets: More toolsets for every run.
            capabilities: More capabilities for every run.
            on_complete: Called with each run's result when it completes.
            manage_system_prompt: Who owns the system prompt (see `UIAdapter.manage_system_prompt`).
            allowed_file_url_schemes: The URL schemes accepted for client file URLs.
            debug: Starlette's debug mode (tracebacks in error responses).
            routes: More routes, served beside the agent's.
            middleware: Starlette middleware for every request.
            exception_handlers: Starlette exception handlers.
            lifespan: A Starlette lifespan.
        """

        async def run_agent(request: Request) -> Response:
            return await handle_ag_ui_request(
                agent,
                request,
                deps=deps,
                message_history=message_history,
                output_type=output_type,
                model=model,
                instructions=instructions,
                model_settings=model_settings,
                usage_limits=usage_limits,
                usage=usage,
                metadata=metadata,
                infer_name=infer_name,
                toolsets=toolsets,
                capabilities=capabilities,
                on_complete=on_complete,
                manage_system_prompt=manage_system_prompt,
                allowed_file_url_schemes=allowed_file_url_schemes,
            )

        super().__init__(
            debug=debug,
            routes=[*(routes or []), Route(path, run_agent, methods=['POST'])],
            middleware=middleware,
            exception_handlers=exception_handlers,
            lifespan=lifespan,
        )
