"""The MCP requests `MCPServer` sends, with pagination, error mapping and result conversion."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

import mcp_types
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError as SDKMCPError

from agent._content import BinaryContent
from agent.exceptions import ModelRetry

from ._convert import ContentItem, error_text, result_content_item, single_or_list
from ._types import MCPError, ToolResult

__all__ = (
    'call_tool',
    'get_prompt',
    'list_prompts',
    'list_resource_templates',
    'list_resources',
    'list_tools',
    'mcp_errors',
    'set_log_level',
)

_PageT = TypeVar('_PageT')
_ItemT = TypeVar('_ItemT')

ReadResource = Callable[[str], Awaitable[str | BinaryContent | list[str | BinaryContent]]]


@contextmanager
def mcp_errors() -> Generator[None]:
    """Turn the MCP SDK's errors into `MCPError`."""
    try:
        yield
    except SDKMCPError as error:
        raise MCPError.from_mcp_sdk(error) from error


async def _all_pages(
    fetch: Callable[[mcp_types.PaginatedRequestParams | None], Awaitable[_PageT]],
    items: Callable[[_PageT], list[_ItemT]],
    next_cursor: Callable[[_PageT], str | None],
) -> list[_ItemT]:
    collected: list[_ItemT] = []
    params: mcp_types.PaginatedRequestParams | None = None
    with mcp_errors():
        while True:
            page = await fetch(params)
            collected.extend(items(page))
            cursor = next_cursor(page)
            if not cursor:
                return collected
            params = mcp_types.PaginatedRequestParams(cursor=cursor)


async def list_tools(session: ClientSession) -> list[mcp_types.Tool]:
    """Every tool, across pages."""
    return await _all_pages(lambda p: session.list_tools(params=p), lambda page: page.tools, lambda r: r.next_cursor)


async def list_resources(session: ClientSession) -> list[mcp_types.Resource]:
    """Every resource, across pages."""
    return await _all_pages(
        lambda p: session.list_resources(params=p), lambda page: page.resources, lambda r: r.next_cursor
    )


async def list_resource_templates(session: ClientSession) -> list[mcp_types.ResourceTemplate]:
    """Every resource template, across pages."""
    return await _all_pages(
        lambda p: session.list_resource_templates(params=p),
        lambda page: page.resource_templates,
        lambda r: r.next_cursor,
    )


async def list_prompts(session: ClientSession) -> list[mcp_types.Prompt]:
    """Every prompt, across pages."""
    return await _all_pages(
        lambda p: session.list_prompts(params=p), lambda page: page.prompts, lambda r: r.next_cursor
    )


async def get_prompt(session: ClientSession, name: str, arguments: dict[str, str] | None) -> mcp_types.GetPromptResult:
    """Render a prompt."""
    with mcp_errors():
        return await session.get_prompt(name, arguments)


async def set_log_level(session: ClientSession, level: mcp_types.LoggingLevel) -> None:
    """Ask the server to send log messages at `level` and above."""
    # The request itself, not `ClientSession.set_logging_level`, which warns on every call.
    request = mcp_types.SetLevelRequest(params=mcp_types.SetLevelRequestParams(level=level))
    with mcp_errors():
        await session.send_request(request, mcp_types.EmptyResult)


async def call_tool(
    session: ClientSession,
    name: str,
    args: dict[str, Any],
    metadata: dict[str, Any] | None,
    read_resource: ReadResource,
) -> ToolResult:
    """Call a tool and convert its result; failures become `ModelRetry`, a lost connection `MCPError`."""
    try:
        result = await session.call_tool(name, args, meta=cast('mcp_types.RequestParamsMeta | None', metadata))
    except SDKMCPError as error:
        if error.code == mcp_types.CONNECTION_CLOSED:
            raise MCPError.from_mcp_sdk(error) from error
        raise ModelRetry(error.message) from error
    if result.is_error:
        raise ModelRetry(error_text(result))
    structured = result.structured_content
    # Structured content is the tool's own return value, and text blocks beside it only repeat it as JSON; other
    # blocks (images, resources) carry more, so then the content is used instead.
    if structured and all(isinstance(block, mcp_types.TextContent) for block in result.content):
        # The MCP SDK wraps a return value that is not an object (a number, a list) as `{"result": value}`.
        if len(structured) == 1 and 'result' in structured:
            return structured['result']
        return structured
    items: list[ContentItem] = []
    for block in result.content:
        if isinstance(block, mcp_types.ResourceLink):
            try:
                linked = await read_resource(block.uri)
            except MCPError as error:
                raise ModelRetry(f'Could not read the linked resource {block.uri!r}: {error}') from error
            items.extend(linked if isinstance(linked, list) else [linked])
        else:
            items.append(result_content_item(block))
    return single_or_list(items)
