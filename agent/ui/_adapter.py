"""`UIAdapter`: the base class of the UI protocol adapters (one per frontend protocol).

An adapter holds one request's run input. It decodes the frontend's messages, removes what a client must not
control (see `agent.ui._sanitize`), adds the frontend's tools and state, runs the agent with
`run_stream_events` and hands the agent's events to the protocol's `UIEventStream`, whose encoded
events make the HTTP response. `dispatch_request` does all of it for one Starlette/FastAPI request.
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from functools import cached_property
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Generic, Literal, Self, TypeAlias, cast

from pydantic import BaseModel, ValidationError
from typing_extensions import TypeVar

from agent._abstract_agent import AbstractAgent
from agent._content import ForceDownloadMode
from agent._parts import ModelMessage
from agent.capabilities import AbstractCapability, ReinjectSystemPrompt
from agent.models import Model
from agent.output import OutputSpec
from agent.settings import ModelSettings
from agent.tools import DeferredToolRequests, DeferredToolResults
from agent.toolsets import AbstractToolset
from agent.usage import RunUsage, UsageLimits

from ._event_stream import AgentDepsT, EventT, NativeEvent, OnCompleteFunc, OutputDataT, RunInputT, UIEventStream
from ._sanitize import DEFAULT_FILE_URL_SCHEMES, FileRules, sanitize
from ._state import StateHandler

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse

__all__ = ('DEFAULT_FILE_URL_SCHEMES', 'DispatchDepsT', 'DispatchOutputDataT', 'MessageT', 'Metadata', 'UIAdapter')

MessageT = TypeVar('MessageT')
"""The protocol's message type."""
DispatchDepsT = TypeVar('DispatchDepsT')
"""The deps type of the agent given to `dispatch_request` (a class method, so not the adapter's own)."""
DispatchOutputDataT = TypeVar('DispatchOutputDataT')
"""The output type of the agent given to `dispatch_request`."""

Metadata: TypeAlias = dict[str, Any] | Callable[..., dict[str, Any]]
"""Run metadata: a dict, or a function of the run context returning one."""


@dataclass
class UIAdapter(ABC, Generic[RunInputT, MessageT, EventT, AgentDepsT, OutputDataT]):
    """Base class of the adapters between a UI protocol and an agent run.

    A protocol subclass decodes the request body (`build_run_input`), maps its messages (`load_messages`,
    `messages`), may expose frontend tools, state, deferred results and a conversation id, and builds the
    protocol's `UIEventStream`. The base class runs the agent and streams the protocol's events.
    """

    agent: AbstractAgent[AgentDepsT, OutputDataT]
    """The agent to run."""
    run_input: RunInputT
    """The protocol's run input (the decoded request body)."""
    _: KW_ONLY
    accept: str | None = None
    """The request's `Accept` header, which chooses the encoding of the protocol's events."""
    manage_system_prompt: Literal['server', 'client'] = 'server'
    """Who owns the system prompt (instructions are always added by the agent, whatever this says).

    `'server'` (the default): the agent's system prompt is the only one. System prompts sent by the client are
    removed with a warning, because any client could otherwise instruct the model by crafting a request, and
    the agent's system prompt is put at the head of the conversation by `ReinjectSystemPrompt`.

    `'client'`: the frontend owns it. Its system prompts are kept and the agent's configured system prompt is
    not added; add the `ReinjectSystemPrompt` capability to the agent to fall back to it when the client
    sends none.
    """
    allowed_file_url_schemes: frozenset[str] = DEFAULT_FILE_URL_SCHEMES
    """The URL schemes accepted for file URLs (`ImageUrl`, `DocumentUrl`, `VideoUrl`, `AudioUrl`) sent by the client.

    File URLs with another scheme are removed with a warning. A provider fetches `s3://` or `gs://` URLs with
    the server's cloud identity, so accepting them from any client lets it read whatever that identity can;
    `http(s)` URLs are fetched with public access. Prefer pre-signed `https://` URLs for uploads, and add a
    cloud scheme (e.g. `frozenset({'http', 'https', 's3'})`) only for a frontend you trust.
    """
    allowed_file_url_force_download: frozenset[ForceDownloadMode] = frozenset()
    """The `force_download` values accepted on client file URLs besides `False` (which always is).

    Others are reset to `False` with a warning: `True` has the server download the file itself, and
    `'allow-local'` lets that download reach loopback and private addresses, so a client could probe internal
    services. Add `True` (or `'allow-local'`) only for a frontend you trust.
    """
    preserve_file_data: bool = False
    """Keep file data the client sends back: uploaded-file references (`UploadedFile`) in its messages, and
    (for protocols that carry them) the files a model made.

    Without it `UploadedFile`s are removed with a warning: the provider reads an uploaded file with the server's
    credentials, so a client naming arbitrary file ids could read what those credentials can.
    """
    _state_handler: StateHandler | None = field(default=None, init=False, repr=False)
    """The run's deps when they carry the frontend's state (set by `run_stream_native`), for event streams that
    send the state back (AG-UI's `STATE_SNAPSHOT`); the stream is built after that call."""

    @classmethod
    async def from_request(
        cls,
        request: Request,
        *,
        agent: AbstractAgent[AgentDepsT, OutputDataT],
        manage_system_prompt: Literal['server', 'client'] = 'server',
        allowed_file_url_schemes: frozenset[str] = DEFAULT_FILE_URL_SCHEMES,
        allowed_file_url_force_download: frozenset[ForceDownloadMode] = frozenset(),
        preserve_file_data: bool = False,
        **kwargs: Any,
    ) -> Self:
        """An adapter for a Starlette/FastAPI request: its body decoded by `build_run_input`, its `Accept` header.

        Args:
            request: The HTTP request.
            agent: The agent to run.
            manage_system_prompt: Who owns the system prompt (see the field).
            allowed_file_url_schemes: The URL schemes accepted for client file URLs (see the field).
            allowed_file_url_force_download: The `force_download` values accepted besides `False` (see the field).
            preserve_file_data: Keep file data the client sends back (see the field).
            **kwargs: More arguments for the subclass's constructor.

        Raises:
            pydantic.ValidationError: The body is not a valid run input.
        """
        return cls(
            agent=agent,
            run_input=cls.build_run_input(await request.body()),
            accept=request.headers.get('accept'),
            manage_system_prompt=manage_system_prompt,
            allowed_file_url_schemes=allowed_file_url_schemes,
            allowed_file_url_force_download=allowed_file_url_force_download,
            preserve_file_data=preserve_file_data,
            **kwargs,
        )

    @classmethod
    @abstractmethod
    def build_run_input(cls, body: bytes) -> RunInputT:
        """Decode a request body into the protocol's run input.

        Raises:
            pydantic.ValidationError: The body is not a valid run input.
        """
        raise NotImplementedError

    @classmethod
    @abstractmethod
    def load_messages(cls, messages: Sequence[MessageT]) -> list[ModelMessage]:
        """The protocol's messages as agent messages."""
        raise NotImplementedError

    @classmethod
    def dump_messages(cls, messages: Sequence[ModelMessage]) -> list[MessageT]:
        """Agent messages as the protocol's messages (for protocols that can send a history to a frontend)."""
        raise NotImplementedError

    @abstractmethod
    def build_event_stream(self) -> UIEventStream[RunInputT, EventT, AgentDepsT, OutputDataT]:
        """A new protocol event stream for this adapter's run input (one is built per transformed stream)."""
        raise NotImplementedError

    @cached_property
    @abstractmethod
    def messages(self) -> list[ModelMessage]:
        """The agent messages of the run input (not yet sanitized)."""
        raise NotImplementedError

    @cached_property
    def toolset(self) -> AbstractToolset[AgentDepsT] | None:
        """The frontend's tools from the run input, run by the frontend (deferred); `None` when there are none."""
        return None

    @cached_property
    def state(self) -> dict[str, Any] | None:
        """The frontend's state from the run input, if the protocol carries one."""
        return None

    @cached_property
    def deferred_tool_results(self) -> DeferredToolResults | None:
        """Results of deferred tool calls (e.g. a human's approvals) carried by the run input."""
        return None

    @cached_property
    def conversation_id(self) -> str | None:
        """The conversation (thread, chat) the run input belongs to, which ties the runs of one conversation.

        A protocol that carries one overrides this, e.g. a thread id or a chat id.
        """
        return None

    # ----- sanitization -----

    def sanitize_messages(
        self, messages: Sequence[ModelMessage], *, deferred_tool_results: DeferredToolResults | None = None
    ) -> list[ModelMessage]:
        """Remove what a client must not control from client-submitted messages, warning about each kind removed.

        Removed: system prompts when `manage_system_prompt` is `'server'`; file URLs whose scheme is not in
        `allowed_file_url_schemes` and uploaded files unless `preserve_file_data` (in user prompts and tool
        results); tool calls at the end of the history that `deferred_tool_results` does not answer (those match
        no paused run, so they must not be executed). A `force_download` not in `allowed_file_url_force_download`
        becomes `False`. Requests or a final response left
        empty are dropped. A `message_history` given by the caller is trusted and not passed through here.

        Args:
            messages: The messages decoded from the run input.
            deferred_tool_results: The results the run resumes with.

        Returns:
            The messages to give the agent.
        """
        report = sanitize(
            messages,
            strip_system_prompt=self.manage_system_prompt == 'server',
            deferred_tool_results=deferred_tool_results,
            file_rules=self._file_rules,
        )
        for text in report.warnings(self._file_rules):
            warnings.warn(text, UserWarning, stacklevel=2)
        return report.messages

    @property
    def _file_rules(self) -> FileRules:
        return FileRules(
            allowed_schemes=self.allowed_file_url_schemes,
            allowed_force_download=self.allowed_file_url_force_download,
            keep_uploaded_files=self.preserve_file_data,
        )

    # ----- streams -----

    def transform_stream(
        self, stream: AsyncIterator[NativeEvent], on_complete: OnCompleteFunc[EventT] | None = None
    ) -> AsyncIterator[EventT]:
        """The agent's events as protocol events (see `UIEventStream.transform_stream`).

        Args:
            stream: The agent's events.
            on_complete: Called with the run's result when the run completes; an async generator's events are
                added to the stream.
        """
        return self.build_event_stream().transform_stream(stream, on_complete=on_complete)

    def encode_stream(self, stream: AsyncIterator[EventT]) -> AsyncIterator[str]:
        """The protocol events encoded as text for the response body, per the `Accept` header."""
        return self.build_event_stream().encode_stream(stream)

    def streaming_response(self, stream: AsyncIterator[EventT]) -> StreamingResponse:
        """A Starlette streaming response of the encoded protocol events."""
        return self.build_event_stream().streaming_response(stream)

    def run_stream_native(
        self,
        *,
        output_type: OutputSpec | None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        conversation_id: str | None = None,
        model: Model | str | None = None,
        instructions: Any = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: Metadata | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        capabilities: Sequence[AbstractCapability[AgentDepsT]] | None = None,
    ) -> AsyncIterator[NativeEvent]:
        """Run the agent on the run input and stream the agent's own events.

        Everything but the run happens when this is called (sanitizing, frontend tools, state), so its warnings
        and errors surface at the call; the run starts when the returned iterator is first iterated.

        Args:
            output_type: The run's output type instead of the agent's.
            message_history: Trusted server-side history, put before the (sanitized) client messages.
            deferred_tool_results: Results for deferred tool calls; defaults to the run input's.
            conversation_id: The run's conversation id; defaults to the run input's.
            model: The model to use instead of the agent's.
            instructions: More instructions for this run.
            deps: The run's deps; a `StateHandler` receives the frontend's state.
            model_settings: Model settings for this run.
            usage_limits: Limits on requests and tokens.
            usage: Usage to start from.
            metadata: Metadata for the run (a dict, or a function of the run context returning one).
            infer_name: Infer the agent's name from the caller's variables if it has none.
            toolsets: More toolsets for this run (the frontend's tools are added after them).
            capabilities: More capabilities for this run.

        Returns:
            The agent's events, ending with an `AgentRunResultEvent`.
        """
        if deferred_tool_results is None:
            deferred_tool_results = self.deferred_tool_results
        if conversation_id is None:
            conversation_id = self.conversation_id
        frontend_messages = self.sanitize_messages(self.messages, deferred_tool_results=deferred_tool_results)
        history = [*(message_history or []), *frontend_messages]
        toolset = self.toolset
        if toolset:
            # Frontend tools are deferred: the run ends with `DeferredToolRequests` when the model calls one.
            output_type = [output_type or self.agent.output_type, DeferredToolRequests]
            toolsets = [*(toolsets or []), toolset]
        self._inject_state(deps)
        run_capabilities: list[AbstractCapability[AgentDepsT]] = []
        if self.manage_system_prompt == 'server':
            run_capabilities.append(ReinjectSystemPrompt(replace_existing=True))
        if capabilities:
            run_capabilities.extend(capabilities)
        agent = self.agent

        async def stream_events() -> AsyncIterator[NativeEvent]:
            async with agent.run_stream_events(
                output_type=output_type,
                message_history=history,
                deferred_tool_results=deferred_tool_results,
                conversation_id=conversation_id,
                model=model,
                deps=deps,
                model_settings=model_settings,
                instructions=instructions,
                usage_limits=usage_limits,
                usage=usage,
                metadata=metadata,
                infer_name=infer_name,
                toolsets=toolsets,
                capabilities=run_capabilities,
            ) as events:
                async for event in events:
                    yield event

        return stream_events()

    def _inject_state(self, deps: Any) -> None:
        """Give the frontend's state to `deps` (mutating it), validated into the type of its current state."""
        self._state_handler = deps if isinstance(deps, StateHandler) else None
        if isinstance(deps, StateHandler):
            raw_state = self.state or {}
            current = deps.state
            deps.state = type(current).model_validate(raw_state) if isinstance(current, BaseModel) else raw_state
        elif self.state:
            warnings.warn(
                f"The run input carries state, but the run's `deps` (of type `{type(deps).__name__}`) does not "
                "implement the `StateHandler` protocol, so the state was ignored. To receive the frontend's "
                '(AG-UI) state, use `StateDeps[...]` as deps or implement `StateHandler`.',
                UserWarning,
                stacklevel=3,
            )

    def run_stream(
        self,
        *,
        output_type: OutputSpec | None = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        conversation_id: str | None = None,
        model: Model | str | None = None,
        instructions: Any = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: Metadata | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[AgentDepsT]] | None = None,
        capabilities: Sequence[AbstractCapability[AgentDepsT]] | None = None,
        on_complete: OnCompleteFunc[EventT] | None = None,
    ) -> AsyncIterator[EventT]:
        """Run the agent on the run input and stream the protocol's events.

        Takes the arguments of `run_stream_native`, plus `on_complete`, called with the run's result when the
        run completes (an async generator's events are added to the stream).
        """
        return self.transform_stream(
            self.run_stream_native(
                output_type=output_type,
                message_history=message_history,
                deferred_tool_results=deferred_tool_results,
                conversation_id=conversation_id,
                model=model,
                instructions=instructions,
                deps=deps,
                model_settings=model_settings,
                usage_limits=usage_limits,
                usage=usage,
                metadata=metadata,
                infer_name=infer_name,
                toolsets=toolsets,
                capabilities=capabilities,
            ),
            on_complete=on_complete,
        )

    @classmethod
    async def dispatch_request(
        cls,
        request: Request,
        *,
        agent: AbstractAgent[DispatchDepsT, DispatchOutputDataT],
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        conversation_id: str | None = None,
        model: Model | str | None = None,
        instructions: Any = None,
        deps: DispatchDepsT = None,
        output_type: OutputSpec | None = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: Metadata | None = None,
        infer_name: bool = True,
        toolsets: Sequence[AbstractToolset[DispatchDepsT]] | None = None,
        capabilities: Sequence[AbstractCapability[DispatchDepsT]] | None = None,
        on_complete: OnCompleteFunc[EventT] | None = None,
        manage_system_prompt: Literal['server', 'client'] = 'server',
        allowed_file_url_schemes: frozenset[str] = DEFAULT_FILE_URL_SCHEMES,
        allowed_file_url_force_download: frozenset[ForceDownloadMode] = frozenset(),
        preserve_file_data: bool = False,
        **kwargs: Any,
    ) -> Response:
        """Answer one protocol request (Starlette or FastAPI): run the agent and stream the protocol's events.

        A body that is not a valid run input gets a 422 response whose JSON body lists the validation errors.
        The run arguments are those of `run_stream`; `manage_system_prompt`, `allowed_file_url_schemes`,
        `allowed_file_url_force_download`, `preserve_file_data` and `**kwargs` go to `from_request`.

        Returns:
            A streaming response encoded per the request's `Accept` header, or the 422 response.

        Raises:
            ImportError: Starlette is not installed.
        """
        try:
            from starlette.responses import Response
        except ImportError as e:  # pragma: no cover
            raise ImportError(
                'Please install the `starlette` package to use `dispatch_request()` method, '
                "you can use the `ui` optional group — `pip install 'durable-agents[ui]'`"
            ) from e
        try:
            # The deps and output types come from `agent`, not from `cls`: tell the type checker so.
            adapter = cast(
                'UIAdapter[RunInputT, MessageT, EventT, DispatchDepsT, DispatchOutputDataT]',
                await cls.from_request(
                    request,
                    agent=cast('AbstractAgent[AgentDepsT, OutputDataT]', agent),
                    manage_system_prompt=manage_system_prompt,
                    allowed_file_url_schemes=allowed_file_url_schemes,
                    allowed_file_url_force_download=allowed_file_url_force_download,
                    preserve_file_data=preserve_file_data,
                    **kwargs,
                ),
            )
        except ValidationError as e:
            return Response(
                content=e.json(), media_type='application/json', status_code=HTTPStatus.UNPROCESSABLE_ENTITY
            )
        return adapter.streaming_response(
            adapter.run_stream(
                message_history=message_history,
                deferred_tool_results=deferred_tool_results,
                conversation_id=conversation_id,
                deps=deps,
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
            )
        )
