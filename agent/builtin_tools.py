"""Native (provider-executed) tools: web search, URL fetching, code execution, image generation, remote MCP.

The model provider runs these tools itself; the agent only asks for them in `ModelRequestParameters.native_tools`.
Each is a plain dataclass whose `kind` names it; a model supports the kinds listed in its profile's
`supported_native_tools`. `agent.native_tools` offers the same classes under their newer "native" names.

Every tool class registers itself by `kind` in `BUILTIN_TOOL_TYPES`, so a tool that crossed a process boundary
as JSON (e.g. into a durable activity) comes back as the same class: fields typed `NativeToolValue` turn a
`{'kind': ..., ...}` mapping of a known kind back into the tool, and leave anything else as it is.

```python
agent = Agent('anthropic:claude-sonnet-4-6', builtin_tools=[WebSearchTool(max_uses=3)])
```
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Annotated, Any, Literal, TypeAlias, Union, cast

import pydantic
from pydantic_core import core_schema
from typing_extensions import TypedDict, deprecated

from .exceptions import UserError

__all__ = (
    'BUILTIN_TOOL_TYPES',
    'AbstractBuiltinTool',
    'CodeExecutionTool',
    'FileSearchTool',
    'ImageAspectRatio',
    'ImageGenerationTool',
    'MCPServerTool',
    'MemoryTool',
    'ToolSearchTool',
    'UrlContextTool',
    'WebFetchTool',
    'WebSearchTool',
    'WebSearchUserLocation',
    'XSearchTool',
    'builtin_tool_from_spec',
    'native_kinds',
    'native_tool_kind',
)

BUILTIN_TOOL_TYPES: dict[str, type[AbstractBuiltinTool]] = {}
"""Every native tool class, by its `kind` (filled in as the classes are defined, custom ones included)."""


@dataclass(kw_only=True)
class AbstractBuiltinTool:
    """A tool the model provider executes itself, passed to the model in `ModelRequestParameters.native_tools`.

    Subclass it as a `kw_only` dataclass with a new default for `kind` to define your own; the subclass is
    registered in `BUILTIN_TOOL_TYPES` under that kind.
    """

    kind: str = 'unknown_builtin_tool'
    """What tool this is; models list the kinds they support in `ModelProfile.supported_native_tools`."""
    optional: bool = False
    """Whether a model without this tool may go without it: it is then left out of the request, where a
    required tool (the default) with no local fallback makes the request fail with a `UserError`."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        kind = cls.__dict__.get('kind')
        if isinstance(kind, str):
            BUILTIN_TOOL_TYPES[kind] = cls

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: pydantic.GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        # A concrete tool validates as itself; the base class stands for any registered tool, picked by `kind`
        # (so `TypeAdapter(AbstractBuiltinTool)` reads back what a list of mixed tools was dumped as).
        if cls is not AbstractBuiltinTool:
            return handler(source)
        tagged = tuple(Annotated[tool, pydantic.Tag(kind)] for kind, tool in BUILTIN_TOOL_TYPES.items())
        return handler(Annotated[Union[tagged], pydantic.Discriminator(native_tool_kind)])  # noqa: UP007

    def __post_init__(self) -> None:
        if type(self) is AbstractBuiltinTool:
            raise TypeError('AbstractBuiltinTool is abstract: use a concrete tool such as WebSearchTool')

    @property
    def unique_id(self) -> str:
        """Identifies this tool among a request's native tools (the kind, unless several may be sent)."""
        return self.kind

    @property
    def label(self) -> str:
        """The tool for error messages: its class and the fields that differ from their defaults."""
        shown: list[str] = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
            if f.name != 'kind' and value != default:
                shown.append(f'{f.name}={value!r}')
        return f'{type(self).__name__}({", ".join(shown)})'


class WebSearchUserLocation(TypedDict, total=False):
    """Roughly where the user is, so searches can favour local results."""

    city: str
    """The city, e.g. `'London'`."""
    country: str
    """The two-letter ISO country code, e.g. `'GB'`."""
    region: str
    """The region or state, e.g. `'England'`."""
    timezone: str
    """The IANA time zone, e.g. `'Europe/London'`."""


@dataclass(kw_only=True)
class WebSearchTool(AbstractBuiltinTool):
    """Lets the model search the web (run by the provider)."""

    kind: str = 'web_search'
    """The tool's kind."""
    search_context_size: Literal['low', 'medium', 'high'] = 'medium'
    """How much of the search results the provider puts in the model's context."""
    user_location: WebSearchUserLocation | None = None
    """Where the user is, for localised results."""
    blocked_domains: list[str] | None = None
    """Domains never to return results from."""
    allowed_domains: list[str] | None = None
    """If set, the only domains to return results from."""
    max_uses: int | None = None
    """The most searches the model may make in one request."""


@dataclass(kw_only=True)
class WebFetchTool(AbstractBuiltinTool):
    """Lets the model fetch the content of a URL (run by the provider)."""

    kind: str = 'web_fetch'
    """The tool's kind."""
    allowed_domains: list[str] | None = None
    """If set, the only domains that may be fetched (subdomains included)."""
    blocked_domains: list[str] | None = None
    """Domains that may never be fetched (subdomains included)."""
    max_uses: int | None = None
    """The most fetches the model may make in one request."""
    enable_citations: bool = False
    """Whether the provider adds citations of the fetched content to the response."""
    max_content_tokens: int | None = None
    """Truncate fetched content beyond about this many tokens."""


@dataclass(kw_only=True)
class CodeExecutionTool(AbstractBuiltinTool):
    """Lets the model run code in the provider's sandbox."""

    kind: str = 'code_execution'
    """The tool's kind."""


ImageAspectRatio: TypeAlias = Literal['21:9', '16:9', '4:3', '3:2', '1:1', '9:16', '3:4', '2:3', '5:4', '4:5']
"""Aspect ratios image generation tools accept."""


@dataclass(kw_only=True)
class ImageGenerationTool(AbstractBuiltinTool):
    """Lets the model generate images (run by the provider); providers ignore the options they lack."""

    kind: str = 'image_generation'
    """The tool's kind."""
    background: Literal['transparent', 'opaque', 'auto'] = 'auto'
    """The image's background."""
    input_fidelity: Literal['high', 'low'] | None = None
    """How closely an edited image keeps the style and features of the input images."""
    moderation: Literal['auto', 'low'] = 'auto'
    """How strictly the provider moderates the generated image."""
    output_compression: int | None = None
    """Compression level (0-100) for JPEG and WebP output."""
    output_format: Literal['png', 'webp', 'jpeg'] | None = None
    """The image's file format."""
    partial_images: int = 0
    """How many partial images to stream while generating."""
    quality: Literal['low', 'medium', 'high', 'auto'] = 'auto'
    """The image's quality."""
    size: Literal['auto', '1024x1024', '1024x1536', '1536x1024'] | None = None
    """The image's size in pixels."""
    aspect_ratio: ImageAspectRatio | None = None
    """The image's aspect ratio, for providers that take one instead of a size."""


@dataclass(kw_only=True)
class MCPServerTool(AbstractBuiltinTool):
    """Lets the provider connect to a remote MCP server and call its tools on the model's behalf."""

    kind: str = 'mcp_server'
    """The tool's kind."""
    id: str
    """A name for the server, unique among the request's MCP servers."""
    url: str
    """The server's URL."""
    authorization_token: str | None = None
    """A token sent to the server in the `Authorization` header."""
    description: str | None = None
    """What the server offers, for the model."""
    allowed_tools: list[str] | None = None
    """If set, the only tools of the server the model may call."""
    headers: dict[str, str] | None = None
    """Extra HTTP headers sent to the server."""

    @property
    def unique_id(self) -> str:
        """`mcp_server:<id>`: a request may use several MCP servers."""
        return f'{self.kind}:{self.id}'


@dataclass(kw_only=True)
class ToolSearchTool(AbstractBuiltinTool):
    """Lets the provider search the request's deferred tools (those with `defer_loading=True`) for the model.

    Function tools with `with_native='tool_search'` are the corpus it searches.
    """

    kind: str = 'tool_search'
    """The tool's kind."""


@deprecated('Use `WebFetchTool` instead.')
@dataclass(kw_only=True)
class UrlContextTool(WebFetchTool):
    """The older name of `WebFetchTool`; models that support `web_fetch` run it as one.

    It keeps its own kind, `'url_context'`, so tools stored under that kind still load as this class.
    """

    kind: str = 'url_context'
    """The tool's kind (the older name of `'web_fetch'`)."""


@dataclass(kw_only=True)
class XSearchTool(AbstractBuiltinTool):
    """Lets the model search posts on X (run by the provider; xAI models)."""

    kind: str = 'x_search'
    """The tool's kind."""
    allowed_x_handles: list[str] | None = None
    """If set, only posts by these handles are searched (at most 10; not together with `excluded_x_handles`)."""
    excluded_x_handles: list[str] | None = None
    """Posts by these handles are left out (at most 10)."""
    from_date: datetime | None = None
    """Only posts created at or after this time (naive times are UTC)."""
    to_date: datetime | None = None
    """Only posts created at or before this time (naive times are UTC)."""
    enable_image_understanding: bool = False
    """Whether the provider also analyses the images in posts."""
    enable_video_understanding: bool = False
    """Whether the provider also analyses the videos in posts."""
    include_output: bool = False
    """Whether the raw search results come back as a `NativeToolReturnPart` (not only the model's summary)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.allowed_x_handles is not None and self.excluded_x_handles is not None:
            raise ValueError('XSearchTool takes allowed_x_handles or excluded_x_handles, not both')
        for name in ('allowed_x_handles', 'excluded_x_handles'):
            handles: list[str] | None = getattr(self, name)
            if handles and len(handles) > 10:
                raise ValueError(f'XSearchTool.{name} may list at most 10 handles, got {len(handles)}')


@dataclass(kw_only=True)
class MemoryTool(AbstractBuiltinTool):
    """Lets the model keep memories across conversations through the provider's memory tool (Anthropic).

    The provider only asks for memory operations; the application stores them, typically with a tool of its own.
    """

    kind: str = 'memory'
    """The tool's kind."""


@dataclass(kw_only=True)
class FileSearchTool(AbstractBuiltinTool):
    """Lets the model search files uploaded to the provider's vector stores (retrieval run by the provider)."""

    file_store_ids: Sequence[str]
    """The stores to search: vector store ids for OpenAI, file search store names for Google."""
    kind: str = 'file_search'
    """The tool's kind."""


DEPRECATED_NATIVE_TOOLS: frozenset[type[AbstractBuiltinTool]] = frozenset({UrlContextTool})  # pyright: ignore[reportDeprecated]
"""Tool classes kept only so stored tools still load; new code uses their replacements."""

SUPPORTED_NATIVE_TOOLS: frozenset[type[AbstractBuiltinTool]] = frozenset(
    cls for cls in BUILTIN_TOOL_TYPES.values() if cls not in DEPRECATED_NATIVE_TOOLS
)
"""Every built-in tool class but the deprecated ones: what a model claiming every native tool supports."""

NATIVE_TOOLS_REQUIRING_CONFIG: frozenset[type[AbstractBuiltinTool]] = frozenset(
    {FileSearchTool, MCPServerTool, MemoryTool, ToolSearchTool}
)
"""Tool classes that cannot be used with their defaults alone (they need ids, URLs or a store)."""


def native_kinds(supported: Iterable[str | type[AbstractBuiltinTool]]) -> frozenset[str]:
    """The kinds a profile's `supported_native_tools` names, whether it lists kinds or tool classes."""
    return frozenset(entry if isinstance(entry, str) else entry.kind for entry in supported)


def native_tool_kind(tool: Any) -> str | None:
    """The kind of a native tool, also when it is still a mapping (as it crossed a process boundary)."""
    kind: Any = cast(Mapping[str, Any], tool).get('kind') if isinstance(tool, Mapping) else getattr(tool, 'kind', None)
    return kind if isinstance(kind, str) else None


@cache
def _adapter(cls: type[AbstractBuiltinTool]) -> pydantic.TypeAdapter[Any]:
    return pydantic.TypeAdapter(cls)


def _revive(value: Any) -> Any:
    cls = BUILTIN_TOOL_TYPES.get(native_tool_kind(value) or '')
    if cls is None or not isinstance(value, Mapping):
        return value
    return _adapter(cls).validate_python(value)


NativeToolValue = Annotated[Any, pydantic.BeforeValidator(_revive)]
"""A native tool in a field that is serialized: a mapping with a known `kind` is validated back into the tool."""


def builtin_tool_from_spec(kind: str, **fields: Any) -> AbstractBuiltinTool:
    """Build a native tool from its kind and fields, as written in an agent spec.

    Raises:
        UserError: for an unknown kind or a field the tool does not have.
        pydantic.ValidationError: for a field value of the wrong type (naming the field).
    """
    cls = BUILTIN_TOOL_TYPES.get(kind)
    if cls is None:
        raise UserError(f'Unknown native tool kind {kind!r}; known kinds: {", ".join(sorted(BUILTIN_TOOL_TYPES))}')
    known = {f.name for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise UserError(f'{cls.__name__} has no field(s) {unknown}; its fields are {sorted(known - {"kind"})}')
    return _adapter(cls).validate_python({**fields, 'kind': kind})
