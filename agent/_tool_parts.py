"""Tool call and tool return parts: function tools, output tools and tools the provider runs itself.

Re-exported by `agent._parts` (and publicly by `agent.messages`); split out so each module stays small.
"""

from __future__ import annotations

import json
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime
from typing import Annotated, Any, Literal, TypeAlias, cast, overload

import pydantic
import pydantic_core

from ._content import MultiModalContent, UserContent, is_multi_modal_content
from ._env import new_id, now_utc

__all__ = (
    'INVALID_JSON_KEY',
    'ArgsNotAnObjectError',
    'BaseToolCallPart',
    'BaseToolReturnPart',
    'NativeToolCallPart',
    'NativeToolReturnPart',
    'ToolCallPart',
    'ToolPartKind',
    'ToolReturnPart',
    'revive_content',
    'tool_return_content_object',
    'tool_return_content_str',
)

INVALID_JSON_KEY = 'INVALID_JSON'
"""The key under which `args_as_dict()` returns arguments that are not a JSON object, as the model wrote them."""

ToolPartKind: TypeAlias = Literal['tool-search', 'capability-load']
"""Tags a call or return part that belongs to a family with a known shape (tool search, capability loading).

Distinct from a tool definition's `kind` (`'function'`, `'output'`, ...), which says how a call is handled.
"""


def new_tool_call_id() -> str:
    """A fresh id for a tool call the provider did not name (from the run's environment)."""
    return new_id('call_')


def tool_return_content_str(content: Any) -> str:
    """Render a whole tool result as text, files included (as their JSON), as the built-in models send it."""
    if isinstance(content, str):
        return content
    return pydantic_core.to_json(content, fallback=repr).decode()


def tool_return_content_object(content: Any) -> dict[str, Any]:
    """Render a tool result as a JSON object (a result that is not one is wrapped under `return_value`)."""
    value = pydantic_core.to_jsonable_python(content, fallback=repr)
    return value if isinstance(value, dict) else {'return_value': value}  # pyright: ignore[reportUnknownVariableType]


_CONTENT_KINDS = frozenset({'image-url', 'audio-url', 'video-url', 'document-url', 'binary'})
_MULTI_MODAL: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(MultiModalContent)


def _revive_one(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    mapping = cast(dict[str, Any], value)
    if mapping.get('kind') in _CONTENT_KINDS:
        try:
            return _MULTI_MODAL.validate_python(mapping)
        except pydantic.ValidationError:
            pass  # a plain object that merely has a `kind` key
    return mapping


def revive_content(value: Any) -> Any:
    """Multi-modal content in a tool result (an image, or lists and objects holding some, at any depth) read back
    from JSON as its own types; objects without a content `kind` stay dicts."""
    if isinstance(value, list):
        items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        return [revive_content(item) for item in items]
    revived = _revive_one(value)
    if isinstance(revived, dict):
        mapping = cast(dict[str, Any], revived)
        return {key: revive_content(item) for key, item in mapping.items()}
    return revived


class ArgsNotAnObjectError(ValueError, AssertionError):
    """Tool call arguments that are valid JSON but not an object.

    A `ValueError` like invalid JSON, and an `AssertionError` too, because that is what Pydantic AI raises for them
    and code written against it catches.
    """


# ----- returns -----

_NO_DATA: Any = object()
"""Stands for a tool result that holds only files."""


@dataclass(repr=False)
class BaseToolReturnPart:
    """Fields shared by the results of function tools and native tools."""

    tool_name: str
    """The tool that was called."""
    content: Annotated[Any, pydantic.BeforeValidator(revive_content)]
    """The result; anything serializable to JSON (multi-modal content comes back as its own type from JSON)."""
    tool_call_id: str = field(default_factory=new_tool_call_id)
    """The id of the call this answers."""
    _: KW_ONLY
    tool_kind: ToolPartKind | None = None
    """The family of tools the result belongs to, for results with a known shape; `None` for ordinary tools."""
    metadata: Any = None
    """Data kept with the result but not sent to the model."""
    timestamp: datetime = field(default_factory=now_utc)
    """When the result was produced."""
    outcome: Literal['success', 'failed', 'denied'] = 'success'
    """Whether the call succeeded, failed (e.g. was interrupted) or was denied by a human."""

    @property
    def files(self) -> list[MultiModalContent]:
        """The files (URLs, binary content, uploaded files) in `content`: the content itself, or items of a list."""
        return self._split()[1]

    @overload
    def content_items(self, *, mode: Literal['raw'] = 'raw') -> list[Any]: ...

    @overload
    def content_items(self, *, mode: Literal['str']) -> list[str | MultiModalContent]: ...

    @overload
    def content_items(self, *, mode: Literal['jsonable']) -> list[Any]: ...

    def content_items(self, *, mode: Literal['raw', 'str', 'jsonable'] = 'raw') -> list[Any]:
        """`content` as a list (a list as it is, anything else as its only item).

        Args:
            mode: `'raw'` leaves the items as they are; `'str'` turns each item that is neither text nor a file
                into JSON text, and `'jsonable'` into JSON-compatible Python values.
        """
        content: Any = self.content
        items: list[Any] = cast(list[Any], content) if isinstance(content, list) else [content]
        if mode == 'raw':
            return items
        converted: list[Any] = []
        for item in items:
            if isinstance(item, str) or is_multi_modal_content(item):
                converted.append(item)
            elif mode == 'str':
                converted.append(tool_return_content_str(item))
            else:
                converted.append(pydantic_core.to_jsonable_python(item, fallback=repr))
        return converted

    def model_response_str(self) -> str:
        """The result's data (files left out, see `files`) as the text a model sees."""
        data = self._data()
        return '' if data is _NO_DATA else tool_return_content_str(data)

    def model_response_object(self) -> dict[str, Any]:
        """The result's data (files left out) as a JSON object; data that is not one is wrapped under `return_value`."""
        data = self._data()
        if data is _NO_DATA:
            return {}
        return tool_return_content_object(data)

    def model_response_str_and_user_content(self) -> tuple[str, list[UserContent]]:
        """The result as text for a provider whose tool results hold only text, and the files to send after it.

        Each file is replaced in the text by a reference to its identifier (`'See file <id>.'`); the returned user
        content introduces each file by the same identifier, followed by the file.
        """
        _, files, was_list = self._split()
        if not files:
            return self.model_response_str(), []
        texts: list[str] = []
        user_content: list[UserContent] = []
        for item in self.content_items(mode='str'):
            if isinstance(item, str):
                texts.append(item)
            else:
                texts.append(f'See file {item.identifier}.')
                user_content.extend([f'This is file {item.identifier}:', item])
        return (tool_return_content_str(texts) if was_list else texts[0]), user_content

    def _split(self) -> tuple[list[Any], list[MultiModalContent], bool]:
        """The content's data items, its files, and whether it was a list."""
        content: Any = self.content
        if is_multi_modal_content(content):
            return [], [content], False
        if not isinstance(content, list):
            return [content], [], False
        data: list[Any] = []
        files: list[MultiModalContent] = []
        for item in cast(list[Any], content):
            (files if is_multi_modal_content(item) else data).append(item)
        return data, files, True

    def _data(self) -> Any:
        """The content without its files: a lone remaining item stands for itself unless the content was a list
        of just that item. `_NO_DATA` when only files remain."""
        data, files, was_list = self._split()
        if not data:
            return _NO_DATA
        return data[0] if len(data) == 1 and (files or not was_list) else data

    def __repr__(self) -> str:
        return (
            f'{type(self).__name__}(tool_name={self.tool_name!r}, content={self.content!r}, '
            f'tool_call_id={self.tool_call_id!r})'
        )


@dataclass(repr=False)
class ToolReturnPart(BaseToolReturnPart):
    """The result of a function tool call, sent back to the model."""

    _: KW_ONLY
    part_kind: Literal['tool-return'] = 'tool-return'


@dataclass(repr=False)
class NativeToolReturnPart(BaseToolReturnPart):
    """The result of a provider-run tool, as reported by the provider."""

    _: KW_ONLY
    provider_name: str | None = None
    """The provider that ran the tool."""
    provider_details: dict[str, Any] | None = None
    """Provider data with no standard field (some of it must be sent back to the same provider)."""
    part_kind: Literal['builtin-tool-return'] = 'builtin-tool-return'


# ----- calls -----


@dataclass(repr=False)
class BaseToolCallPart:
    """Fields shared by function tool calls and native tool calls."""

    tool_name: str
    """The tool to call."""
    args: str | dict[str, Any] | None = None
    """The arguments: a JSON string as streamed by most providers, or an already-parsed dict."""
    tool_call_id: str = field(default_factory=new_tool_call_id)
    """The call's id, used to match the result to the call (and as an idempotency key)."""
    _: KW_ONLY
    tool_kind: ToolPartKind | None = None
    """The family of tools the call belongs to, for calls with a known shape; `None` for ordinary tools."""
    id: str | None = None
    """The provider's id for the part, if different from the call id."""
    provider_name: str | None = None
    """The provider that produced the call (provider ids and details only make sense to the same provider)."""
    provider_details: dict[str, Any] | None = None
    """Provider data with no standard field (some of it must be sent back to the same provider)."""

    def args_as_dict(self, *, raise_if_invalid: bool = False) -> dict[str, Any]:
        """The arguments as a dict.

        Arguments that are not a JSON object (a model cut off mid-call, or one that wrote invalid JSON) come back as
        `{INVALID_JSON_KEY: <the raw text>}`, so the call can still be sent back to a model API that wants a dict.

        Args:
            raise_if_invalid: Raise `ValueError` for such arguments instead (for JSON that is not an object, an
                `ArgsNotAnObjectError`, which is also an `AssertionError` as in Pydantic AI).
        """
        if not self.args:
            return {}
        if isinstance(self.args, dict):
            return self.args
        try:
            parsed = pydantic_core.from_json(self.args)
        except ValueError:
            if raise_if_invalid:
                raise
            return {INVALID_JSON_KEY: self.args}
        if not isinstance(parsed, dict):
            if raise_if_invalid:
                raise ArgsNotAnObjectError(f'Tool call arguments must be a JSON object, got {type(parsed).__name__}')
            return {INVALID_JSON_KEY: self.args}
        return parsed  # pyright: ignore[reportUnknownVariableType]

    def args_as_json_str(self) -> str:
        """The arguments as a JSON string."""
        if not self.args:
            return '{}'
        if isinstance(self.args, str):
            return self.args
        return json.dumps(self.args, ensure_ascii=False)

    def has_content(self) -> bool:
        """Whether the call has arguments (empty ones, `''` or `{}`, count as none)."""
        return self.args not in ('', {}, None)

    def __repr__(self) -> str:
        return (
            f'{type(self).__name__}(tool_name={self.tool_name!r}, args={self.args!r}, '
            f'tool_call_id={self.tool_call_id!r})'
        )


@dataclass(repr=False)
class ToolCallPart(BaseToolCallPart):
    """A call to a function tool (or an output tool) made by the model."""

    _: KW_ONLY
    part_kind: Literal['tool-call'] = 'tool-call'


@dataclass(repr=False)
class NativeToolCallPart(BaseToolCallPart):
    """A call to a tool the provider runs itself (web search, code execution, ...)."""

    _: KW_ONLY
    part_kind: Literal['builtin-tool-call'] = 'builtin-tool-call'
