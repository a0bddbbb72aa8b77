"""Conversions between MCP SDK content and the agent's data: tool definitions, tool results and resource contents."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import replace
from typing import Any, TypeAlias, cast

import mcp_types
from pydantic_core import SchemaValidator, core_schema, from_json

from agent._content import BinaryContent, ToolReturn, UserContent
from agent._tool_def import ToolDefinition

__all__ = (
    'ANY_OBJECT_ARGS',
    'ContentItem',
    'error_text',
    'for_model',
    'resource_contents',
    'result_content_item',
    'single_or_list',
    'tool_definition',
)

ContentItem: TypeAlias = str | BinaryContent | dict[str, Any] | list[Any]
"""One converted content item."""

_OBJECT = SchemaValidator(
    core_schema.dict_schema(keys_schema=core_schema.str_schema(), values_schema=core_schema.any_schema())
)


class _AnyObjectArgs:
    """Accepts any JSON object of arguments: the MCP server validates them against the tool's schema itself."""

    def validate_json(self, input: str | bytes, /, *, context: Any = None) -> dict[str, Any]:
        # Models sometimes send an empty string for a call without arguments.
        return _OBJECT.validate_json(input if input.strip() else '{}', context=context)

    def validate_python(self, input: Any, /, *, context: Any = None) -> dict[str, Any]:
        return _OBJECT.validate_python({} if input is None else input, context=context)


ANY_OBJECT_ARGS = _AnyObjectArgs()
"""The argument validator of MCP tools."""


def tool_definition(tool: mcp_types.Tool, name: str, *, include_return_schema: bool | None = None) -> ToolDefinition:
    """The definition the model sees for an MCP tool, offered under `name`."""
    task_support = tool.execution.task_support if tool.execution is not None else None
    return ToolDefinition(
        name=name,
        description=tool.description,
        parameters_json_schema=tool.input_schema,
        return_schema=tool.output_schema or None,
        include_return_schema=include_return_schema,
        metadata={
            'meta': tool.meta,
            'annotations': tool.annotations.model_dump(mode='json', by_alias=True, exclude_none=True)
            if tool.annotations
            else None,
            'task': task_support in ('optional', 'required'),
            'output_schema': tool.output_schema or None,
        },
    )


def _binary(data: str, media_type: str | None) -> BinaryContent:
    binary = BinaryContent(base64.b64decode(data), media_type=media_type or 'application/octet-stream')
    return BinaryContent.narrow_type(binary)


def resource_contents(item: mcp_types.TextResourceContents | mcp_types.BlobResourceContents) -> str | BinaryContent:
    """One item of a resource's contents: text, or binary data with its media type."""
    if isinstance(item, mcp_types.TextResourceContents):
        return item.text
    return _binary(item.blob, item.mime_type)


def result_content_item(
    item: mcp_types.TextContent | mcp_types.ImageContent | mcp_types.AudioContent | mcp_types.EmbeddedResource,
) -> ContentItem:
    """One content block of a tool result (resource links are read by the server, not converted here).

    Text that holds a JSON object or array is parsed: servers without structured output send data that way.
    """
    if isinstance(item, mcp_types.TextContent):
        if item.text.startswith(('{', '[')):
            try:
                return cast(ContentItem, from_json(item.text))
            except ValueError:
                pass
        return item.text
    if isinstance(item, mcp_types.ImageContent | mcp_types.AudioContent):
        return _binary(item.data, item.mime_type)
    return resource_contents(item.resource)


def single_or_list(items: list[ContentItem]) -> ContentItem | list[ContentItem]:
    """A single item as itself, several (or none) as a list."""
    return items[0] if len(items) == 1 else items


def error_text(result: mcp_types.CallToolResult) -> str:
    """The message of a failed tool call, from its text content."""
    texts = [item.text for item in result.content if isinstance(item, mcp_types.TextContent)]
    return '\n'.join(texts) or 'The tool call failed without a message.'


def for_model(result: object) -> object:
    """A tool result as the agent sends it to the model: binary items move to content after the tool return.

    A tool return is text (JSON) for the model, which cannot carry raw bytes; each binary item is replaced by a
    reference to its identifier and sent along as user content, where models accept images, audio and files.
    """
    items = cast('list[object]', result) if isinstance(result, list) else [result]
    if not any(isinstance(item, BinaryContent) for item in items):
        return cast(object, result)
    references: list[object] = []
    files: list[UserContent] = []
    for item in items:
        if isinstance(item, BinaryContent):
            identifier = item.identifier or hashlib.sha1(item.data).hexdigest()[:12]
            files.append(replace(item, identifier=identifier))
            references.append(f'See file {identifier}.')
        else:
            references.append(item)
    return ToolReturn(references[0] if len(references) == 1 else references, content=files)
