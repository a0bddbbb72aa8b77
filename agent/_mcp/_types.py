"""The data `agent.mcp` hands out: errors, resources, capabilities, instructions and the callback types.

These are plain dataclasses (pydantic validates them where they cross a wire), converted from the MCP SDK's
pydantic models by `from_mcp_sdk` class methods, so code using a server never needs the SDK's types for them.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, TypeAlias, cast

import mcp_types
import pydantic
from mcp.client.session import ElicitationFnT, LoggingFnT
from mcp.shared.exceptions import MCPError as SDKMCPError

from agent._content import BinaryContent
from agent._parts import InstructionPart
from agent._run_context import RunContext

__all__ = (
    'TOOL_RESULT_ADAPTER',
    'BaseResource',
    'CallToolFunc',
    'ElicitationFnT',
    'Icon',
    'InstructionPart',
    'LoggingFnT',
    'MCPError',
    'ProcessToolCallback',
    'Resource',
    'ResourceAnnotations',
    'ResourceTemplate',
    'ServerCapabilities',
    'ToolResult',
    'annotations_from_sdk',
    'icons_from_sdk',
)


class MCPError(RuntimeError):
    """Raised when an MCP server returns an error response (the MCP spec's `ErrorData`)."""

    message: str
    """The error message."""
    code: int
    """The error code returned by the server."""
    data: dict[str, Any] | None
    """Additional information about the error, if provided by the server."""

    def __init__(self, message: str, code: int, data: dict[str, Any] | None = None) -> None:
        """Create the error.

        Args:
            message: The error message.
            code: The error code returned by the server.
            data: Additional information about the error.
        """
        super().__init__(message)
        self.message = message
        self.code = code
        self.data = data

    @classmethod
    def from_mcp_sdk(cls, error: SDKMCPError) -> MCPError:
        """Create an `MCPError` from an MCP SDK `MCPError`.

        Args:
            error: The error raised by the MCP SDK.
        """
        data: Any = error.data
        return cls(error.message, error.code, cast('dict[str, Any]', data) if isinstance(data, dict) else None)

    def __str__(self) -> str:
        return f'{self.message} (MCP error {self.code})'


@dataclass(kw_only=True)
class ResourceAnnotations:
    """Additional properties describing an MCP entity (the MCP spec's annotations)."""

    audience: list[mcp_types.Role] | None = None
    """Intended audience for this entity."""
    priority: Annotated[float, pydantic.Field(ge=0.0, le=1.0)] | None = None
    """Priority level for this entity, ranging from 0.0 to 1.0."""
    last_modified: str | None = None
    """When the entity was last modified, as an ISO 8601 timestamp."""

    @classmethod
    def from_mcp_sdk(cls, mcp_annotations: mcp_types.Annotations) -> ResourceAnnotations:
        """Convert from MCP SDK `Annotations`.

        Args:
            mcp_annotations: The MCP SDK annotations object.
        """
        return cls(
            audience=mcp_annotations.audience,
            priority=mcp_annotations.priority,
            last_modified=mcp_annotations.last_modified,
        )


@dataclass(kw_only=True)
class Icon:
    """An icon a user interface may show for an MCP entity."""

    src: str
    """The icon's URL or `data:` URI."""
    mime_type: str | None = None
    """The media type of the icon, if known."""
    sizes: list[str] | None = None
    """The sizes the icon is available in, e.g. `['48x48', '96x96']`."""

    @classmethod
    def from_mcp_sdk(cls, mcp_icon: mcp_types.Icon) -> Icon:
        """Convert from an MCP SDK `Icon`.

        Args:
            mcp_icon: The MCP SDK icon object.
        """
        return cls(src=mcp_icon.src, mime_type=mcp_icon.mime_type, sizes=mcp_icon.sizes)


@dataclass(kw_only=True)
class BaseResource(ABC):
    """Base class for MCP resources."""

    name: str
    """The programmatic name of the resource."""
    title: str | None = None
    """Human-readable title for UI contexts."""
    description: str | None = None
    """A description of what this resource represents."""
    mime_type: str | None = None
    """The MIME type of the resource, if known."""
    annotations: ResourceAnnotations | None = None
    """Optional annotations for the resource."""
    icons: list[Icon] | None = None
    """Optional icons for the resource."""
    metadata: dict[str, Any] | None = None
    """Optional metadata for the resource."""


def annotations_from_sdk(value: mcp_types.Annotations | None) -> ResourceAnnotations | None:
    """The SDK's annotations converted, if there are any."""
    return ResourceAnnotations.from_mcp_sdk(value) if value is not None else None


def icons_from_sdk(value: list[mcp_types.Icon] | None) -> list[Icon] | None:
    """The SDK's icons converted, if there are any."""
    return [Icon.from_mcp_sdk(icon) for icon in value] if value else None


@dataclass(kw_only=True)
class Resource(BaseResource):
    """A resource that can be read from an MCP server."""

    uri: str
    """The URI of the resource."""
    size: int | None = None
    """The size of the raw resource content in bytes (before base64 encoding), if known."""

    @classmethod
    def from_mcp_sdk(cls, mcp_resource: mcp_types.Resource) -> Resource:
        """Convert from an MCP SDK `Resource`.

        Args:
            mcp_resource: The MCP SDK resource object.
        """
        return cls(
            name=mcp_resource.name,
            title=mcp_resource.title,
            description=mcp_resource.description,
            mime_type=mcp_resource.mime_type,
            annotations=annotations_from_sdk(mcp_resource.annotations),
            icons=icons_from_sdk(mcp_resource.icons),
            metadata=mcp_resource.meta,
            uri=mcp_resource.uri,
            size=mcp_resource.size,
        )


@dataclass(kw_only=True)
class ResourceTemplate(BaseResource):
    """A template for parameterized resources on an MCP server."""

    uri_template: str
    """URI template (RFC 6570) for constructing resource URIs."""

    @classmethod
    def from_mcp_sdk(cls, mcp_template: mcp_types.ResourceTemplate) -> ResourceTemplate:
        """Convert from an MCP SDK `ResourceTemplate`.

        Args:
            mcp_template: The MCP SDK resource template object.
        """
        return cls(
            name=mcp_template.name,
            title=mcp_template.title,
            description=mcp_template.description,
            mime_type=mcp_template.mime_type,
            annotations=annotations_from_sdk(mcp_template.annotations),
            icons=icons_from_sdk(mcp_template.icons),
            metadata=mcp_template.meta,
            uri_template=mcp_template.uri_template,
        )


@dataclass(kw_only=True)
class ServerCapabilities:
    """Capabilities that an MCP server supports."""

    experimental: list[str] | None = None
    """Experimental, non-standard capabilities that the server supports."""
    logging: bool = False
    """Whether the server supports sending log messages to the client."""
    prompts: bool = False
    """Whether the server offers any prompt templates."""
    prompts_list_changed: bool = False
    """Whether the server will emit notifications when the list of prompts changes."""
    resources: bool = False
    """Whether the server offers any resources to read."""
    resources_list_changed: bool = False
    """Whether the server will emit notifications when the list of resources changes."""
    tools: bool = False
    """Whether the server offers any tools to call."""
    tools_list_changed: bool = False
    """Whether the server will emit notifications when the list of tools changes."""
    completions: bool = False
    """Whether the server offers autocompletion suggestions for prompts and resources."""

    @classmethod
    def from_mcp_sdk(cls, mcp_capabilities: mcp_types.ServerCapabilities) -> ServerCapabilities:
        """Convert from MCP SDK `ServerCapabilities`.

        Args:
            mcp_capabilities: The MCP SDK server capabilities object.
        """
        caps = mcp_capabilities
        return cls(
            experimental=list(caps.experimental) if caps.experimental is not None else None,
            logging=caps.logging is not None,
            prompts=caps.prompts is not None,
            prompts_list_changed=bool(caps.prompts and caps.prompts.list_changed),
            resources=caps.resources is not None,
            resources_list_changed=bool(caps.resources and caps.resources.list_changed),
            tools=caps.tools is not None,
            tools_list_changed=bool(caps.tools and caps.tools.list_changed),
            completions=caps.completions is not None,
        )


ToolResult: TypeAlias = (
    str | BinaryContent | dict[str, Any] | list[Any] | Sequence[str | BinaryContent | dict[str, Any] | list[Any]]
)
"""The result type of an MCP tool call."""

TOOL_RESULT_ADAPTER: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(
    BinaryContent | str | dict[str, Any] | list[BinaryContent | str | dict[str, Any] | list[Any]]
)
"""Serializes a `ToolResult` to JSON-compatible data and back (binary items keep their type).

Binary content comes first in the unions so a serialized `BinaryContent` is not read back as a plain dict.
"""

CallToolFunc: TypeAlias = Callable[[str, dict[str, Any], dict[str, Any] | None], Awaitable[ToolResult]]
"""A function that calls a tool: `(name, args, metadata) -> result`."""

ProcessToolCallback: TypeAlias = Callable[[RunContext[Any], CallToolFunc, str, dict[str, Any]], Awaitable[ToolResult]]
"""Wraps a tool call: receives the run context, the call function, the tool name and the arguments.

Use it to customize calls, e.g. to pass request metadata: `return await call_tool(name, args, {'user': ...})`.
"""
