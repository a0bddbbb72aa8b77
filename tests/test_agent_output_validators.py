"""Output validators: transforming the output, asking the model again, and the output retry budget."""

from __future__ import annotations

import pytest

from agent import Agent, ModelRetry, RunContext, ToolOutput
from agent.exceptions import UnexpectedModelBehavior, UserError
from agent.messages import RetryPromptPart
from agent.models.test import TestModel

from ._agent_helpers import City, call, parts_of, scripted, text

# ----- output validators -----


async def test_sync_output_validator_with_context_transforms_the_output():
    agent = Agent(TestModel(custom_output_text='hello'), deps_type=str)

    @agent.output_validator
    def shout(ctx: RunContext[str], output: str) -> str:
        return f'{output.upper()}{ctx.deps}'

    result = await agent.run('Greet', deps='!')

    assert result.output == 'HELLO!'


async def test_async_output_validator_without_context_transforms_structured_output():
    agent = Agent(TestModel(custom_output_args={'name': 'rome', 'population': 3}), output_type=City)

    @agent.output_validator
    async def capitalise(output: City) -> City:
        return output.model_copy(update={'name': output.name.title()})

    result = await agent.run('City')

    assert result.output == City(name='Rome', population=3)


async def test_output_validator_model_retry_asks_again_then_succeeds():
    seen_retries: list[int] = []
    agent = Agent(scripted(text('too short'), text('this one is long enough')), output_retries=2)

    @agent.output_validator
    def long_enough(ctx: RunContext[None], output: str) -> str:
        seen_retries.append(ctx.retry)
        if len(output) < 15:
            raise ModelRetry('Answer with at least 15 characters.')
        return output

    result = await agent.run('Talk')

    assert result.output == 'this one is long enough'
    assert seen_retries == [0, 1]
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert (retry.content, retry.tool_name) == ('Answer with at least 15 characters.', None)


async def test_output_validator_retry_on_an_output_tool_names_the_tool_call():
    agent = Agent(
        scripted(
            call('final_result', {'name': 'Nowhere', 'population': 0}, 'c1'),
            call('final_result', {'name': 'Bern', 'population': 1}, 'c2'),
        ),
        output_type=City,
    )

    @agent.output_validator
    def populated(ctx: RunContext[None], output: City) -> City:
        assert ctx.tool_name == 'final_result'
        if output.population == 0:
            raise ModelRetry('Pick a city people live in.')
        return output

    result = await agent.run('City')

    assert result.output == City(name='Bern', population=1)
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert (retry.content, retry.tool_name, retry.tool_call_id) == ('Pick a city people live in.', 'final_result', 'c1')


async def test_exhausted_output_retries_raise_unexpected_model_behavior():
    agent = Agent(scripted(text('a'), text('b'), text('c')), output_retries=1)

    @agent.output_validator
    def never_happy(output: str) -> str:
        raise ModelRetry('Not good enough.')

    with pytest.raises(UnexpectedModelBehavior, match='Exceeded maximum output retries') as exc_info:
        await agent.run('Talk')

    assert 'Not good enough.' in str(exc_info.value)


async def test_exhausted_output_retries_on_bad_output_args_raise():
    agent = Agent(scripted(*[call('final_result', {'name': 'X'})] * 3), output_type=City, retries=1)

    with pytest.raises(UnexpectedModelBehavior):
        await agent.run('City')


async def test_custom_output_type_on_run_is_refused_when_the_agent_has_output_validators():
    agent = Agent(TestModel())

    @agent.output_validator
    def keep(output: str) -> str:
        return output

    with pytest.raises(UserError, match='Cannot set a custom run `output_type` when the agent has output validators'):
        await agent.run('x', output_type=City)


async def test_output_validator_sees_the_runs_output_retries_while_the_tools_own_budget_decides():
    seen: list[tuple[int, int]] = []
    agent = Agent(
        scripted(
            *[call('final_result', {'name': 'X', 'population': 0})] * 3,
            call('final_result', {'name': 'X', 'population': 1}),
        ),
        output_type=ToolOutput(City, max_retries=3),
        output_retries=1,
    )

    @agent.output_validator
    def populated(ctx: RunContext[None], output: City) -> City:
        seen.append((ctx.retry, ctx.max_retries))
        if output.population == 0:
            raise ModelRetry('Pick a populated city.')
        return output

    result = await agent.run('City')

    # Three retries fit the tool's budget of 3 although the run's output budget is 1; the validator sees the
    # run's count and budget, as it does for text output.
    assert result.output == City(name='X', population=1)
    assert seen == [(0, 1), (1, 1), (2, 1), (3, 1)]
