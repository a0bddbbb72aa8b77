"""`MCPServer`: the connection to an MCP server, offered to agents as a toolset.

The class has three layers, kept apart so a durable runtime can swap the middle one out:

- the lifecycle: `async with server:` connects (re-entrant, counted; the last exit disconnects), with the
  session held by a background task (see `_connection`);
- the network operations, each a method taking and returning plain data: `list_tools`, `direct_call_tool`,
  `list_resources`, `list_resource_templates`, `read_resource`, `list_prompts`, `get_prompt` and
  `fetch_instructions`. Each enters the server for its own duration, so it also works on a server nobody
  entered. The tool, resource and prompt lists are cached until the server says one changed;
- the toolset and agent glue, written only against those methods: `get_tools`, `call_tool` (with
  `process_tool_call` and the tool prefix) and `get_instructions`.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Self

import mcp_types
from mcp.client._transport import TransportStreams
from mcp.client.session import ClientRequestContext, ClientSession, IncomingMessage

import agent._mcp._requests as _requests
from agent._content import BinaryContent
from agent._run_context import RunContext
from agent.exceptions import UserError
from agent.toolsets.abstract import AbstractToolset, ToolsetTool

from ._connection import Connection
from ._convert import ANY_OBJECT_ARGS, for_model, resource_contents, tool_definition
from ._prompts import Prompt, PromptResult, prompt_result
from ._sampling import answer_sampling
from ._types import (
    ElicitationFnT,
    InstructionPart,
    LoggingFnT,
    MCPError,
    ProcessToolCallback,
    Resource,
    ResourceTemplate,
    ServerCapabilities,
    ToolResult,
)

if TYPE_CHECKING:
    from agent.models import Model

__all__ = ('MCPServer',)


class MCPServer(AbstractToolset[Any], ABC):
    """Base class for attaching agents to MCP servers (see https://modelcontextprotocol.io).

    Subclasses provide the transport in `client_streams`; `MCPServerStdio`, `MCPServerStreamableHTTP` and
    `MCPServerSSE` are the ready-made ones.
    """

    tool_prefix: str | None
    """A prefix for the names of the server's tools: `tool_prefix='foo'` offers tool `bar` as `foo_bar`."""
    log_level: mcp_types.LoggingLevel | None
    """The log level to set on the server when connecting (only if it supports logging); `None` sets none."""
    log_handler: LoggingFnT | None
    """A handler for log messages from the server."""
    timeout: float
    """Seconds to wait for the connection to be established and initialized."""
    read_timeout: float
    """Seconds to wait for a response (or, on HTTP, for the next message of a stream) before giving up."""
    process_tool_call: ProcessToolCallback | None
    """Hook to customize tool calls, e.g. to pass request metadata."""
    allow_sampling: bool
    """Whether the server may ask this client to sample from a model (`sampling/createMessage`)."""
    sampling_model: Model | None
    """The model that serves sampling requests; the model of the agent run using the server when `None`."""
    max_retries: int
    """How many times the model may retry a failing call of one of the server's tools."""
    elicitation_callback: ElicitationFnT | None
    """Answers the server's elicitation requests (questions for the user); elicitation is declined without it."""
    cache_prompts: bool
    """Cache the prompt list until the server says it changed (`notifications/prompts/list_changed`) or the
    last context exits."""
    cache_tools: bool
    """Cache the tool list until the server says it changed (`notifications/tools/list_changed`) or the last
    context exits. Turn it off for servers that change their tools without notifying."""
    cache_resources: bool
    """Cache the resource list until the server says it changed (`notifications/resources/list_changed`) or
    the last context exits."""
    include_instructions: bool
    """Whether `get_instructions` returns the server's instructions (off by default: they come from outside)."""
    include_return_schema: bool | None
    """Whether the model sees the tools' output schemas; `None` leaves it to `IncludeToolReturnSchemas`."""
    client_info: mcp_types.Implementation | None
    """How this client introduces itself to the server; the MCP SDK's default when `None`."""

    def __init__(
        self,
        tool_prefix: str | None = None,
        log_level: mcp_types.LoggingLevel | None = None,
        log_handler: LoggingFnT | None = None,
        timeout: float = 5,
        read_timeout: float = 5 * 60,
        process_tool_call: ProcessToolCallback | None = None,
        allow_sampling: bool = True,
        sampling_model: Model | None = None,
        max_retries: int = 1,
        elicitation_callback: ElicitationFnT | None = None,
        *,
        cache_prompts: bool = True,
        cache_tools: bool = True,
        cache_resources: bool = True,
        include_instructions: bool = False,
        include_return_schema: bool | None = None,
        id: str | None = None,
        client_info: mcp_types.Implementation | None = None,
    ) -> None:
        """Configure the server; each option is described on the attribute of the same name, `id` on `id`.

        The first ten options may be passed by position, as subclasses written for Pydantic AI do.
        """
        self.tool_prefix = tool_prefix
        self.log_level = log_level
        self.log_handler = log_handler
        self.timeout = timeout
        self.read_timeout = read_timeout
        self.process_tool_call = process_tool_call
        self.allow_sampling = allow_sampling
        self.sampling_model = sampling_model
        self.max_retries = max_retries
        self.elicitation_callback = elicitation_callback
        self.cache_prompts = cache_prompts
        self.cache_tools = cache_tools
        self.cache_resources = cache_resources
        self.include_instructions = include_instructions
        self.include_return_schema = include_return_schema
        self.client_info = client_info
        # The prefix already names the server uniquely among an agent's toolsets, so it serves as the id.
        self._id = id or tool_prefix
        self._entered = 0
        self._connection: Connection | None = None
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self._cached_tools: list[mcp_types.Tool] | None = None
        self._cached_resources: list[Resource] | None = None
        self._cached_prompts: list[Prompt] | None = None
        # Bumped by list-changed notifications, so a listing that was in flight meanwhile is not cached.
        self._tools_generation = 0
        self._resources_generation = 0
        self._prompts_generation = 0
        self._run_model: Model | None = None

    @property
    def id(self) -> str | None:
        """The server's unique id, `tool_prefix` unless one was given; durable runs name its activities after it."""
        return self._id

    @id.setter
    def id(self, value: str | None) -> None:
        self._id = value

    @property
    def tool_name_conflict_hint(self) -> str:
        """Advice for a tool name clash."""
        return 'Set `tool_prefix` on the MCP server (or wrap it with `.prefixed(...)`) to avoid the clash.'

    @abstractmethod
    def client_streams(self) -> AbstractAsyncContextManager[TransportStreams]:
        """Open the transport, yielding the (read, write) streams of the MCP session."""
        raise NotImplementedError

    # Lifecycle.

    def _guard(self) -> asyncio.Lock:
        # A lock belongs to one event loop, and a server may outlive one (e.g. several `run_sync` calls).
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock_loop is not loop:
            self._lock, self._lock_loop = asyncio.Lock(), loop
        return self._lock

    async def __aenter__(self) -> Self:
        """Connect to the server (starting its process first for `MCPServerStdio`); a no-op if already entered.

        A connection that died meanwhile (the server process exited, the HTTP stream dropped) is replaced, so
        every operation after a server crash starts it again instead of failing.

        Raises:
            TimeoutError: If the server did not initialize within `timeout` seconds.
        """
        async with self._guard():
            dead = self._connection
            if dead is None or dead.closed:
                self._connection = None
                self._drop_caches()
                if dead is not None:
                    await dead.close()
                self._connection = await Connection.open(
                    self.client_streams, self._make_session, time_limit=self.timeout, after_initialize=self._configure
                )
            self._entered += 1
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        """Leave the server; the last exit disconnects and drops the cached tool, resource and prompt lists."""
        async with self._guard():
            if self._entered == 0:
                return None
            self._entered -= 1
            if self._entered == 0:
                connection, self._connection = self._connection, None
                self._drop_caches()
                if connection is not None:
                    await connection.close()
        return None

    def _drop_caches(self) -> None:
        self._cached_tools = self._cached_resources = self._cached_prompts = None

    def _make_session(self, read: Any, write: Any) -> ClientSession:
        return ClientSession(
            read,
            write,
            read_timeout_seconds=self.read_timeout,
            sampling_callback=self._sample if self.allow_sampling else None,
            elicitation_callback=self.elicitation_callback,
            logging_callback=self.log_handler,
            message_handler=self._on_message,
            client_info=self.client_info,
        )

    async def _configure(self, session: ClientSession, result: mcp_types.InitializeResult) -> None:
        if self.log_level is not None and result.capabilities.logging is not None:
            await _requests.set_log_level(session, self.log_level)

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self._tools_generation += 1
            self._cached_tools = None
        elif isinstance(message, mcp_types.ResourceListChangedNotification):
            self._resources_generation += 1
            self._cached_resources = None
        elif isinstance(message, mcp_types.PromptListChangedNotification):
            self._prompts_generation += 1
            self._cached_prompts = None

    @property
    def is_running(self) -> bool:
        """Whether the server is entered and its connection is alive."""
        return self._connection is not None and not self._connection.closed

    def _initialized(self) -> mcp_types.InitializeResult:
        connection = self._connection
        if connection is None or connection.result is None:
            raise UserError(f'{self.label} is not running: enter it first with `async with server:`.')
        return connection.result

    @asynccontextmanager
    async def _session(self) -> AsyncGenerator[ClientSession]:
        """Enter the server for one operation and lend it the session; losing the connection marks it dead."""
        async with self:
            connection = self._connection
            assert connection is not None, 'an entered server has a connection'
            assert connection.session is not None, 'an open connection has a session'
            try:
                yield connection.session
            except MCPError as error:
                # The transport can fail a request before its reader sees the end of the stream.
                if error.code == mcp_types.CONNECTION_CLOSED:
                    connection.closed = True
                raise

    @property
    def server_info(self) -> mcp_types.Implementation:
        """The information the server sent during initialization."""
        return self._initialized().server_info

    @property
    def capabilities(self) -> ServerCapabilities:
        """The capabilities the server advertised during initialization."""
        return ServerCapabilities.from_mcp_sdk(self._initialized().capabilities)

    @property
    def instructions(self) -> str | None:
        """The instructions the server sent during initialization."""
        return self._initialized().instructions

    # Network operations: plain data in and out.

    async def list_tools(self) -> list[mcp_types.Tool]:
        """The tools currently offered by the server (cached: see `cache_tools`).

        Raises:
            MCPError: If the server returns an error.
        """
        async with self._session() as session:
            if self.cache_tools and self._cached_tools is not None:
                return list(self._cached_tools)
            generation = self._tools_generation
            tools = await _requests.list_tools(session)
            if self.cache_tools and generation == self._tools_generation:
                self._cached_tools = tools
            return list(tools)

    async def direct_call_tool(
        self, name: str, args: dict[str, Any], metadata: dict[str, Any] | None = None
    ) -> ToolResult:
        """Call a tool on the server.

        Args:
            name: The name of the tool (without `tool_prefix`).
            args: The arguments to pass to the tool.
            metadata: Request-level metadata (sent as the request's `_meta`).

        Returns:
            The structured result if the tool returned one; otherwise its content as text, `BinaryContent`
            (images, audio, binary resources) or a list of those. Linked resources are read.

        Raises:
            ModelRetry: If the tool call fails.
            MCPError: If the connection to the server is lost.
        """
        async with self._session() as session:
            return await _requests.call_tool(session, name, args, metadata, self.read_resource)

    async def list_resources(self) -> list[Resource]:
        """The resources currently present on the server (cached: see `cache_resources`); none if it offers none.

        Raises:
            MCPError: If the server returns an error.
        """
        async with self._session() as session:
            if self.cache_resources and self._cached_resources is not None:
                return list(self._cached_resources)
            if not self.capabilities.resources:
                return []
            generation = self._resources_generation
            listed = await _requests.list_resources(session)
            resources = [Resource.from_mcp_sdk(resource) for resource in listed]
            if self.cache_resources and generation == self._resources_generation:
                self._cached_resources = resources
            return list(resources)

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        """The resource templates currently present on the server; none if it offers no resources.

        Raises:
            MCPError: If the server returns an error.
        """
        async with self._session() as session:
            if not self.capabilities.resources:
                return []
            listed = await _requests.list_resource_templates(session)
            return [ResourceTemplate.from_mcp_sdk(template) for template in listed]

    async def read_resource(self, uri: str | Resource) -> str | BinaryContent | list[str | BinaryContent]:
        """Read the contents of a resource.

        Args:
            uri: The URI of the resource, or the `Resource` itself.

        Returns:
            The contents: text or `BinaryContent`, a single item directly and several as a list.

        Raises:
            MCPError: If the server returns an error.
        """
        target = uri.uri if isinstance(uri, Resource) else uri
        async with self._session() as session:
            with _requests.mcp_errors():
                result = await session.read_resource(target)
        items = [resource_contents(item) for item in result.contents]
        return items[0] if len(items) == 1 else items

    async def list_prompts(self) -> list[Prompt]:
        """The prompt templates the server offers (cached: see `cache_prompts`); none if it offers no prompts.

        Raises:
            MCPError: If the server returns an error.
        """
        async with self._session() as session:
            if self.cache_prompts and self._cached_prompts is not None:
                return list(self._cached_prompts)
            if not self.capabilities.prompts:
                return []
            generation = self._prompts_generation
            prompts = [Prompt.from_mcp_sdk(prompt) for prompt in await _requests.list_prompts(session)]
            if self.cache_prompts and generation == self._prompts_generation:
                self._cached_prompts = prompts
            return list(prompts)

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> PromptResult:
        """Render one of the server's prompt templates.

        Args:
            name: The name of the prompt.
            arguments: Values for the prompt's arguments.

        Raises:
            MCPError: If the server offers no prompts, or returns an error.
        """
        async with self._session() as session:
            if not self.capabilities.prompts:
                raise MCPError(
                    f'{self.label} offers no prompts (no `prompts` capability): cannot get prompt {name!r}.',
                    mcp_types.METHOD_NOT_FOUND,
                )
            return prompt_result(await _requests.get_prompt(session, name, arguments))

    async def fetch_instructions(self) -> str | None:
        """The instructions the server sends during initialization (connecting for the call if needed)."""
        async with self:
            return self.instructions

    # Agent glue.

    async def get_instructions(self, ctx: RunContext[Any]) -> InstructionPart | None:
        """The server's instructions for how to use its tools, if `include_instructions` is on.

        They are marked dynamic, since they may change between connections.

        Args:
            ctx: The run context for this agent run.
        """
        if not self.include_instructions:
            return None
        text = await self.fetch_instructions()
        return InstructionPart(text, dynamic=True) if text else None

    def _prefixed(self, name: str) -> str:
        return f'{self.tool_prefix}_{name}' if self.tool_prefix else name

    def _unprefixed(self, name: str) -> str:
        return name.removeprefix(f'{self.tool_prefix}_') if self.tool_prefix else name

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """The server's tools, under their prefixed names."""
        self._run_model = ctx.model
        tools: dict[str, ToolsetTool[Any]] = {}
        for tool in await self.list_tools():
            tool_def = tool_definition(
                tool, self._prefixed(tool.name), include_return_schema=self.include_return_schema
            )
            tools[tool_def.name] = ToolsetTool(
                toolset=self, tool_def=tool_def, max_retries=self.max_retries, args_validator=ANY_OBJECT_ARGS
            )
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        """Call one of the server's tools (through `process_tool_call` if set).

        Binary items of the result (images, audio, files) are sent to the model as content following the tool
        return, which refers to them by identifier.
        """
        self._run_model = ctx.model
        original = self._unprefixed(name)
        if original != name:
            # `process_tool_call` sees the tool as the server knows it.
            ctx = replace(ctx, tool_name=original)
        if self.process_tool_call is not None:
            result = await self.process_tool_call(ctx, self.direct_call_tool, original, tool_args)
        else:
            result = await self.direct_call_tool(original, tool_args)
        return for_model(result)

    async def _sample(
        self, context: ClientRequestContext, params: mcp_types.CreateMessageRequestParams
    ) -> mcp_types.CreateMessageResult | mcp_types.CreateMessageResultWithTools | mcp_types.ErrorData:
        return await answer_sampling(self.sampling_model or self._run_model, params)
