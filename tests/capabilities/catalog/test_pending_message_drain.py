"""The pending-message drain behind `RunContext.enqueue`, as capability hooks use it."""

from __future__ import annotations

from typing import Any

from agent import Agent, RunContext
from agent.capabilities import AgentNode, Hooks, NodeResult
from agent.graph import End
from agent.messages import ModelRequest, UserPromptPart

from ._models import Script


def test_a_message_enqueued_by_an_after_node_run_hook_at_the_end_is_still_delivered() -> None:
    hooks = Hooks()

    @hooks.on.after_node_run
    async def follow_up(ctx: RunContext[None], *, node: AgentNode[None], result: NodeResult[None]) -> Any:
        if isinstance(result, End) and ctx.run_step == 1:
            ctx.enqueue('Now in French.', priority='when_idle')
        return result

    script = Script(['Hello.', 'Bonjour.'])
    result = Agent(script.model(), capabilities=[hooks]).run_sync('Greet me.')
    assert result.output == 'Bonjour.'
    last_request = script.offered[1].messages[-1]
    assert isinstance(last_request, ModelRequest)
    assert [p.content for p in last_request.parts if isinstance(p, UserPromptPart)] == ['Now in French.']


def test_asap_messages_from_a_before_node_run_hook_join_the_next_request() -> None:
    hooks = Hooks()

    @hooks.on.before_node_run
    async def remind(ctx: RunContext[None], *, node: AgentNode[None]) -> AgentNode[None]:
        if type(node).__name__ == 'ModelRequestNode' and ctx.run_step == 0:
            ctx.enqueue('Remember: be brief.')
        return node

    script = Script(['Hi.'])
    Agent(script.model(), capabilities=[hooks]).run_sync('Greet me.')
    (request,) = script.offered[0].messages
    assert isinstance(request, ModelRequest)
    assert [p.content for p in request.parts if isinstance(p, UserPromptPart)] == ['Greet me.', 'Remember: be brief.']
