"""What `TestModel` accepts of a request, as `Model.prepare_request` settles it: native tools and output modes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from agent._tool_def import ToolDefinition
from agent.exceptions import UserError
from agent.messages import ModelRequest
from agent.models import ModelProfile, ModelRequestParameters, OutputObjectDefinition
from agent.models.test import TestModel


@dataclass
class _WebSearch:
    kind: str = 'web_search'


def _tool(name: str) -> ToolDefinition:
    return ToolDefinition(name=name, parameters_json_schema={'type': 'object', 'properties': {}})


def _params(**kwargs: Any) -> ModelRequestParameters:
    return ModelRequestParameters(**kwargs)


WEATHER = _tool('weather')


async def test_native_tools_are_accepted_and_recorded_but_a_request_sending_them_fails():
    model = TestModel()
    params = _params(native_tools=[_WebSearch()], function_tools=[WEATHER])

    with pytest.raises(UserError, match=r'^TestModel does not support built-in tools$'):
        await model.request([ModelRequest.user_text_prompt('hi')], None, params)
    assert model.last_model_request_parameters is not None
    assert model.last_model_request_parameters.native_tools == [_WebSearch()]
    with pytest.raises(UserError, match=r'^TestModel does not support built-in tools$'):
        async with model.request_stream([ModelRequest.user_text_prompt('hi')], None, params):
            pass
    # Tool search is not among them: the local `search_tools` stands in for it.
    assert 'tool_search' not in {getattr(tool, 'kind', tool) for tool in model.profile.supported_native_tools}


def test_prepare_request_refuses_output_the_profile_does_not_support():
    plain = TestModel(profile=ModelProfile(supports_tools=False))
    output_object = OutputObjectDefinition({'type': 'object'})

    with pytest.raises(UserError, match=r'^Native structured output is not supported by this model\.'):
        plain.prepare_request(None, _params(output_mode='native', output_object=output_object))
    with pytest.raises(UserError, match=r'^Tool output is not supported by this model\.'):
        plain.prepare_request(None, _params(output_mode='tool', output_tools=[_tool('final_result')]))
    with pytest.raises(UserError, match=r'^Image output is not supported by this model\.'):
        plain.prepare_request(None, _params(output_mode='image', allow_image_output=True))
    # The default profile supports all three.
    for params in (
        _params(output_mode='native', output_object=output_object),
        _params(output_mode='tool', output_tools=[_tool('final_result')]),
        _params(output_mode='image', allow_image_output=True),
    ):
        TestModel().prepare_request(None, params)
