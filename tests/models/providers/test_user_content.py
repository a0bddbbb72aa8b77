"""Multi-modal user content in each provider's wire format, and content a provider cannot take."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from agent import Agent
from agent.exceptions import UserError
from agent.messages import BinaryContent, DocumentUrl, ImageUrl, VideoUrl
from agent.models.anthropic import AnthropicModel
from agent.models.google import GoogleModel
from agent.models.openai import OpenAIChatModel, OpenAIResponsesModel
from agent.providers.anthropic import AnthropicProvider
from agent.providers.google import GoogleProvider
from agent.providers.openai import OpenAIProvider

from ._mock import ScriptedProvider

PDF = b'%PDF-1.7 tiny'
PNG = b'\x89PNG\r\n'
PROMPT: list[Any] = [
    'Compare these.',
    ImageUrl('https://example.com/chart.png'),
    BinaryContent(PNG, media_type='image/png'),
    DocumentUrl('https://example.com/report.pdf'),
    BinaryContent(PDF, media_type='application/pdf', identifier='report.pdf'),
]
B64_PNG = base64.b64encode(PNG).decode()
B64_PDF = base64.b64encode(PDF).decode()


async def test_anthropic_takes_images_and_pdfs_by_url_and_inline():
    server = ScriptedProvider.load('anthropic/text')
    server.exchanges[0]['request'] = {
        'model': 'claude-sonnet-4-5',
        'max_tokens': 4096,
        'messages': [
            {
                'role': 'user',
                'content': [
                    {'type': 'text', 'text': 'Compare these.'},
                    {'type': 'image', 'source': {'type': 'url', 'url': 'https://example.com/chart.png'}},
                    {'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': B64_PNG}},
                    {'type': 'document', 'source': {'type': 'url', 'url': 'https://example.com/report.pdf'}},
                    {
                        'type': 'document',
                        'source': {'type': 'base64', 'media_type': 'application/pdf', 'data': B64_PDF},
                    },
                ],
            }
        ],
    }
    model = AnthropicModel('claude-sonnet-4-5', provider=AnthropicProvider(api_key='k', http_client=server.client()))

    await Agent(model).run(PROMPT)

    server.assert_all_sent_as_expected()


async def test_gemini_takes_inline_data_and_file_uris():
    server = ScriptedProvider.load('google/text')
    server.exchanges[0]['request'] = {
        'contents': [
            {
                'role': 'user',
                'parts': [
                    {'text': 'Compare these.'},
                    {'fileData': {'mimeType': 'image/png', 'fileUri': 'https://example.com/chart.png'}},
                    {'inlineData': {'mimeType': 'image/png', 'data': B64_PNG}},
                    {'fileData': {'mimeType': 'application/pdf', 'fileUri': 'https://example.com/report.pdf'}},
                    {'inlineData': {'mimeType': 'application/pdf', 'data': B64_PDF}},
                ],
            }
        ]
    }
    model = GoogleModel('gemini-2.5-flash', provider=GoogleProvider(api_key='k', http_client=server.client()))

    await Agent(model).run(PROMPT)

    server.assert_all_sent_as_expected()


async def test_the_responses_api_takes_images_and_files_by_url_and_inline():
    server = ScriptedProvider.load('openai_responses/text')
    server.exchanges[0]['request'] = {
        'model': 'gpt-4.1',
        'input': [
            {
                'role': 'user',
                'content': [
                    {'type': 'input_text', 'text': 'Compare these.'},
                    {'type': 'input_image', 'image_url': 'https://example.com/chart.png', 'detail': 'auto'},
                    {'type': 'input_image', 'image_url': f'data:image/png;base64,{B64_PNG}', 'detail': 'auto'},
                    {'type': 'input_file', 'file_url': 'https://example.com/report.pdf'},
                    {
                        'type': 'input_file',
                        'filename': 'report.pdf',
                        'file_data': f'data:application/pdf;base64,{B64_PDF}',
                    },
                ],
            }
        ],
    }
    model = OpenAIResponsesModel('gpt-4.1', provider=OpenAIProvider(api_key='k', http_client=server.client()))

    await Agent(model).run(PROMPT)

    server.assert_all_sent_as_expected()


async def test_chat_completions_asks_for_downloaded_documents_instead_of_urls():
    server = ScriptedProvider.load('openai_chat/text')
    model = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(api_key='k', http_client=server.client()))

    with pytest.raises(UserError, match=r'download https://example.com/report.pdf and send it as BinaryContent'):
        await Agent(model).run(['Summarize.', DocumentUrl('https://example.com/report.pdf')])
    assert server.sent == []


async def test_anthropic_refuses_video_with_a_user_error():
    server = ScriptedProvider.load('anthropic/text')
    model = AnthropicModel('claude-sonnet-4-5', provider=AnthropicProvider(api_key='k', http_client=server.client()))

    with pytest.raises(UserError, match='Anthropic cannot take VideoUrl'):
        await Agent(model).run(['Describe.', VideoUrl('https://example.com/clip.mp4')])
