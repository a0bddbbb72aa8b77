"""Tool results keep their types across the activity boundary: `ToolReturn` and multi-modal content."""

from __future__ import annotations

from typing import Any

import pytest
from temporalio.client import Client

from agent import Agent, BinaryContent, ImageUrl, ToolReturn
from agent.messages import ModelMessage, ModelRequest, ToolCallPart, ToolReturnPart, UserPromptPart
from agent.models.function import AgentInfo

from ._parity_harness import Case, call_then_answer, normalized, run_durably

pytestmark = pytest.mark.asyncio(loop_scope='session')

PNG = b'\x89PNG\r\n\x1a\n' + bytes(range(64))


def parts(messages: list[ModelMessage]) -> list[Any]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts]


seen: list[dict[str, Any]] = []


def see(messages: list[ModelMessage], info: AgentInfo) -> None:
    returns = {p.tool_name: p.content for p in parts(messages[-1:]) if isinstance(p, ToolReturnPart)}
    if returns:
        seen.append(returns)


def typed_results_agent() -> Agent[None, str]:
    agent = Agent(
        call_then_answer(
            [
                ToolCallPart('screenshot', {}, 's-1'),
                ToolCallPart('raw_image', {}, 's-2'),
                ToolCallPart('gallery', {}, 's-3'),
            ],
            'seen',
            see,
        ),
        name='typed_results',
    )

    @agent.tool_plain
    def screenshot() -> ToolReturn:
        """Take a screenshot."""
        return ToolReturn(
            'captured', content=['Here it is:', ImageUrl('https://example.com/shot.png')], metadata={'w': 640}
        )

    @agent.tool_plain
    def raw_image() -> BinaryContent:
        """Return raw image bytes."""
        return BinaryContent(PNG, media_type='image/png')

    @agent.tool_plain
    def gallery() -> list[object]:
        """Return a caption and an image."""
        return ['caption', ImageUrl('https://example.com/a.png'), {'kind': 'binary', 'not': 'content'}]

    return agent


async def test_tool_return_and_multimodal_results_give_the_same_messages_durably(
    client: Client, task_queue: str
) -> None:
    agent = typed_results_agent()
    seen.clear()
    local = await agent.run('look')
    durable = await run_durably(client, task_queue, Case(agent=agent, output='seen', prompt='look'))
    assert durable.output == local.output == 'seen'
    assert normalized(durable.new_messages) == normalized(local.new_messages())
    # The image from the ToolReturn went to the model as a user prompt, as in-process.
    prompts = [p for p in parts(durable.new_messages) if isinstance(p, UserPromptPart)]
    assert any(isinstance(c, ImageUrl) for p in prompts for c in p.content if not isinstance(p.content, str))
    # The model saw the same typed results in both runs (the image bytes as BinaryContent, not a dict).
    assert seen[0] == seen[1]
    assert isinstance(seen[1]['raw_image'], BinaryContent)
    assert seen[1]['raw_image'].data == PNG
