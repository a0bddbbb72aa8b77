"""A streamed response written as for Pydantic AI: built from the request parameters alone, its names as properties."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime

from agent.messages import ModelResponseStreamEvent, PartDeltaEvent, PartEndEvent, PartStartEvent, TextPart
from agent.models import ModelRequestParameters, StreamedResponse


class GreetingStream(StreamedResponse):
    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        for word in ['Hello', ' there']:
            for event in self._parts_manager.handle_text_delta(vendor_part_id='greeting', content=word):
                yield event

    @property
    def model_name(self) -> str:
        return 'greeter-1'

    @property
    def provider_name(self) -> str:
        return 'greeter'

    @property
    def provider_url(self) -> str:
        return 'https://greeter.example.com'

    @property
    def timestamp(self) -> datetime:
        return datetime(2025, 1, 1, tzinfo=UTC)


async def test_a_subclass_naming_its_model_by_properties_needs_only_the_request_parameters():
    stream = GreetingStream(model_request_parameters=ModelRequestParameters())

    events = [event async for event in stream]

    assert [type(event) for event in events] == [PartStartEvent, PartDeltaEvent, PartEndEvent]
    response = stream.get()
    assert response.parts == [TextPart('Hello there')]
    assert (response.model_name, response.provider_name, response.provider_url) == (
        'greeter-1',
        'greeter',
        'https://greeter.example.com',
    )
    assert response.timestamp == datetime(2025, 1, 1, tzinfo=UTC)
