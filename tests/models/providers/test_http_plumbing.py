"""What every HTTP model shares: refusing requests in tests, error mapping, `retry-after`, prompted output."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import httpx2
import pytest

from agent._env import RunEnvironment, use_environment
from agent.exceptions import ModelAPIError, ModelHTTPError
from agent.messages import ModelMessage, ModelRequest, RetryPromptPart
from agent.models import ModelRequestParameters, OutputObjectDefinition, override_allow_model_requests
from agent.models._http import retry_after_seconds
from agent.models.openai import OpenAIChatModel
from agent.providers.openai import OpenAIProvider

from ._mock import ScriptedProvider

PROMPT: list[ModelMessage] = [ModelRequest.user_text_prompt('hello')]


def model_answering(handler: httpx2.MockTransport) -> OpenAIChatModel:
    return OpenAIChatModel(
        'gpt-4o', provider=OpenAIProvider(api_key='k', http_client=httpx2.AsyncClient(transport=handler))
    )


async def test_requests_are_refused_before_sending_when_model_requests_are_disallowed():
    server = ScriptedProvider.load('openai_chat/text')
    model = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(api_key='k', http_client=server.client()))

    with override_allow_model_requests(False), pytest.raises(RuntimeError, match='ALLOW_MODEL_REQUESTS'):
        await model.request(PROMPT, None, ModelRequestParameters())
    with override_allow_model_requests(False), pytest.raises(RuntimeError, match='ALLOW_MODEL_REQUESTS'):
        async with model.request_stream(PROMPT, None, ModelRequestParameters()):
            pass
    assert server.sent == []


def test_retry_after_is_read_from_seconds_milliseconds_and_http_dates():
    now = datetime(2025, 11, 3, 12, 0, 0, tzinfo=UTC)
    later = (now + timedelta(seconds=30)).strftime('%a, %d %b %Y %H:%M:%S GMT')
    with use_environment(RunEnvironment(now=lambda: now)):
        assert retry_after_seconds({'retry-after': '7'}) == 7.0
        assert retry_after_seconds({'retry-after': '7', 'retry-after-ms': '250'}) == 0.25
        assert retry_after_seconds({'retry-after': later}) == 30.0
        assert retry_after_seconds({'retry-after': 'soon'}) is None
        assert retry_after_seconds({}) is None


async def test_an_error_body_that_is_not_json_is_kept_as_text():
    model = model_answering(httpx2.MockTransport(lambda request: httpx2.Response(502, text='<html>Bad gateway</html>')))

    with pytest.raises(ModelHTTPError) as info:
        await model.request(PROMPT, None, ModelRequestParameters())

    assert info.value.status_code == 502
    assert info.value.body == '<html>Bad gateway</html>'
    assert info.value.retryable


async def test_a_success_that_is_not_json_is_a_model_api_error():
    model = model_answering(httpx2.MockTransport(lambda request: httpx2.Response(200, text='not json')))

    with pytest.raises(ModelAPIError, match='Invalid JSON in the response'):
        await model.request(PROMPT, None, ModelRequestParameters())


async def test_a_stream_that_is_not_an_event_stream_is_a_model_api_error():
    model = model_answering(httpx2.MockTransport(lambda request: httpx2.Response(200, json={'unexpected': True})))

    with pytest.raises(ModelAPIError, match='text/event-stream'):
        async with model.request_stream(PROMPT, None, ModelRequestParameters()) as stream:
            [event async for event in stream]


async def test_a_stream_error_status_is_raised_on_entering_with_its_body():
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(503, headers={'retry-after': '2'}, json={'error': {'message': 'overloaded'}})

    model = model_answering(httpx2.MockTransport(handler))

    with pytest.raises(ModelHTTPError) as info:
        async with model.request_stream(PROMPT, None, ModelRequestParameters()):
            pass

    assert (info.value.status_code, info.value.retry_after) == (503, 2.0)
    assert info.value.body == {'error': {'message': 'overloaded'}}


async def test_prompted_output_asks_for_a_json_object_in_the_instructions():
    sent: list[dict[str, object]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        message = {'role': 'assistant', 'content': '{"city": "Paris"}'}
        return httpx2.Response(
            200, json={'id': 'c', 'choices': [{'index': 0, 'message': message, 'finish_reason': 'stop'}]}
        )

    schema = {'type': 'object', 'properties': {'city': {'type': 'string'}}, 'required': ['city']}
    params = ModelRequestParameters(
        output_mode='prompted', output_object=OutputObjectDefinition(json_schema=schema, description='A city')
    )
    messages: list[ModelMessage] = [ModelRequest.user_text_prompt('Name a city.', instructions='Be brief.')]

    response = await model_answering(httpx2.MockTransport(handler)).request(messages, None, params)

    assert response.text == '{"city": "Paris"}'
    assert sent[0]['response_format'] == {'type': 'json_object'}
    assert sent[0]['messages'] == [
        {
            'role': 'system',
            'content': 'Be brief.\n\nAlways respond with a JSON object that matches this JSON schema:\n\n'
            + json.dumps({**schema, 'description': 'A city'})
            + '\n\nReply with the JSON object only, with no text or Markdown code fence around it.',
        },
        {'role': 'user', 'content': 'Name a city.'},
    ]


async def test_a_retry_about_plain_text_output_goes_back_as_a_user_message():
    sent: list[dict[str, object]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        message = {'role': 'assistant', 'content': 'ok'}
        return httpx2.Response(
            200, json={'id': 'c', 'choices': [{'index': 0, 'message': message, 'finish_reason': 'stop'}]}
        )

    retry: ModelMessage = ModelRequest(parts=[RetryPromptPart('Answer in French.')])

    await model_answering(httpx2.MockTransport(handler)).request([retry], None, ModelRequestParameters())

    assert sent[0]['messages'] == [
        {'role': 'user', 'content': 'Validation feedback:\nAnswer in French.\n\nFix the errors and try again.'}
    ]
