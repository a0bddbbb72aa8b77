"""`HTTPModel`: the request/stream flow shared by the models that reach a provider over HTTP.

A subclass says how to build the provider's request body (`build_call`), how to read its response
(`parse_response`) and how to turn its event stream into part events (`stream_response`). This class
prepares the request, refuses it when model requests are disabled, sends it with the provider's client
and maps failures to `ModelHTTPError`/`ModelAPIError` (see `agent.models._http`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Hashable
from contextlib import asynccontextmanager
from typing import Any

from agent._events import ModelResponseStreamEvent
from agent._parts import ModelMessage, ModelResponse, TextPart, ThinkingPart
from agent._run_context import RunContext
from agent.providers import Provider
from agent.settings import ModelSettings

from . import Model, ModelProfile, ModelRequestParameters, StreamedResponse, check_allow_model_requests
from ._http import HTTPCall, open_stream, post_json
from ._sse import JSONEvent, json_events

__all__ = ('HTTPModel', 'HTTPStreamedResponse')


class HTTPModel(Model):
    """A model served by a provider's HTTP API."""

    def __init__(
        self,
        model_name: str,
        *,
        provider: Provider,
        profile: ModelProfile | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Create a model.

        Args:
            model_name: The provider's name for the model.
            provider: Where requests go.
            profile: What the model supports; the provider's defaults for the model when omitted.
            settings: Default settings for every request.
        """
        super().__init__(settings=settings, profile=profile or self.default_profile(model_name, provider))
        self._model_name = model_name
        self._provider = provider

    @classmethod
    @abstractmethod
    def default_profile(cls, model_name: str, provider: Provider) -> ModelProfile:
        """What the model supports, when no profile is given."""
        raise NotImplementedError

    @abstractmethod
    def build_call(
        self,
        messages: list[ModelMessage],
        settings: ModelSettings,
        params: ModelRequestParameters,
        *,
        stream: bool,
    ) -> HTTPCall:
        """The HTTP request for a prepared model request."""
        raise NotImplementedError

    @abstractmethod
    def parse_response(self, data: dict[str, Any], params: ModelRequestParameters) -> ModelResponse:
        """The response in a provider's (non-streamed) answer."""
        raise NotImplementedError

    @abstractmethod
    def stream_response(self, events: AsyncIterator[JSONEvent], params: ModelRequestParameters) -> StreamedResponse:
        """A streamed response reading the provider's events."""
        raise NotImplementedError

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Send the conversation and return the provider's response.

        Raises:
            ModelHTTPError: when the provider answers with an error status.
            ModelAPIError: when the request fails otherwise.
        """
        check_allow_model_requests()
        settings, params = self.prepare_request(model_settings, model_request_parameters)
        call = self.build_call(messages, settings or ModelSettings(), params, stream=False)
        data = await post_json(
            self._provider.http_client, call, model_name=self._model_name, body_retry_delay=self.retry_delay_in_body
        )
        return self.parse_response(data, params)

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        """Send the conversation and stream the provider's response as part events.

        Raises:
            ModelHTTPError: on entering, when the provider answers with an error status.
            ModelAPIError: when the request or the stream fails otherwise.
        """
        check_allow_model_requests()
        settings, params = self.prepare_request(model_settings, model_request_parameters)
        call = self.build_call(messages, settings or ModelSettings(), params, stream=True)
        async with open_stream(
            self._provider.http_client, call, model_name=self._model_name, body_retry_delay=self.retry_delay_in_body
        ) as response:
            yield self.stream_response(json_events(response, model_name=self._model_name), params)

    def retry_delay_in_body(self, body: object) -> float | None:
        """The retry delay an error body asks for, for providers that send it there; `None` by default."""
        return None

    def headers(self, settings: ModelSettings, extra: dict[str, str] | None = None) -> dict[str, str]:
        """The provider's authentication headers, then `extra`, then the `extra_headers` setting."""
        return {**self._provider.auth_headers(), **(extra or {}), **settings.get('extra_headers', {})}

    @property
    def provider(self) -> Provider:
        """Where requests go."""
        return self._provider

    @property
    def model_name(self) -> str:
        """The provider's name for the model."""
        return self._model_name

    @property
    def system(self) -> str:
        """The provider's name."""
        return self._provider.name

    @property
    def base_url(self) -> str:
        """The provider's base URL."""
        return self._provider.base_url


class HTTPStreamedResponse(StreamedResponse):
    """A response streamed from a provider's server-sent events.

    Subclasses read `self._events` in `_get_event_iterator`. The helpers start a text or thinking part with
    the provider's part id on its first fragment (or empty, with `start_empty`, when the provider announces the
    part before its content) and append later fragments to it.
    """

    def __init__(
        self,
        model_request_parameters: ModelRequestParameters,
        events: AsyncIterator[JSONEvent],
        *,
        model_name: str,
        provider_name: str,
        provider_url: str | None = None,
    ) -> None:
        """Create a response reading `events`."""
        super().__init__(
            model_request_parameters, model_name=model_name, provider_name=provider_name, provider_url=provider_url
        )
        self._events = events
        self._started: set[Hashable] = set()

    def _text(
        self, vendor_part_id: Hashable, content: str, *, part_id: str | None = None
    ) -> ModelResponseStreamEvent | None:
        if not content:
            return None
        if vendor_part_id in self._started:
            return next(self._parts_manager.handle_text_delta(vendor_part_id=vendor_part_id, content=content), None)
        self._started.add(vendor_part_id)
        return self._parts_manager.handle_part(vendor_part_id=vendor_part_id, part=TextPart(content, id=part_id))

    def _thinking(
        self,
        vendor_part_id: Hashable,
        content: str | None = None,
        *,
        signature: str | None = None,
        part_id: str | None = None,
        start_empty: bool = False,
    ) -> ModelResponseStreamEvent | None:
        if vendor_part_id in self._started:
            if not content and not signature:
                return None
            events = self._parts_manager.handle_thinking_delta(
                vendor_part_id=vendor_part_id,
                content=content or None,
                signature=signature,
                provider_name=self.provider_name,
            )
            return next(events, None)
        if not content and not signature and not start_empty:
            return None
        self._started.add(vendor_part_id)
        part = ThinkingPart(content or '', id=part_id, signature=signature, provider_name=self.provider_name)
        return self._parts_manager.handle_part(vendor_part_id=vendor_part_id, part=part)
