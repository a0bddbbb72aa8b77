"""Multi-modal content types: formats, data URIs, `BinaryImage`, `TextContent`, `CachePoint`, `UploadedFile`."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from agent.messages import (
    MULTI_MODAL_CONTENT_TYPES,
    AudioUrl,
    BinaryContent,
    BinaryImage,
    CachePoint,
    DocumentUrl,
    ImageUrl,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    TextContent,
    UploadedFile,
    UserPromptPart,
    VideoUrl,
    is_multi_modal_content,
)
from agent.models._anthropic_messages import anthropic_messages
from agent.models._openai_chat_messages import user_content

PNG = b'\x89PNG\r\n\x1a\n'


def test_url_content_types_report_their_format() -> None:
    assert ImageUrl('https://example.com/cat.jpg').format == 'jpeg'
    assert AudioUrl('https://example.com/talk.mp3').format == 'mp3'
    assert VideoUrl('https://example.com/clip.mov').format == 'mov'
    assert DocumentUrl('https://example.com/notes.md?v=2').format == 'md'


def test_binary_content_format_follows_its_media_type() -> None:
    assert BinaryContent(b'', media_type='image/webp').format == 'webp'
    assert BinaryContent(b'', media_type='application/pdf').format == 'pdf'
    with pytest.raises(ValueError, match='application/x-unknown'):
        _ = BinaryContent(b'', media_type='application/x-unknown').format


def test_from_data_uri_decodes_the_data_and_narrows_images() -> None:
    content = BinaryContent.from_data_uri(f'data:image/png;base64,{base64.b64encode(PNG).decode()}')

    assert isinstance(content, BinaryImage)
    assert content.data == PNG
    assert content.media_type == 'image/png'
    assert content.data_uri == f'data:image/png;base64,{content.base64}'


def test_from_data_uri_keeps_other_media_as_binary_content() -> None:
    content = BinaryContent.from_data_uri('data:text/plain;base64,aGk=')

    assert type(content) is BinaryContent
    assert content.data == b'hi'


@pytest.mark.parametrize('uri', ['https://example.com/a.png', 'data:text/plain,hi', 'data:image/png;base64,@@'])
def test_from_data_uri_rejects_what_is_not_a_base64_data_uri(uri: str) -> None:
    with pytest.raises(ValueError, match='data URI'):
        BinaryContent.from_data_uri(uri)


def test_from_path_reads_the_file_and_guesses_its_media_type(tmp_path: Path) -> None:
    path = tmp_path / 'pixel.png'
    path.write_bytes(PNG)

    content = BinaryContent.from_path(path)

    assert isinstance(content, BinaryImage)
    assert content.data == PNG


def test_binary_image_refuses_non_image_media_types() -> None:
    with pytest.raises(ValueError, match='image'):
        BinaryImage(b'%PDF', media_type='application/pdf')


def test_uploaded_file_guesses_its_media_type_from_the_file_id() -> None:
    assert UploadedFile('gs://bucket/report.pdf', 'google-cloud').format == 'pdf'
    assert UploadedFile('file-abc123', 'openai').media_type == 'application/octet-stream'


def test_new_content_types_round_trip_through_a_stored_history() -> None:
    content = [
        TextContent('see attached', metadata={'ticket': 7}),
        CachePoint(ttl='1h'),
        UploadedFile('file-abc123', 'anthropic', media_type='application/pdf'),
        BinaryImage(PNG, media_type='image/png'),
    ]
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart(content)])]

    restored = ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(history))

    restored_part = restored[0].parts[0]
    assert isinstance(restored_part, UserPromptPart)
    assert restored_part.content[:3] == content[:3]
    # A BinaryImage is stored as plain binary content (same `kind`), so it reads back as `BinaryContent`.
    assert restored_part.content[3] == BinaryContent(PNG, media_type='image/png')


def test_existing_content_types_serialize_as_before_with_their_derived_identifiers() -> None:
    part = UserPromptPart(['hi', ImageUrl('https://example.com/a.png'), BinaryContent(b'hi', media_type='text/plain')])
    url_id = hashlib.sha1(b'https://example.com/a.png').hexdigest()[:6]
    data_id = hashlib.sha1(b'hi').hexdigest()[:6]

    dumped = json.loads(ModelMessagesTypeAdapter.dump_json([ModelRequest(parts=[part])]))

    assert dumped[0]['parts'][0]['content'] == [
        'hi',
        {
            'url': 'https://example.com/a.png',
            'force_download': False,
            'vendor_metadata': None,
            'media_type': 'image/png',
            'identifier': url_id,
            'kind': 'image-url',
        },
        {'data': 'aGk=', 'media_type': 'text/plain', 'identifier': data_id, 'vendor_metadata': None, 'kind': 'binary'},
    ]


def test_content_without_an_identifier_derives_the_same_one_wherever_it_is_built_or_loaded() -> None:
    stored = [
        {'url': 'https://example.com/a.png', 'identifier': None, 'kind': 'image-url'},
        {'data': 'aGk=', 'media_type': 'text/plain', 'identifier': None, 'kind': 'binary'},
        {'file_id': 'file-abc123', 'provider_name': 'openai', 'kind': 'uploaded-file'},
        {'url': 'https://example.com/b.pdf', 'identifier': 'report', 'kind': 'document-url'},
    ]
    history = [{'parts': [{'content': stored, 'part_kind': 'user-prompt'}], 'kind': 'request'}]

    loaded = ModelMessagesTypeAdapter.validate_python(history)[0].parts[0]

    assert isinstance(loaded, UserPromptPart)
    assert [item.identifier for item in loaded.content if is_multi_modal_content(item)] == [
        ImageUrl('https://example.com/a.png').identifier,
        BinaryContent(b'hi', media_type='text/plain').identifier,
        hashlib.sha1(b'file-abc123').hexdigest()[:6],
        'report',
    ]
    assert (
        BinaryContent(b'hi', media_type='text/plain').identifier
        != BinaryContent(b'ho', media_type='text/plain').identifier
    )


def test_content_types_name_what_they_cannot_read() -> None:
    with pytest.raises(ValueError, match='Unknown media type: application/custom'):
        _ = BinaryContent(b'x', media_type='application/custom').format
    with pytest.raises(ValueError, match='Unknown document media type: text/x-python'):
        _ = DocumentUrl('https://example.com/a.py').format
    with pytest.raises(ValueError, match='must be base64-encoded'):
        BinaryContent.from_data_uri('data:text/plain,hello')
    with pytest.raises(ValueError, match='`BinaryImage` must have a media type that starts with "image/"'):
        BinaryImage(b'x', media_type='text/plain')


def test_document_and_video_extensions_beyond_the_platform_table_are_pinned(tmp_path: Path) -> None:
    assert DocumentUrl('https://example.com/help.asciidoc').media_type == 'text/x-asciidoc'
    assert DocumentUrl('https://example.com/config.yaml').media_type == 'application/yaml'
    assert VideoUrl('https://example.com/clip.three_gp').format == 'three_gp'
    with pytest.raises(FileNotFoundError, match='File not found:'):
        BinaryContent.from_path(tmp_path / 'missing.txt')


def test_models_receive_text_content_as_text_and_skip_cache_points() -> None:
    sent = user_content(['a', TextContent('b', metadata='not for the model'), CachePoint()])

    assert sent == [{'type': 'text', 'text': 'a'}, {'type': 'text', 'text': 'b'}]


def test_anthropic_requests_carry_text_content_as_a_text_block() -> None:
    request = ModelRequest(parts=[UserPromptPart([TextContent('hello', metadata={'id': 1}), CachePoint()])])

    _, messages = anthropic_messages([request])

    assert messages == [{'role': 'user', 'content': [{'type': 'text', 'text': 'hello'}]}]


def test_is_multi_modal_content_tells_files_from_text_and_cache_points() -> None:
    files = [
        ImageUrl('https://example.com/cat.jpg'),
        AudioUrl('https://example.com/talk.mp3'),
        DocumentUrl('https://example.com/notes.pdf'),
        VideoUrl('https://example.com/clip.mov'),
        BinaryContent(PNG, media_type='image/png'),
        BinaryImage(PNG, media_type='image/png'),
        UploadedFile('file-1', 'openai'),
    ]
    assert all(is_multi_modal_content(item) for item in files)
    assert not any(is_multi_modal_content(item) for item in ['text', TextContent('text'), CachePoint(), None])
    assert all(isinstance(item, MULTI_MODAL_CONTENT_TYPES) for item in files)
