"""What the AG-UI message mapping shares in both directions: content parts, native tool ids, activity types.

AG-UI has no place for a few things the agent's messages hold, so the adapter keeps them in fields the protocol
leaves open, the same way when dumping and loading:

- a provider-run (native) tool call travels as an ordinary tool call whose id is
  `pyd_ai_builtin|<provider>|<call id>`;
- a file the model produced and a provider's compaction travel as activity messages of the types below;
- a thinking part's signature and provider fields travel as JSON in the reasoning message's `encryptedValue`.
"""

from __future__ import annotations

import base64
import binascii
import json
import warnings
from typing import Any, Final, get_args

from ag_ui.core import AudioPart, ContentPart, DataSource, DocumentPart, FileSource, ImagePart, UrlSource, VideoPart
from ag_ui.core import TextPart as AGUITextPart

from agent.messages import (
    AudioUrl,
    BinaryContent,
    CachePoint,
    DocumentUrl,
    ImageUrl,
    TextContent,
    UploadedFile,
    UploadedFileProviderName,
    UserContent,
    VideoUrl,
)

__all__ = (
    'COMPACTION_ACTIVITY_TYPE',
    'FILE_ACTIVITY_TYPE',
    'FILE_ACTIVITY_TYPES',
    'native_tool_call_id',
    'parse_native_tool_call_id',
    'parts_to_user_content',
    'user_content_to_parts',
)

# The ids and activity types are Pydantic AI's, so AG-UI messages stored by either library load in the other;
# the ones earlier versions of this adapter wrote still load.
NATIVE_TOOL_CALL_ID_PREFIX: Final = 'pyd_ai_builtin|'
"""Marks a tool call id as that of a provider-run tool, so the call loads back as a `NativeToolCallPart`."""

_LEGACY_NATIVE_PREFIXES: Final = (NATIVE_TOOL_CALL_ID_PREFIX, 'native|')

FILE_ACTIVITY_TYPE: Final = 'pydantic_ai_file'
"""The activity type of a file the model produced (`FilePart`); content: `url` (a data URI), `media_type`."""

FILE_ACTIVITY_TYPES: Final = frozenset({FILE_ACTIVITY_TYPE, 'agent.file'})
"""The file activity types that load as a `FilePart` (the current one and the one earlier versions wrote)."""

COMPACTION_ACTIVITY_TYPE: Final = 'agent.compaction'
"""The activity type of a provider's compaction (`CompactionPart`); content: `content`, `provider_name`, ..."""

_UPLOAD_PROVIDERS: frozenset[str] = frozenset(get_args(UploadedFileProviderName))

_MediaPart = ImagePart | AudioPart | VideoPart | DocumentPart


def native_tool_call_id(tool_call_id: str, provider_name: str | None) -> str:
    """The AG-UI id of a native tool call: the call id with the provider, behind the native prefix."""
    return f'{NATIVE_TOOL_CALL_ID_PREFIX}{provider_name or ""}|{tool_call_id}'


def parse_native_tool_call_id(tool_call_id: str) -> tuple[str | None, str] | None:
    """`(provider_name, call id)` of an id made by `native_tool_call_id`, or `None` for any other id."""
    prefix = next((p for p in _LEGACY_NATIVE_PREFIXES if tool_call_id.startswith(p)), None)
    if prefix is None:
        return None
    provider, sep, original = tool_call_id[len(prefix) :].partition('|')
    if not sep:
        return None
    return provider or None, original


def user_content_to_parts(content: str | UserContent | list[UserContent] | Any) -> list[ContentPart]:
    """AG-UI content parts for user content (text and media); cache points have no AG-UI form and are left out."""
    items: list[Any] = list(content) if isinstance(content, list | tuple) else [content]  # pyright: ignore[reportUnknownArgumentType]
    parts: list[ContentPart] = []
    for item in items:
        part = _item_to_part(item)
        if part is not None:
            parts.append(part)
    return parts


def _item_to_part(item: Any) -> ContentPart | None:
    if isinstance(item, str):
        return AGUITextPart(text=item)
    if isinstance(item, TextContent):
        return AGUITextPart(text=item.content)
    if isinstance(item, ImageUrl):
        return ImagePart(source=UrlSource(value=item.url, mime_type=item.media_type))
    if isinstance(item, AudioUrl):
        return AudioPart(source=UrlSource(value=item.url, mime_type=item.media_type))
    if isinstance(item, VideoUrl):
        return VideoPart(source=UrlSource(value=item.url, mime_type=item.media_type))
    if isinstance(item, DocumentUrl):
        return DocumentPart(source=UrlSource(value=item.url, mime_type=item.media_type))
    if isinstance(item, BinaryContent):
        return _media_part(item.media_type, DataSource(value=item.base64, mime_type=item.media_type))
    if isinstance(item, UploadedFile):
        media_type = item.media_type or 'application/octet-stream'
        return _media_part(
            media_type, FileSource(value=item.file_id, provider=item.provider_name, mime_type=media_type)
        )
    if isinstance(item, CachePoint):
        return None
    # Anything else a tool may return (a number, a dict) is shown as its JSON text.
    return AGUITextPart(text=json.dumps(item, default=str))


def _media_part(media_type: str, source: DataSource | UrlSource | FileSource) -> ContentPart:
    kind = media_type.split('/', 1)[0]
    if kind == 'image':
        return ImagePart(source=source)
    if kind == 'audio':
        return AudioPart(source=source)
    if kind == 'video':
        return VideoPart(source=source)
    return DocumentPart(source=source)


def parts_to_user_content(parts: list[ContentPart]) -> list[UserContent]:
    """User content for AG-UI content parts.

    Raises:
        ValueError: a part's inline data is not valid base64.
    """
    content: list[UserContent] = []
    for part in parts:
        if isinstance(part, AGUITextPart):
            content.append(part.text)
        else:
            item = _media_to_content(part)
            if item is not None:
                content.append(item)
    return content


def _media_to_content(part: _MediaPart) -> UserContent | None:
    source = part.source
    if isinstance(source, DataSource):
        try:
            data = base64.b64decode(source.value, validate=True)
        except binascii.Error as e:
            raise ValueError(f'A {part.type} part holds data that is not valid base64: {e}') from None
        return BinaryContent.narrow_type(BinaryContent(data, media_type=source.mime_type))
    if isinstance(source, UrlSource):
        if source.value.startswith('data:'):
            return BinaryContent.from_data_uri(source.value)
        url_types = {'image': ImageUrl, 'audio': AudioUrl, 'video': VideoUrl, 'document': DocumentUrl}
        return url_types[part.type](source.value, media_type=source.mime_type)
    if source.provider in _UPLOAD_PROVIDERS:
        return UploadedFile(source.value, source.provider, media_type=source.mime_type)  # pyright: ignore[reportArgumentType]
    # A file id means nothing without the provider that issued it; the model could not be given it.
    warnings.warn(
        f'A {part.type} part referring to file {source.value!r} was dropped: its provider {source.provider!r} '
        f'is not one whose uploaded files the agent can use ({", ".join(sorted(_UPLOAD_PROVIDERS))}).',
        UserWarning,
        stacklevel=4,
    )
    return None
