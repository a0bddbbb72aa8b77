"""`XSearch`: X search natively on models that have it, through an xAI subagent (`fallback_model`) elsewhere."""

from __future__ import annotations

from typing import Any

import pytest

from agent import Agent
from agent.builtin_tools import XSearchTool
from agent.capabilities import XSearch
from agent.exceptions import UserError
from agent.messages import ModelMessage, ModelResponse, RetryPromptPart, TextPart, ToolCallPart
from agent.models import ModelProfile
from agent.models.function import AgentInfo, FunctionModel
from agent.models.test import TestModel


async def test_model_without_native_x_search_and_no_fallback_model_is_told_to_set_one() -> None:
    agent = Agent(TestModel(profile=ModelProfile()), capabilities=[XSearch()])
    with pytest.raises(UserError, match='fallback_model'):
        await agent.run('what is trending?')


def test_fallback_model_and_local_tool_cannot_both_be_given() -> None:
    with pytest.raises(UserError, match='cannot specify both `fallback_model` and `local`'):
        XSearch(fallback_model='test', local=lambda query: query)
    with pytest.raises(UserError, match='cannot specify both `fallback_model` and `local`'):
        XSearch(fallback_model='test', local=False)


def test_handle_filters_need_the_native_tool_unless_a_subagent_applies_them() -> None:
    assert XSearch(allowed_x_handles=['a']).builtin_only_fields() == ['allowed_x_handles']
    with_fallback = XSearch(allowed_x_handles=['a'], from_date=None, fallback_model='test')
    assert with_fallback.builtin_only_fields() == []
    assert with_fallback.resolved_builtin() == XSearchTool(allowed_x_handles=['a'])
    given = XSearch(builtin=XSearchTool(enable_image_understanding=True), excluded_x_handles=['b'], fallback_model='x')
    assert given.resolved_builtin() == XSearchTool(enable_image_understanding=True, excluded_x_handles=['b'])


async def test_a_failing_subagent_search_goes_back_to_the_model_as_a_retry() -> None:
    def main_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        retries = [p for m in messages for p in m.parts if isinstance(p, RetryPromptPart)]
        if retries:
            return ModelResponse(parts=[TextPart(f'gave up: {retries[0].model_response()[:40]}')])
        assert [t.name for t in info.function_tools] == ['x_search']
        return ModelResponse(parts=[ToolCallPart('x_search', {'query': 'pydantic'})])

    # The subagent's model cannot search X either, so the subagent run fails.
    def subagent_model(messages: list[ModelMessage], info: AgentInfo) -> Any:
        raise AssertionError('a model without X search is never asked')  # pragma: no cover

    without_native = ModelProfile(supported_native_tools=frozenset())
    fallback = FunctionModel(subagent_model, profile=without_native)
    agent = Agent(FunctionModel(main_model, profile=without_native), capabilities=[XSearch(fallback_model=fallback)])
    result = await agent.run('search X')
    assert result.output.startswith('gave up: X search failed')
