"""`BinaryImage` as an output type: an image the model returns is the run's output."""

from __future__ import annotations

import pytest

from agent import Agent, ModelRetry, RunContext
from agent.exceptions import UserError
from agent.messages import (
    BinaryImage,
    FilePart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
)
from agent.models import ModelProfile, ModelRequestParameters
from agent.models.function import AgentInfo, FunctionModel

IMAGE_PROFILE = ModelProfile(supports_image_output=True)


def _drawing(first: ModelResponse, *later: ModelResponse) -> tuple[FunctionModel, list[ModelRequestParameters]]:
    """A model answering with `first`, then `later` in turn, recording the parameters of each request."""
    responses = [first, *later]
    seen: list[ModelRequestParameters] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info.model_request_parameters)
        return responses[min(len(seen), len(responses)) - 1]

    return FunctionModel(respond, profile=IMAGE_PROFILE), seen


def _image(data: bytes) -> ModelResponse:
    return ModelResponse(parts=[TextPart('Here it is.'), FilePart(BinaryImage(data=data, media_type='image/png'))])


async def test_an_image_only_output_type_asks_for_an_image_and_the_image_is_the_output():
    model, seen = _drawing(_image(b'circle'))

    result = await Agent(model, output_type=BinaryImage).run('Draw a circle')

    assert result.output == BinaryImage(data=b'circle', media_type='image/png')
    assert (seen[0].output_mode, seen[0].allow_image_output, seen[0].allow_text_output) == ('image', True, False)


async def test_output_validators_see_the_image_and_may_replace_it_or_ask_for_another():
    model, seen = _drawing(_image(b'blurry'), _image(b'sharp'))
    agent = Agent(model, output_type=BinaryImage)

    @agent.output_validator
    def sharpen(ctx: RunContext[None], output: BinaryImage) -> BinaryImage:
        if output.data == b'blurry':
            raise ModelRetry('Too blurry.')
        return BinaryImage(data=output.data + b'!', media_type=output.media_type)

    result = await agent.run('Draw')

    assert result.output.data == b'sharp!'
    assert len(seen) == 2
    retry = result.all_messages()[2]
    assert isinstance(retry, ModelRequest)
    assert [(type(p), p.content) for p in retry.parts] == [(RetryPromptPart, 'Too blurry.')]


async def test_text_is_no_answer_when_only_an_image_is_and_the_model_is_asked_for_one():
    model, _ = _drawing(ModelResponse(parts=[TextPart('I cannot draw.')]), _image(b'tried'))

    result = await Agent(model, output_type=BinaryImage).run('Draw')

    retry = result.all_messages()[2]
    assert isinstance(retry, ModelRequest)
    assert [p.content for p in retry.parts] == ['Please return an image.']
    assert result.output.data == b'tried'


async def test_next_to_text_either_answer_is_the_output():
    text_model, seen = _drawing(ModelResponse(parts=[TextPart('A circle is round.')]))
    image_model, _ = _drawing(_image(b'circle'))

    assert (await Agent(text_model, output_type=[str, BinaryImage]).run('x')).output == 'A circle is round.'
    assert (await Agent(image_model, output_type=[str, BinaryImage]).run('x')).output.data == b'circle'
    assert (seen[0].output_mode, seen[0].allow_image_output, seen[0].allow_text_output) == ('text', True, True)


def test_a_model_whose_profile_has_no_image_output_refuses_the_request():
    model = FunctionModel(lambda messages, info: _image(b'x'))

    with pytest.raises(UserError, match='Image output is not supported by this model'):
        Agent(model, output_type=BinaryImage).run_sync('Draw')
