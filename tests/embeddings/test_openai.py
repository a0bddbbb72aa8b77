"""`OpenAIEmbeddingModel` against OpenAI's embeddings wire format, through an `httpx2.MockTransport`."""

from __future__ import annotations

import base64
import json
import struct
import sys
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import httpx2
import pytest

from agent import Embedder
from agent.embeddings.openai import OpenAIEmbeddingModel
from agent.exceptions import ModelAPIError, ModelHTTPError, UserError
from agent.models import override_allow_model_requests
from agent.providers.openai import OpenAIProvider
from agent.usage import RequestUsage

# The shape OpenAI answers `POST /v1/embeddings` with (vectors shortened to three dimensions).
EMBEDDINGS_RESPONSE: dict[str, Any] = {
    'object': 'list',
    'data': [
        {'object': 'embedding', 'index': 0, 'embedding': [-0.006929283, -0.005336422, 0.024047505]},
        {'object': 'embedding', 'index': 1, 'embedding': [0.012567796, -0.031212924, 0.001432501]},
    ],
    'model': 'text-embedding-3-small',
    'usage': {'prompt_tokens': 9, 'total_tokens': 9},
}

INVALID_KEY_RESPONSE = {
    'error': {
        'message': 'Incorrect API key provided: sk-bad. You can find your API key at '
        'https://platform.openai.com/account/api-keys.',
        'type': 'invalid_request_error',
        'param': None,
        'code': 'invalid_api_key',
    }
}


@pytest.fixture(autouse=True)
def _allow_model_requests() -> Iterator[None]:
    with override_allow_model_requests(True):
        yield


class Server:
    """Answers every request with `answer`, recording the requests."""

    def __init__(self, answer: Callable[[httpx2.Request], httpx2.Response]) -> None:
        self.answer = answer
        self.requests: list[httpx2.Request] = []

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        return self.answer(request)

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self.handle))

    @property
    def bodies(self) -> list[Any]:
        return [json.loads(request.content) for request in self.requests]


def answering(status: int, body: Any, headers: dict[str, str] | None = None) -> Server:
    return Server(lambda _: httpx2.Response(status, json=body, headers=headers))


def model_on(server: Server, name: str = 'text-embedding-3-small', **provider: Any) -> OpenAIEmbeddingModel:
    provider.setdefault('api_key', 'sk-test')
    return OpenAIEmbeddingModel(name, provider=OpenAIProvider(http_client=server.client(), **provider))


async def test_documents_are_posted_to_the_embeddings_endpoint_and_vectors_read_back_with_usage():
    server = answering(200, EMBEDDINGS_RESPONSE)
    embedder = Embedder(model_on(server))

    result = await embedder.embed_documents(['The cat sat on the mat.', 'Dogs bark.'])

    [request] = server.requests
    assert (request.method, str(request.url)) == ('POST', 'https://api.openai.com/v1/embeddings')
    assert request.headers['authorization'] == 'Bearer sk-test'
    assert server.bodies == [{'input': ['The cat sat on the mat.', 'Dogs bark.'], 'model': 'text-embedding-3-small'}]
    assert result.embeddings == [
        [-0.006929283, -0.005336422, 0.024047505],
        [0.012567796, -0.031212924, 0.001432501],
    ]
    assert result['Dogs bark.'] == [0.012567796, -0.031212924, 0.001432501]
    assert result.input_type == 'document'
    assert (result.model_name, result.provider_name) == ('text-embedding-3-small', 'openai')
    assert result.usage == RequestUsage(input_tokens=9)


async def test_dimensions_extra_headers_and_extra_body_reach_the_request():
    server = answering(200, {**EMBEDDINGS_RESPONSE, 'data': EMBEDDINGS_RESPONSE['data'][:1]})
    embedder = Embedder(model_on(server), settings={'dimensions': 3, 'extra_headers': {'x-team': 'search'}})

    await embedder.embed_query('q', settings={'extra_body': {'user': 'user-42'}})

    [request] = server.requests
    assert request.headers['x-team'] == 'search'
    assert server.bodies == [{'input': ['q'], 'model': 'text-embedding-3-small', 'dimensions': 3, 'user': 'user-42'}]


async def test_vectors_are_returned_in_input_order_whatever_the_response_order():
    reversed_data = list(reversed(EMBEDDINGS_RESPONSE['data']))
    server = answering(200, {**EMBEDDINGS_RESPONSE, 'data': reversed_data})

    result = await model_on(server).embed(['first', 'second'], input_type='document')

    assert result['first'] == [-0.006929283, -0.005336422, 0.024047505]


async def test_base64_encoded_vectors_are_decoded():
    packed = base64.b64encode(struct.pack('<3f', 0.5, -1.0, 2.0)).decode()
    data = [{'object': 'embedding', 'index': 0, 'embedding': packed}]
    server = answering(200, {**EMBEDDINGS_RESPONSE, 'data': data})

    result = await model_on(server).embed(
        'x', input_type='query', settings={'extra_body': {'encoding_format': 'base64'}}
    )

    assert result.embeddings == [[0.5, -1.0, 2.0]]
    assert server.bodies[0]['encoding_format'] == 'base64'


async def test_an_invalid_key_is_a_model_http_error_with_the_decoded_body():
    server = answering(401, INVALID_KEY_RESPONSE)

    with pytest.raises(ModelHTTPError) as caught:
        await Embedder(model_on(server, api_key='sk-bad')).embed_query('q')

    assert caught.value.status_code == 401
    assert caught.value.body == INVALID_KEY_RESPONSE
    assert caught.value.model_name == 'text-embedding-3-small'


async def test_a_rate_limit_carries_the_requested_retry_delay():
    server = answering(429, {'error': {'message': 'Rate limit reached'}}, headers={'retry-after': '7'})

    with pytest.raises(ModelHTTPError) as caught:
        await model_on(server).embed('q', input_type='query')

    assert (caught.value.status_code, caught.value.retry_after) == (429, 7.0)


async def test_a_connection_failure_is_a_model_api_error():
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError('connection refused', request=request)

    with pytest.raises(ModelAPIError, match='connection refused'):
        await model_on(Server(refuse)).embed('q', input_type='query')


async def test_a_response_with_fewer_vectors_than_inputs_is_a_model_api_error():
    server = answering(200, {**EMBEDDINGS_RESPONSE, 'data': EMBEDDINGS_RESPONSE['data'][:1]})

    with pytest.raises(ModelAPIError, match='Expected 2 embeddings, the response has 1'):
        await model_on(server).embed(['a', 'b'], input_type='document')


async def test_requests_are_refused_when_model_requests_are_disabled():
    server = answering(200, EMBEDDINGS_RESPONSE)

    with override_allow_model_requests(False), pytest.raises(RuntimeError, match='ALLOW_MODEL_REQUESTS'):
        await model_on(server).embed('q', input_type='query')

    assert server.requests == []


async def test_a_compatible_server_gets_no_key_and_may_omit_usage(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    answer = {'object': 'list', 'data': EMBEDDINGS_RESPONSE['data'][:1], 'model': 'nomic-embed-text'}
    server = answering(200, answer)
    model = OpenAIEmbeddingModel(
        'nomic-embed-text', provider=OpenAIProvider(base_url='http://localhost:11434/v1', http_client=server.client())
    )

    result = await model.embed('q', input_type='query')

    [request] = server.requests
    assert str(request.url) == 'http://localhost:11434/v1/embeddings'
    assert 'authorization' not in request.headers
    assert result.usage == RequestUsage()
    assert result.model_name == 'nomic-embed-text'
    assert await model.max_input_tokens() is None
    with pytest.raises(UserError, match='only supported'):
        await model.count_tokens('q')


async def test_openai_models_accept_8192_input_tokens():
    assert await model_on(answering(200, {})).max_input_tokens() == 8192


async def test_counting_tokens_uses_the_models_tiktoken_encoding(monkeypatch: pytest.MonkeyPatch):
    asked: list[str] = []

    def encoding_for_model(name: str) -> Any:
        asked.append(name)
        return SimpleNamespace(encode=lambda text: text.split())

    monkeypatch.setitem(sys.modules, 'tiktoken', SimpleNamespace(encoding_for_model=encoding_for_model))

    assert await Embedder(model_on(answering(200, {}))).count_tokens('three little words') == 3
    assert asked == ['text-embedding-3-small']


async def test_counting_tokens_without_tiktoken_is_a_user_error_saying_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setitem(sys.modules, 'tiktoken', None)

    with pytest.raises(UserError, match='pip install tiktoken'):
        await model_on(answering(200, {})).count_tokens('q')


def test_the_provider_name_builds_the_provider_from_the_environment(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    monkeypatch.delenv('OPENAI_BASE_URL', raising=False)

    with pytest.raises(UserError, match='OPENAI_API_KEY'):
        OpenAIEmbeddingModel('text-embedding-3-small')
