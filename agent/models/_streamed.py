"""`StreamedResponse`: a model response that arrives as a stream of part events."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import replace
from datetime import datetime
from typing import Any

from agent._env import now_utc
from agent._events import ModelResponseStreamEvent, PartEndEvent, PartStartEvent
from agent._parts import FinishReason, ModelResponse
from agent._parts_manager import ModelResponsePartsManager
from agent.usage import RequestUsage

from ._request_parameters import ModelRequestParameters

__all__ = ('StreamedResponse',)


class StreamedResponse(ABC):
    """A response being streamed from a model.

    Subclasses implement `_get_event_iterator`, feeding provider fragments to `self._parts_manager` and
    yielding the `PartStartEvent`/`PartDeltaEvent`s it returns, and update `self._usage`, `finish_reason` and
    `provider_response_id` as the provider reports them. Iterating the response adds a `PartEndEvent` for a
    part when another part starts and for the open part when the stream ends.
    """

    def __init__(
        self,
        model_request_parameters: ModelRequestParameters,
        *,
        model_name: str = '',
        provider_name: str | None = None,
        provider_url: str | None = None,
        timestamp: datetime | None = None,
    ) -> None:
        """Create a streamed response.

        Args:
            model_request_parameters: The parameters of the request being answered.
            model_name: The model producing the response. A subclass may override the `model_name`,
                `provider_name`, `provider_url` and `timestamp` properties instead of passing them, as Pydantic AI's
                streamed responses do.
            provider_name: The provider serving the request.
            provider_url: The base URL of the provider's API, for models reached over HTTP.
            timestamp: When the response started; now by default.
        """
        self.model_request_parameters = model_request_parameters
        self._model_name = model_name
        self._provider_name = provider_name
        self._provider_url = provider_url
        self._timestamp = timestamp if timestamp is not None else now_utc()
        self._parts_manager = ModelResponsePartsManager(model_request_parameters)
        self._usage = RequestUsage()
        self._event_iterator: AsyncIterator[ModelResponseStreamEvent] | None = None
        self.finish_reason: FinishReason | None = None
        """Why the model stopped, once known."""
        self.provider_response_id: str | None = None
        """The provider's id for the response, once known."""
        self.provider_details: dict[str, Any] | None = None
        """Provider-specific details about the response."""
        self._finished = False
        self._cancelled = False

    @abstractmethod
    def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        """Yield the part start/delta events of the response as fragments arrive."""
        raise NotImplementedError

    def __aiter__(self) -> AsyncIterator[ModelResponseStreamEvent]:
        """Stream the events; iterating again continues where the previous iteration stopped."""
        if self._event_iterator is None:
            self._event_iterator = self._with_part_end_events(self._get_event_iterator())
        return self._event_iterator

    async def cancel(self) -> None:
        """Stop the stream: no more events arrive, and the response so far is `state='interrupted'`.

        Cancelling a stream that has ended, or cancelling twice, only sets `cancelled`.
        """
        self._cancelled = True
        iterator = self._event_iterator
        if iterator is not None and not self._finished and isinstance(iterator, AsyncGenerator):
            await iterator.aclose()

    @property
    def cancelled(self) -> bool:
        """Whether `cancel()` was called."""
        return self._cancelled

    async def _with_part_end_events(
        self, events: AsyncIterator[ModelResponseStreamEvent]
    ) -> AsyncIterator[ModelResponseStreamEvent]:
        open_indexes: list[int] = []
        async for event in events:
            if isinstance(event, PartStartEvent):
                previous_kind = event.previous_part_kind
                for index in [i for i in open_indexes if i != event.index]:
                    open_indexes.remove(index)
                    ended = self._parts_manager.get_part_at(index)
                    if ended is not None:
                        yield PartEndEvent(index, ended, next_part_kind=event.part.part_kind)
                        previous_kind = ended.part_kind
                if event.index not in open_indexes:
                    open_indexes.append(event.index)
                if previous_kind != event.previous_part_kind:
                    event = replace(event, previous_part_kind=previous_kind)
            yield event
        self._finished = True
        for index in open_indexes:
            ended = self._parts_manager.get_part_at(index)
            if ended is not None:
                yield PartEndEvent(index, ended)

    def get(self) -> ModelResponse:
        """The response as streamed so far."""
        return ModelResponse(
            parts=self._parts_manager.get_parts(),
            usage=self._usage,
            model_name=self.model_name,
            timestamp=self.timestamp,
            provider_name=self.provider_name,
            provider_url=self.provider_url,
            provider_details=self.provider_details,
            provider_response_id=self.provider_response_id,
            finish_reason=self.finish_reason,
            state='complete' if self._finished else 'interrupted' if self._cancelled else 'incomplete',
        )

    def usage(self) -> RequestUsage:
        """The usage reported so far."""
        return self._usage

    @property
    def model_name(self) -> str:
        """The model producing the response."""
        return self._model_name

    @property
    def provider_name(self) -> str | None:
        """The provider serving the request."""
        return self._provider_name

    @property
    def provider_url(self) -> str | None:
        """The base URL of the provider's API, if the model is reached over HTTP."""
        return self._provider_url

    @property
    def timestamp(self) -> datetime:
        """When the response started."""
        return self._timestamp
