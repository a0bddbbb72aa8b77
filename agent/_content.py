"""User content: text plus multi-modal items (URLs to files, inline binary data) and `ToolReturn`."""

from __future__ import annotations

import base64
import mimetypes
from dataclasses import KW_ONLY, dataclass
from typing import Annotated, Any, ClassVar, Literal, TypeAlias

import pydantic

__all__ = (
    'AudioUrl',
    'BinaryContent',
    'DocumentUrl',
    'FileUrl',
    'ImageUrl',
    'MultiModalContent',
    'ToolReturn',
    'UserContent',
    'VideoUrl',
)


@dataclass(repr=False)
class FileUrl:
    """Base of the URL content types: a file the model (or the runtime) fetches from a URL."""

    url: str
    """The URL of the file."""
    _: KW_ONLY
    force_download: bool = False
    """Download the file locally and send its bytes instead of the URL."""
    vendor_metadata: dict[str, Any] | None = None
    """Provider-specific metadata (e.g. image detail level)."""
    media_type: str | None = None
    """The media type; guessed from the URL's extension when not given."""
    identifier: str | None = None
    """A stable identifier the model can use to refer to the file."""

    # Each subclass declares its own `kind` field (the JSON discriminator) and its fallback media type.
    _default_media_type: ClassVar[str] = 'application/octet-stream'

    def __post_init__(self) -> None:
        if self.media_type is None:
            guessed, _ = mimetypes.guess_type(self.url.split('?', 1)[0])
            self.media_type = guessed or self._default_media_type

    @property
    def scheme(self) -> str:
        """The URL scheme, lower-cased (empty for relative URLs)."""
        head, sep, _ = self.url.partition(':')
        return head.lower() if sep and '/' not in head else ''

    def __repr__(self) -> str:
        return f'{type(self).__name__}(url={self.url!r})'


@dataclass(repr=False)
class ImageUrl(FileUrl):
    """An image at a URL."""

    _: KW_ONLY
    kind: Literal['image-url'] = 'image-url'

    _default_media_type: ClassVar[str] = 'image/png'


@dataclass(repr=False)
class AudioUrl(FileUrl):
    """An audio file at a URL."""

    _: KW_ONLY
    kind: Literal['audio-url'] = 'audio-url'

    _default_media_type: ClassVar[str] = 'audio/mpeg'


@dataclass(repr=False)
class VideoUrl(FileUrl):
    """A video at a URL."""

    _: KW_ONLY
    kind: Literal['video-url'] = 'video-url'

    _default_media_type: ClassVar[str] = 'video/mp4'


@dataclass(repr=False)
class DocumentUrl(FileUrl):
    """A document (PDF, text, ...) at a URL."""

    _: KW_ONLY
    kind: Literal['document-url'] = 'document-url'

    _default_media_type: ClassVar[str] = 'application/pdf'


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
    """A stable identifier the model can use to refer to the data."""
    vendor_metadata: dict[str, Any] | None = None
    """Provider-specific metadata."""
    kind: Literal['binary'] = 'binary'

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
        return f'data:{self.media_type};base64,{_b64_bytes_serializer(self.data)}'

    def __repr__(self) -> str:
        return f'BinaryContent(media_type={self.media_type!r}, {len(self.data)} bytes)'


# Serializing a BinaryContent where pydantic has no schema for it (inside an `Any` field such as a tool result,
# or through `pydantic_core.to_json`) would otherwise try to write its bytes as UTF-8 and fail; with its own
# serializer attached, it is written with base64 data everywhere.
setattr(BinaryContent, '__pydantic_serializer__', pydantic.TypeAdapter(BinaryContent).serializer)  # noqa: B010

MultiModalContent: TypeAlias = Annotated[
    ImageUrl | AudioUrl | DocumentUrl | VideoUrl | BinaryContent, pydantic.Discriminator('kind')
]
"""Any non-text user content."""

UserContent: TypeAlias = str | MultiModalContent
"""One item of a user prompt: text or multi-modal content."""


@dataclass(repr=False)
class ToolReturn:
    """A tool result with extra content sent to the model alongside it.

    `return_value` goes into the tool return part; `content` (if any) is sent to the model as an
    extra user prompt in the same request, e.g. an image the tool produced.
    """

    return_value: Any
    """The value returned to the model as the tool's result."""
    _: KW_ONLY
    content: str | list[UserContent] | None = None
    """Extra content sent to the model after the tool result."""
    metadata: Any = None
    """Data kept on the tool return part but not sent to the model."""
    kind: Literal['tool-return'] = 'tool-return'

    def __repr__(self) -> str:
        return f'ToolReturn(return_value={self.return_value!r})'
