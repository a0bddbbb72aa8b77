"""Run and conversation ids: how runs, their messages and their RunContext are stamped."""

from __future__ import annotations

import re
import uuid

from agent import Agent, RunContext
from agent.models.test import TestModel

from ._agent_helpers import call, scripted, text

UUID7 = re.compile(r'^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$')


# ----- run and conversation ids -----


async def test_every_message_of_a_run_is_stamped_with_its_run_and_conversation_ids():
    agent = Agent(TestModel())

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    result = await agent.run('go')

    messages = result.all_messages()
    assert len(messages) == 4
    assert {m.run_id for m in messages} == {result.run_id}
    assert {m.conversation_id for m in messages} == {result.conversation_id}
    assert UUID7.match(result.run_id)
    assert UUID7.match(result.conversation_id)
    assert uuid.UUID(result.conversation_id).version == 7


async def test_runs_get_distinct_run_ids_and_fresh_conversations_by_default():
    agent = Agent(TestModel())

    first = await agent.run('a')
    second = await agent.run('b')

    assert first.run_id != second.run_id
    assert first.conversation_id != second.conversation_id


async def test_explicit_conversation_id_is_used():
    agent = Agent(TestModel())

    result = await agent.run('a', conversation_id='conv-123')

    assert result.conversation_id == 'conv-123'
    assert {m.conversation_id for m in result.all_messages()} == {'conv-123'}


async def test_conversation_id_is_taken_from_the_history():
    agent = Agent(TestModel())
    first = await agent.run('a', conversation_id='conv-abc')

    second = await agent.run('b', message_history=first.all_messages())

    assert second.conversation_id == 'conv-abc'
    assert second.run_id != first.run_id
    assert {m.run_id for m in second.new_messages()} == {second.run_id}
    assert {m.run_id for m in second.all_messages()[:2]} == {first.run_id}


async def test_conversation_id_new_starts_a_fresh_conversation_despite_the_history():
    agent = Agent(TestModel())
    first = await agent.run('a', conversation_id='conv-abc')

    second = await agent.run('b', message_history=first.all_messages(), conversation_id='new')

    assert second.conversation_id not in ('conv-abc', 'new')
    assert UUID7.match(second.conversation_id)
    assert {m.conversation_id for m in second.new_messages()} == {second.conversation_id}


async def test_explicit_conversation_id_wins_over_the_history():
    agent = Agent(TestModel())
    first = await agent.run('a', conversation_id='conv-abc')

    second = await agent.run('b', message_history=first.all_messages(), conversation_id='conv-xyz')

    assert second.conversation_id == 'conv-xyz'


async def test_run_context_carries_the_run_and_conversation_ids():
    seen: list[tuple[str | None, str | None]] = []
    agent = Agent(scripted(call('probe'), text('done')))

    @agent.tool
    def probe(ctx: RunContext[None]) -> str:
        seen.append((ctx.run_id, ctx.conversation_id))
        return 'ok'

    result = await agent.run('go', conversation_id='conv-1')

    assert seen == [(result.run_id, 'conv-1')]


def test_an_unnamed_agent_takes_the_name_of_the_variable_that_runs_it() -> None:
    support_bot = Agent('test')

    support_bot.run_sync('Hi')

    assert support_bot.name == 'support_bot'


async def test_an_unnamed_agent_run_with_await_takes_its_variable_name_too() -> None:
    triage_bot = Agent('test')

    await triage_bot.run('Hi')

    assert triage_bot.name == 'triage_bot'


def test_infer_name_false_leaves_the_agent_unnamed() -> None:
    quiet_bot = Agent('test')

    quiet_bot.run_sync('Hi', infer_name=False)

    assert quiet_bot.name is None
