"""Media types and the short file formats some provider APIs ask for (`image/png` -> `png`).

The `*MediaType` aliases list the media types providers commonly accept (for annotations and editor hints;
any media type string is allowed at runtime). The `*Format` aliases are the format names used by APIs that
want an explicit format next to the bytes, which is what the content types' `.format` property returns.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Mapping
from typing import Literal, TypeAlias, TypeVar

__all__ = (
    'AudioFormat',
    'AudioMediaType',
    'DocumentFormat',
    'DocumentMediaType',
    'ImageFormat',
    'ImageMediaType',
    'VideoFormat',
    'VideoMediaType',
    'audio_format',
    'document_format',
    'file_format',
    'guess_media_type',
    'image_format',
    'video_format',
)

AudioMediaType: TypeAlias = Literal['audio/wav', 'audio/mpeg', 'audio/ogg', 'audio/flac', 'audio/aiff', 'audio/aac']
"""Audio media types providers commonly accept."""
ImageMediaType: TypeAlias = Literal['image/jpeg', 'image/png', 'image/gif', 'image/webp']
"""Image media types providers commonly accept."""
DocumentMediaType: TypeAlias = Literal[
    'application/pdf',
    'text/plain',
    'text/csv',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'text/html',
    'text/markdown',
    'application/msword',
    'application/vnd.ms-excel',
]
"""Document media types providers commonly accept."""
VideoMediaType: TypeAlias = Literal[
    'video/x-matroska',
    'video/quicktime',
    'video/mp4',
    'video/webm',
    'video/x-flv',
    'video/mpeg',
    'video/x-ms-wmv',
    'video/3gpp',
]
"""Video media types providers commonly accept."""

AudioFormat: TypeAlias = Literal['wav', 'mp3', 'oga', 'flac', 'aiff', 'aac']
"""The format name of an audio media type."""
ImageFormat: TypeAlias = Literal['jpeg', 'png', 'gif', 'webp']
"""The format name of an image media type."""
DocumentFormat: TypeAlias = Literal['csv', 'doc', 'docx', 'html', 'md', 'pdf', 'txt', 'xls', 'xlsx']
"""The format name of a document media type."""
VideoFormat: TypeAlias = Literal['mkv', 'mov', 'mp4', 'webm', 'flv', 'mpeg', 'mpg', 'wmv', 'three_gp']
"""The format name of a video media type."""

_AUDIO: dict[str, AudioFormat] = {
    'audio/wav': 'wav',
    'audio/x-wav': 'wav',
    'audio/mpeg': 'mp3',
    'audio/ogg': 'oga',
    'audio/flac': 'flac',
    'audio/aiff': 'aiff',
    'audio/aac': 'aac',
}
_IMAGE: dict[str, ImageFormat] = {
    'image/jpeg': 'jpeg',
    'image/png': 'png',
    'image/gif': 'gif',
    'image/webp': 'webp',
}
_DOCUMENT: dict[str, DocumentFormat] = {
    'application/pdf': 'pdf',
    'text/plain': 'txt',
    'text/csv': 'csv',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
    'text/html': 'html',
    'text/markdown': 'md',
    'application/msword': 'doc',
    'application/vnd.ms-excel': 'xls',
}
_VIDEO: dict[str, VideoFormat] = {
    'video/x-matroska': 'mkv',
    'video/quicktime': 'mov',
    'video/mp4': 'mp4',
    'video/webm': 'webm',
    'video/x-flv': 'flv',
    'video/mpeg': 'mpeg',
    'video/x-ms-wmv': 'wmv',
    'video/3gpp': 'three_gp',
}

# The platform's MIME table varies (some systems lack `.webp` or `.md`, or map `.wav` to `audio/x-wav`), so the
# extensions of every media type above are pinned here and looked up before asking `mimetypes`.
_EXTENSIONS: dict[str, str] = {
    '.wav': 'audio/wav',
    '.mp3': 'audio/mpeg',
    '.oga': 'audio/ogg',
    '.ogg': 'audio/ogg',
    '.flac': 'audio/flac',
    '.aiff': 'audio/aiff',
    '.aac': 'audio/aac',
    '.jpg': 'image/jpeg',
    '.jpeg': 'image/jpeg',
    '.png': 'image/png',
    '.gif': 'image/gif',
    '.webp': 'image/webp',
    '.pdf': 'application/pdf',
    '.txt': 'text/plain',
    '.csv': 'text/csv',
    '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    '.html': 'text/html',
    '.md': 'text/markdown',
    '.doc': 'application/msword',
    '.xls': 'application/vnd.ms-excel',
    '.mkv': 'video/x-matroska',
    '.mov': 'video/quicktime',
    '.mp4': 'video/mp4',
    '.webm': 'video/webm',
    '.flv': 'video/x-flv',
    '.mpeg': 'video/mpeg',
    '.mpg': 'video/mpeg',
    '.wmv': 'video/x-ms-wmv',
    '.3gp': 'video/3gpp',
    '.three_gp': 'video/3gpp',
    '.mdx': 'text/markdown',
    '.asciidoc': 'text/x-asciidoc',
    '.adoc': 'text/x-asciidoc',
    '.rtf': 'application/rtf',
    '.yaml': 'application/yaml',
    '.yml': 'application/yaml',
    '.toml': 'application/toml',
    '.xml': 'application/xml',
}


def guess_media_type(path: str) -> str | None:
    """The media type of a file name or URL path from its extension, if known."""
    path = path.split('?', 1)[0].split('#', 1)[0]
    dot = path.rfind('.')
    if dot != -1 and '/' not in path[dot:]:
        pinned = _EXTENSIONS.get(path[dot:].lower())
        if pinned is not None:
            return pinned
    guessed, _ = mimetypes.guess_type(path)
    return guessed


_FormatT = TypeVar('_FormatT', bound=str)


def _lookup(table: dict[str, _FormatT], media_type: str, kind: str) -> _FormatT:
    format_name = table.get(media_type)
    if format_name is None:
        raise ValueError(f'Unknown {kind} media type: {media_type} (no format name is known for it)')
    return format_name


def audio_format(media_type: str) -> AudioFormat:
    """The format name of an audio media type (`audio/mpeg` -> `mp3`).

    Raises:
        ValueError: for a media type without a known format name.
    """
    return _lookup(_AUDIO, media_type, 'audio')


def image_format(media_type: str) -> ImageFormat:
    """The format name of an image media type (`image/jpeg` -> `jpeg`).

    Raises:
        ValueError: for a media type without a known format name.
    """
    return _lookup(_IMAGE, media_type, 'image')


def document_format(media_type: str) -> DocumentFormat:
    """The format name of a document media type (`application/pdf` -> `pdf`).

    Raises:
        ValueError: for a media type without a known format name.
    """
    return _lookup(_DOCUMENT, media_type, 'document')


def video_format(media_type: str) -> VideoFormat:
    """The format name of a video media type (`video/quicktime` -> `mov`).

    Raises:
        ValueError: for a media type without a known format name.
    """
    return _lookup(_VIDEO, media_type, 'video')


def file_format(media_type: str) -> str:
    """The format name of any media type, chosen by its top-level type (`image/`, `audio/`, `video/`, else document).

    Raises:
        ValueError: for a media type without a known format name.
    """
    top = media_type.partition('/')[0]
    tables: dict[str, Mapping[str, str]] = {'image': _IMAGE, 'audio': _AUDIO, 'video': _VIDEO}
    table = tables.get(top, _DOCUMENT)
    format_name = table.get(media_type)
    if format_name is None:
        raise ValueError(f'Unknown media type: {media_type} (no format name is known for it)')
    return format_name
