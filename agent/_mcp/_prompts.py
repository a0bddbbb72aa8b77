"""The prompt templates an MCP server offers, and what rendering one returns, as plain dataclasses.

`MCPServer.list_prompts` returns `Prompt`s and `MCPServer.get_prompt` a `PromptResult`, whose messages hold
the agent's own content types (`TextContent`, `BinaryContent`) where the MCP content has one, and
`ResourceLink` / `EmbeddedResource` for the two MCP content kinds that have none. The annotations and `_meta`
of text, image and audio blocks are kept on the content (`TextContent.metadata`,
`BinaryContent.vendor_metadata`) under `mcp_annotations` and `mcp_meta`, so nothing the server sent is lost.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import mcp_types

from agent._content import BinaryContent, TextContent

from ._convert import resource_contents
from ._types import Icon, ResourceAnnotations, annotations_from_sdk, icons_from_sdk

__all__ = (
    'ContentBlock',
    'EmbeddedResource',
    'Prompt',
    'PromptArgument',
    'PromptMessage',
    'PromptResult',
    'PromptRole',
    'ResourceLink',
    'prompt_result',
)


@dataclass(kw_only=True)
class PromptArgument:
    """An argument of a prompt template."""

    name: str
    """The name of the argument."""
    title: str | None = None
    """A human-readable title for the argument."""
    description: str | None = None
    """What the argument is for."""
    required: bool | None = None
    """Whether the argument must be given; `None` when the server did not say."""


@dataclass(kw_only=True)
class Prompt:
    """A prompt or prompt template the server offers."""

    name: str
    """The programmatic name of the prompt."""
    title: str | None = None
    """A human-readable title for the prompt."""
    description: str | None = None
    """What the prompt provides."""
    arguments: list[PromptArgument] | None = None
    """The arguments that fill in the template."""
    icons: list[Icon] | None = None
    """Icons for the prompt."""
    metadata: dict[str, Any] | None = None
    """The prompt's `_meta`, as the server sent it."""

    @classmethod
    def from_mcp_sdk(cls, mcp_prompt: mcp_types.Prompt) -> Prompt:
        """Convert from an MCP SDK `Prompt`.

        Args:
            mcp_prompt: The MCP SDK prompt object.
        """
        arguments = [
            PromptArgument(name=arg.name, title=arg.title, description=arg.description, required=arg.required)
            for arg in mcp_prompt.arguments or ()
        ]
        return cls(
            name=mcp_prompt.name,
            title=mcp_prompt.title,
            description=mcp_prompt.description,
            arguments=arguments or None,
            icons=icons_from_sdk(mcp_prompt.icons),
            metadata=mcp_prompt.meta,
        )


PromptRole: TypeAlias = Literal['user', 'assistant']
"""Who a prompt message is from."""


@dataclass(kw_only=True)
class ResourceLink:
    """A reference to a resource the server can read, in a prompt or tool result (its content is not included)."""

    uri: str
    """The URI of the linked resource."""
    name: str
    """The programmatic name of the linked resource."""
    title: str | None = None
    """A human-readable title."""
    description: str | None = None
    """What the linked resource represents."""
    mime_type: str | None = None
    """The media type of the linked resource, if known."""
    size: int | None = None
    """The size of the raw content in bytes (before base64 encoding), if known."""
    annotations: ResourceAnnotations | None = None
    """Annotations of the link."""
    icons: list[Icon] | None = None
    """Icons for the linked resource."""
    metadata: dict[str, Any] | None = None
    """The link's `_meta`, as the server sent it."""
    type: Literal['resource_link'] = 'resource_link'
    """The discriminator of this content kind."""

    @classmethod
    def from_mcp_sdk(cls, link: mcp_types.ResourceLink) -> ResourceLink:
        """Convert from an MCP SDK `ResourceLink`.

        Args:
            link: The MCP SDK resource link.
        """
        return cls(
            uri=link.uri,
            name=link.name,
            title=link.title,
            description=link.description,
            mime_type=link.mime_type,
            size=link.size,
            annotations=annotations_from_sdk(link.annotations),
            icons=icons_from_sdk(link.icons),
            metadata=link.meta,
        )


@dataclass(kw_only=True)
class EmbeddedResource:
    """A resource whose content is included in a prompt or tool result."""

    uri: str
    """The URI of the resource."""
    content: str | BinaryContent
    """The resource's content: text, or binary data with its media type."""
    type: Literal['resource'] = 'resource'
    """The discriminator of this content kind."""
    mime_type: str | None = None
    """The media type of the resource, if known."""
    annotations: ResourceAnnotations | None = None
    """Annotations of the embedding."""
    metadata: dict[str, Any] | None = None
    """The embedding's own `_meta`."""
    resource_metadata: dict[str, Any] | None = None
    """The `_meta` of the embedded resource contents (separate from the embedding's)."""

    @classmethod
    def from_mcp_sdk(cls, embedded: mcp_types.EmbeddedResource) -> EmbeddedResource:
        """Convert from an MCP SDK `EmbeddedResource`.

        Args:
            embedded: The MCP SDK embedded resource.
        """
        resource = embedded.resource
        return cls(
            uri=resource.uri,
            content=resource_contents(resource),
            mime_type=resource.mime_type,
            annotations=annotations_from_sdk(embedded.annotations),
            metadata=embedded.meta,
            resource_metadata=resource.meta,
        )


ContentBlock: TypeAlias = TextContent | BinaryContent | ResourceLink | EmbeddedResource
"""One block of content in a prompt message."""


@dataclass(kw_only=True)
class PromptMessage:
    """One message of a rendered prompt."""

    role: PromptRole
    """Who the message is from."""
    content: ContentBlock
    """The message's content."""


@dataclass(kw_only=True)
class PromptResult:
    """A rendered prompt: what `MCPServer.get_prompt` returns."""

    messages: list[PromptMessage]
    """The prompt's messages."""
    description: str | None = None
    """A description of the prompt, if the server gave one."""
    metadata: dict[str, Any] | None = None
    """The result's `_meta`, as the server sent it."""


def _block_metadata(
    block: mcp_types.TextContent | mcp_types.ImageContent | mcp_types.AudioContent,
) -> dict[str, Any] | None:
    metadata: dict[str, Any] = {}
    if block.annotations is not None:
        metadata['mcp_annotations'] = ResourceAnnotations.from_mcp_sdk(block.annotations)
    if block.meta:
        metadata['mcp_meta'] = block.meta
    return metadata or None


def _content_block(block: mcp_types.ContentBlock) -> ContentBlock:
    if isinstance(block, mcp_types.TextContent):
        return TextContent(block.text, metadata=_block_metadata(block))
    if isinstance(block, mcp_types.ImageContent | mcp_types.AudioContent):
        binary = BinaryContent(
            base64.b64decode(block.data), media_type=block.mime_type, vendor_metadata=_block_metadata(block)
        )
        return BinaryContent.narrow_type(binary)
    if isinstance(block, mcp_types.EmbeddedResource):
        return EmbeddedResource.from_mcp_sdk(block)
    return ResourceLink.from_mcp_sdk(block)


def prompt_result(result: mcp_types.GetPromptResult) -> PromptResult:
    """A rendered prompt from the SDK's result."""
    return PromptResult(
        messages=[
            PromptMessage(role=message.role, content=_content_block(message.content)) for message in result.messages
        ],
        description=result.description,
        metadata=result.meta,
    )
