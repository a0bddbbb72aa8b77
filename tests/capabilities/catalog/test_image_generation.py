"""`ImageGeneration`: the native tool where supported, a request to `fallback_model` otherwise."""

from __future__ import annotations

from typing import Any

import pytest

from agent import Agent, UserError
from agent.builtin_tools import ImageGenerationTool
from agent.capabilities import ImageGeneration
from agent.messages import (
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from ._models import PNG, Script, image_model


def test_models_with_native_image_generation_get_the_native_tool_with_its_options() -> None:
    script = Script(['here'], native={'image_generation'})
    Agent(script.model(), capabilities=[ImageGeneration(size='1024x1024', quality='high')]).run_sync('draw')
    assert script.offered[0].native_tools == [ImageGenerationTool(size='1024x1024', quality='high')]
    assert script.offered[0].function_tools == []


def test_other_models_generate_images_through_the_fallback_model() -> None:
    requests: list[tuple[str, list[Any]]] = []
    script = Script([[ToolCallPart('generate_image', {'prompt': 'a red circle'}, 'g1')], 'Here is your circle.'])
    cap = ImageGeneration(fallback_model=image_model(requests), quality='low')
    result = Agent(script.model(), capabilities=[cap]).run_sync('draw a red circle')

    assert result.output == 'Here is your circle.'
    assert requests == [('a red circle', [ImageGenerationTool(quality='low')])]
    tool_request = result.all_messages()[2]
    assert isinstance(tool_request, ModelRequest)
    assert [type(p) for p in tool_request.parts] == [ToolReturnPart, UserPromptPart]
    assert tool_request.parts[0].content == 'Generated 1 image: A red circle.'
    assert tool_request.parts[1].content == [PNG]
    # The fallback model's request counts towards the run's usage.
    assert (result.usage().requests, result.usage().output_tokens) == (3, 100 + script_output_tokens(result))


def script_output_tokens(result: Any) -> int:
    return sum(m.usage.output_tokens for m in result.all_messages() if isinstance(m, ModelResponse))


def test_a_fallback_model_that_returns_no_image_is_asked_again_through_the_model() -> None:
    requests: list[tuple[str, list[Any]]] = []
    script = Script([[ToolCallPart('generate_image', {'prompt': 'a circle'}, 'g1')], 'sorry'])
    cap = ImageGeneration(fallback_model=image_model(requests, with_image=False))
    result = Agent(script.model(), capabilities=[cap]).run_sync('draw')
    retry = result.all_messages()[2]
    assert isinstance(retry, ModelRequest)
    assert retry.parts[0].content == (
        'function:function:respond: did not return an image (it said: A red circle.); try a different description.'
    )


def test_without_a_fallback_model_other_models_get_a_user_error() -> None:
    with pytest.raises(UserError, match=r'ImageGeneration has no local fallback: pass fallback_model='):
        Agent(Script(['ok']).model(), capabilities=[ImageGeneration()]).run_sync('draw')


def test_image_generation_loads_from_a_spec() -> None:
    agent = Agent.from_spec(
        {'model': 'test', 'capabilities': [{'ImageGeneration': {'fallback_model': 'test', 'size': '1024x1536'}}]}
    )
    assert agent.capabilities == [ImageGeneration(fallback_model='test', size='1024x1536')]
    with pytest.raises(UserError, match=r"Failed to instantiate capability 'ImageGeneration': size: Input should be"):
        Agent.from_spec({'model': 'test', 'capabilities': [{'ImageGeneration': {'size': 'huge'}}]})
