"""What an `AgentRun` (from `agent.iter`) shows of its run while it goes on and once it ended."""

from __future__ import annotations

from typing import Any

from agent import Agent, RunContext
from agent.messages import ModelMessagesTypeAdapter
from agent.models.test import TestModel


async def test_a_run_in_progress_has_its_ids_and_its_messages_as_json():
    agent = Agent(TestModel(custom_output_text='ok'))

    async with agent.iter('hello', conversation_id='conv-7') as run:
        assert run.conversation_id == 'conv-7'
        assert run.run_id
        async for _ in run:
            pass

    assert run.result is not None
    assert run.run_id == run.result.run_id
    assert ModelMessagesTypeAdapter.validate_json(run.all_messages_json()) == run.all_messages()
    assert ModelMessagesTypeAdapter.validate_json(run.new_messages_json()) == run.new_messages()
    assert run.new_messages_json().startswith(b'[{"parts":[{"content":"hello"')


async def test_metadata_from_a_function_describes_the_run_as_it_ended():
    def requests_so_far(ctx: RunContext[Any]) -> dict[str, Any]:
        return {'requests': ctx.usage.requests}

    agent = Agent(TestModel(custom_output_text='ok'), metadata=requests_so_far)

    async with agent.iter('hi', metadata=lambda ctx: {'messages': len(ctx.messages)}) as run:
        at_start = run.metadata
        async for _ in run:
            pass

    assert at_start == {'requests': 0, 'messages': 0}
    assert run.metadata == {'requests': 1, 'messages': 2}
    assert run.result is not None
    assert run.result.metadata == {'requests': 1, 'messages': 2}


async def test_fixed_metadata_is_left_as_it_was():
    agent = Agent(TestModel(custom_output_text='ok'), metadata={'team': 'search'})

    result = await agent.run('hi')

    assert result.metadata == {'team': 'search'}
