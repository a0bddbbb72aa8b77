"""User content: text plus multi-modal items (URLs to files, inline binary data, uploaded files) and `ToolReturn`.

These dataclasses are stored in message histories (and so in durable workflow histories): a new field must have a
default and must not change how the existing fields serialize.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from os import PathLike
from pathlib import Path
from typing import Annotated, Any, ClassVar, Generic, Literal, TypeAlias, TypeGuard
from urllib.parse import urlparse

import pydantic
from typing_extensions import TypeVar

from ._media_types import (
    AudioFormat,
    DocumentFormat,
    ImageFormat,
    VideoFormat,
    audio_format,
    document_format,
    file_format,
    guess_media_type,
    image_format,
    video_format,
)

__all__ = (
    'MULTI_MODAL_CONTENT_TYPES',
    'AudioUrl',
    'BinaryContent',
    'BinaryImage',
    'CachePoint',
    'DocumentUrl',
    'FileUrl',
    'ForceDownloadMode',
    'ImageUrl',
    'MultiModalContent',
    'TextContent',
    'ToolReturn',
    'UploadedFile',
    'UploadedFileProviderName',
    'UserContent',
    'VideoUrl',
    'is_multi_modal_content',
    'prompt_items',
)


ForceDownloadMode: TypeAlias = bool | Literal['allow-local']
"""Whether a file URL is downloaded and sent as bytes: `'allow-local'` is `True` that may also reach addresses on
loopback and private networks (the server's own neighbourhood), which a plain `True` must not."""


def content_identifier(source: str | bytes) -> str:
    """The identifier of content that was given none: the first 6 hex digits of the SHA-1 of its URL, file id or
    data, as Pydantic AI computes it. It depends on nothing but the content, so a replayed run derives the same."""
    return hashlib.sha1(source.encode() if isinstance(source, str) else source).hexdigest()[:6]


@dataclass(repr=False)
class FileUrl:
    """Base of the URL content types: a file the model (or the runtime) fetches from a URL."""

    url: str
    """The URL of the file."""
    _: KW_ONLY
    force_download: ForceDownloadMode = False
    """Download the file locally and send its bytes instead of the URL (`'allow-local'`: from local addresses too)."""
    vendor_metadata: dict[str, Any] | None = None
    """Provider-specific metadata (e.g. image detail level)."""
    media_type: str | None = None
    """The media type; guessed from the URL's extension when not given."""
    identifier: str | None = None
    """A stable identifier the model can use to refer to the file; derived from the URL when not given."""

    # Each subclass declares its own `kind` field (the JSON discriminator) and its fallback media type.
    _default_media_type: ClassVar[str] = 'application/octet-stream'

    def __post_init__(self) -> None:
        if self.media_type is None:
            self.media_type = guess_media_type(self.url) or self._default_media_type
        if self.identifier is None:
            self.identifier = content_identifier(self.url)

    @property
    def scheme(self) -> str:
        """The URL scheme, lower-cased (empty for relative URLs)."""
        head, sep, _ = self.url.partition(':')
        return head.lower() if sep and '/' not in head else ''

    @property
    def format(self) -> str:
        """The short format name of the file's media type (`image/png` -> `png`), as some APIs require.

        Raises:
            ValueError: for a media type without a known format name.
        """
        return file_format(self._media_type())

    def _media_type(self) -> str:
        # `media_type` is always set by `__post_init__`; the fallback only satisfies the type checker.
        return self.media_type or self._default_media_type

    def __repr__(self) -> str:
        return f'{type(self).__name__}(url={self.url!r})'


@dataclass(repr=False)
class ImageUrl(FileUrl):
    """An image at a URL."""

    _: KW_ONLY
    kind: Literal['image-url'] = 'image-url'
    """The discriminator of the content type in serialized messages."""

    _default_media_type: ClassVar[str] = 'image/png'

    @property
    def format(self) -> ImageFormat:
        """The image format (`jpeg`, `png`, `gif` or `webp`).

        Raises:
            ValueError: for an image media type without a known format name.
        """
        return image_format(self._media_type())


@dataclass(repr=False)
class AudioUrl(FileUrl):
    """An audio file at a URL."""

    _: KW_ONLY
    kind: Literal['audio-url'] = 'audio-url'
    """The discriminator of the content type in serialized messages."""

    _default_media_type: ClassVar[str] = 'audio/mpeg'

    @property
    def format(self) -> AudioFormat:
        """The audio format (`mp3`, `wav`, ...).

        Raises:
            ValueError: for an audio media type without a known format name.
        """
        return audio_format(self._media_type())


@dataclass(repr=False)
class VideoUrl(FileUrl):
    """A video at a URL."""

    _: KW_ONLY
    kind: Literal['video-url'] = 'video-url'
    """The discriminator of the content type in serialized messages."""

    _default_media_type: ClassVar[str] = 'video/mp4'

    @property
    def is_youtube(self) -> bool:
        """Whether the URL is a YouTube video (some providers fetch those themselves)."""
        return urlparse(self.url).hostname in ('youtu.be', 'youtube.com', 'www.youtube.com')

    @property
    def format(self) -> VideoFormat:
        """The video format (`mp4`, `mov`, ...).

        Raises:
            ValueError: for a video media type without a known format name.
        """
        return video_format(self._media_type())


@dataclass(repr=False)
class DocumentUrl(FileUrl):
    """A document (PDF, text, ...) at a URL."""

    _: KW_ONLY
    kind: Literal['document-url'] = 'document-url'
    """The discriminator of the content type in serialized messages."""

    _default_media_type: ClassVar[str] = 'application/pdf'

    @property
    def format(self) -> DocumentFormat:
        """The document format (`pdf`, `txt`, `md`, ...).

        Raises:
            ValueError: for a document media type without a known format name.
        """
        return document_format(self._media_type())


def _b64_bytes_serializer(value: bytes) -> str:
    return base64.b64encode(value).decode('ascii')


def _b64_bytes_validator(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return base64.b64decode(value, validate=True)
    raise ValueError('expected bytes or a base64 string')


Base64Bytes = Annotated[
    bytes,
    pydantic.PlainValidator(_b64_bytes_validator),
    pydantic.PlainSerializer(_b64_bytes_serializer, return_type=str, when_used='json'),
]


@dataclass(repr=False)
class BinaryContent:
    """Inline binary data (an image, audio clip, PDF, ...) with its media type."""

    data: Base64Bytes
    """The raw bytes (base64 in JSON)."""
    _: KW_ONLY
    media_type: str
    """The media type of the data, e.g. `image/png`."""
    identifier: str | None = None
    """A stable identifier the model can use to refer to the data; derived from the data when not given."""
    vendor_metadata: dict[str, Any] | None = None
    """Provider-specific metadata."""
    kind: Literal['binary'] = 'binary'
    """The discriminator of the content type in serialized messages."""

    def __post_init__(self) -> None:
        if self.identifier is None:
            self.identifier = content_identifier(self.data)

    @property
    def is_image(self) -> bool:
        """Whether the data is an image."""
        return self.media_type.startswith('image/')

    @property
    def is_audio(self) -> bool:
        """Whether the data is audio."""
        return self.media_type.startswith('audio/')

    @property
    def is_video(self) -> bool:
        """Whether the data is video."""
        return self.media_type.startswith('video/')

    @property
    def is_document(self) -> bool:
        """Whether the data is a document (not image, audio or video)."""
        return not (self.is_image or self.is_audio or self.is_video)

    @property
    def data_uri(self) -> str:
        """The data as a `data:` URI."""
        return f'data:{self.media_type};base64,{self.base64}'

    @property
    def base64(self) -> str:
        """The data, base64-encoded."""
        return _b64_bytes_serializer(self.data)

    @property
    def format(self) -> str:
        """The short format name of the media type (`image/png` -> `png`), as some APIs require.

        Raises:
            ValueError: for a media type without a known format name.
        """
        return file_format(self.media_type)

    @staticmethod
    def narrow_type(content: BinaryContent) -> BinaryContent:
        """`content` as a `BinaryImage` when it is an image, otherwise unchanged."""
        if content.is_image and not isinstance(content, BinaryImage):
            return BinaryImage(
                content.data,
                media_type=content.media_type,
                identifier=content.identifier,
                vendor_metadata=content.vendor_metadata,
            )
        return content

    @classmethod
    def from_data_uri(cls, data_uri: str) -> BinaryContent:
        """The content of a base64 `data:` URI, e.g. `data:image/png;base64,iVBORw0...` (a `BinaryImage` for images).

        Raises:
            ValueError: the string is not a base64 `data:` URI.
        """
        if not data_uri.startswith('data:'):
            raise ValueError('A data URI must start with "data:".')
        media_type, marker, encoded = data_uri[len('data:') :].partition(';base64,')
        if not marker:
            raise ValueError('A data URI must be base64-encoded: expected ";base64," after the media type.')
        try:
            data = base64.b64decode(encoded, validate=True)
        except binascii.Error as e:
            raise ValueError(f'The data URI does not hold valid base64 data: {e}') from None
        return cls.narrow_type(cls(data, media_type=media_type or 'application/octet-stream'))

    @classmethod
    def from_path(cls, path: str | PathLike[str]) -> BinaryContent:
        """The content of a local file, its media type guessed from the extension (a `BinaryImage` for images).

        Unknown extensions get `application/octet-stream`.

        Raises:
            FileNotFoundError: the file does not exist.
        """
        file = Path(path)
        if not file.exists():
            raise FileNotFoundError(f'File not found: {file}')
        media_type = guess_media_type(file.name) or 'application/octet-stream'
        return cls.narrow_type(cls(file.read_bytes(), media_type=media_type))

    def __repr__(self) -> str:
        return f'{type(self).__name__}(media_type={self.media_type!r}, {len(self.data)} bytes)'


@dataclass(repr=False)
class BinaryImage(BinaryContent):
    """Binary content that is known to be an image (what image-generating models return).

    It serializes exactly like `BinaryContent` (same `kind`), so a stored history reads back as `BinaryContent`.
    """

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.is_image:
            raise ValueError(
                f'`BinaryImage` must have a media type that starts with "image/", got {self.media_type!r}.'
            )


# Serializing a BinaryContent where pydantic has no schema for it (inside an `Any` field such as a tool result,
# or through `pydantic_core.to_json`) would otherwise try to write its bytes as UTF-8 and fail; with its own
# serializer attached, it is written with base64 data everywhere.
setattr(BinaryContent, '__pydantic_serializer__', pydantic.TypeAdapter(BinaryContent).serializer)  # noqa: B010
setattr(BinaryImage, '__pydantic_serializer__', pydantic.TypeAdapter(BinaryImage).serializer)  # noqa: B010


@dataclass(repr=False)
class TextContent:
    """Text for the model with application data attached that the model never sees."""

    content: str
    """The text sent to the model."""
    _: KW_ONLY
    metadata: Any = None
    """Data for the application (kept in the history, not sent to the model)."""
    kind: Literal['text-content'] = 'text-content'
    """The discriminator of the content type in serialized messages."""

    def __repr__(self) -> str:
        return f'TextContent(content={self.content!r})'


@dataclass
class CachePoint:
    """A prompt-caching boundary inside a user prompt: the content before it may be cached by the provider.

    Models without explicit prompt caching leave it out of the request.
    """

    _: KW_ONLY
    ttl: Literal['5m', '1h'] = '5m'
    """How long the provider should keep the cached prefix: five minutes or one hour."""
    kind: Literal['cache-point'] = 'cache-point'
    """The discriminator of the content type in serialized messages."""


UploadedFileProviderName: TypeAlias = Literal[
    'anthropic', 'openai', 'google', 'google-cloud', 'google-gla', 'google-vertex', 'bedrock', 'xai'
]
"""The providers whose file storage an `UploadedFile` can refer to."""


@dataclass(repr=False)
class UploadedFile:
    """A file already uploaded to a provider's file storage, referred to by the id the provider gave it.

    File ids only mean something to the provider that issued them, hence the required `provider_name`.
    """

    file_id: str
    """The provider's file id (for Google, the file's URI)."""
    provider_name: UploadedFileProviderName
    """The provider that holds the file."""
    _: KW_ONLY
    vendor_metadata: dict[str, Any] | None = None
    """Provider-specific metadata."""
    media_type: str | None = None
    """The media type; guessed from the file id's extension when not given (`application/octet-stream` if none)."""
    identifier: str | None = None
    """A stable identifier the model can use to refer to the file; derived from the file id when not given."""
    kind: Literal['uploaded-file'] = 'uploaded-file'
    """The discriminator of the content type in serialized messages."""

    def __post_init__(self) -> None:
        if self.media_type is None:
            self.media_type = guess_media_type(urlparse(self.file_id).path) or 'application/octet-stream'
        if self.identifier is None:
            self.identifier = content_identifier(self.file_id)

    @property
    def format(self) -> str:
        """The short format name of the media type (`application/pdf` -> `pdf`).

        Raises:
            ValueError: for a media type without a known format name.
        """
        return file_format(self.media_type or 'application/octet-stream')

    def __repr__(self) -> str:
        return f'UploadedFile(file_id={self.file_id!r}, provider_name={self.provider_name!r})'


MultiModalContent: TypeAlias = Annotated[
    ImageUrl | AudioUrl | DocumentUrl | VideoUrl | BinaryContent | UploadedFile, pydantic.Discriminator('kind')
]
"""Any non-text user content."""

MULTI_MODAL_CONTENT_TYPES: tuple[type, ...] = (ImageUrl, AudioUrl, DocumentUrl, VideoUrl, BinaryContent, UploadedFile)
"""The classes of `MultiModalContent`, for `isinstance` checks (an annotated union cannot be one)."""


def is_multi_modal_content(obj: object) -> TypeGuard[MultiModalContent]:
    """Whether `obj` is non-text user content (a file URL, binary content or an uploaded file)."""
    return isinstance(obj, MULTI_MODAL_CONTENT_TYPES)


UserContent: TypeAlias = str | TextContent | MultiModalContent | CachePoint
"""One item of a user prompt: text, text with metadata, multi-modal content or a cache point."""


def prompt_items(content: str | Sequence[UserContent]) -> list[str | MultiModalContent]:
    """A user prompt's items as a model adapter sends them: `TextContent` as its text, `CachePoint`s left out.

    (No adapter here sets explicit cache breakpoints yet, which is what a model without prompt caching does too.)
    """
    if isinstance(content, str):
        return [content]
    items: list[str | MultiModalContent] = []
    for item in content:
        if isinstance(item, TextContent):
            items.append(item.content)
        elif not isinstance(item, CachePoint):
            items.append(item)
    return items


ReturnValueT = TypeVar('ReturnValueT', default=Any)
"""What a `ToolReturn` gives the model as the tool's result."""


@dataclass(repr=False)
class ToolReturn(Generic[ReturnValueT]):
    """A tool result with extra content sent to the model alongside it.

    `return_value` goes into the tool return part; `content` (if any) is sent to the model as an
    extra user prompt in the same request, e.g. an image the tool produced. A tool annotated
    `-> ToolReturn[T]` has `T`'s schema as its return schema; a bare `ToolReturn` has none.
    """

    return_value: ReturnValueT
    """The value returned to the model as the tool's result."""
    _: KW_ONLY
    content: str | list[UserContent] | None = None
    """Extra content sent to the model after the tool result."""
    metadata: Any = None
    """Data kept on the tool return part but not sent to the model."""
    kind: Literal['tool-return'] = 'tool-return'

    def __repr__(self) -> str:
        return f'ToolReturn(return_value={self.return_value!r})'
