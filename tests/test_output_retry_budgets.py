"""Where a run's output retry budget comes from (override > run > run spec > agent) and how output tools share it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from agent import Agent, ModelRetry, RunContext, ToolOutput
from agent.exceptions import UnexpectedModelBehavior, UserError
from agent.messages import ModelMessage, ModelResponse, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel


@dataclass
class Answer:
    value: int


def counting_model(asked: list[int]) -> FunctionModel:
    """Always answers through the first output tool; records each request."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        asked.append(1)
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {'value': 1})])

    return FunctionModel(respond)


def never_satisfied(agent_retries: Any = 5) -> tuple[Agent[None, Any], list[int]]:
    asked: list[int] = []
    agent = Agent(counting_model(asked), output_type=ToolOutput(Answer), retries=agent_retries)

    @agent.output_validator
    def reject(output: Answer) -> Answer:
        raise ModelRetry('not yet')

    return agent, asked


async def test_a_runs_retries_replace_the_agents_output_budget():
    agent, asked = never_satisfied({'output': 5})

    with pytest.raises(UnexpectedModelBehavior, match=r'Exceeded maximum output retries \(2\)'):
        await agent.run('go', retries=2)

    assert len(asked) == 3


async def test_a_runs_spec_sets_the_output_budget_when_the_run_gives_none():
    agent, asked = never_satisfied({'output': 5})

    with pytest.raises(UnexpectedModelBehavior, match=r'Exceeded maximum output retries \(1\)'):
        await agent.run('go', spec={'retries': {'output': 1}})
    assert len(asked) == 2

    asked.clear()
    with pytest.raises(UnexpectedModelBehavior, match=r'Exceeded maximum output retries \(0\)'):
        await agent.run('go', spec={'retries': {'output': 1}}, retries={'output': 0})
    assert len(asked) == 1


async def test_override_retries_win_over_the_runs():
    agent, asked = never_satisfied({'output': 5})

    with (
        agent.override(retries=1),
        pytest.raises(UnexpectedModelBehavior, match=r'Exceeded maximum output retries \(1\)'),
    ):
        await agent.run('go', retries=4)

    assert len(asked) == 2


async def test_a_run_cannot_set_tool_retries():
    agent, asked = never_satisfied()

    with pytest.raises(UserError, match='Per-run `retries` cannot set tool retries'):
        await agent.run('go', retries={'tools': 3})
    with (
        pytest.raises(UserError, match=r'`agent\.override\(retries=\.\.\.\)` cannot set tool retries'),
        agent.override(retries={'tools': 3}),
    ):
        pass

    assert asked == []


async def test_each_output_tool_spends_its_own_budget():
    seen_by_patient: list[tuple[int, int]] = []

    def impatient(value: int) -> int:
        raise ModelRetry('no')

    def patient(ctx: RunContext[None], value: int) -> int:
        seen_by_patient.append((ctx.retry, ctx.max_retries))
        if ctx.retry < 2:
            raise ModelRetry('again')
        return value

    steps = iter(['final_result_impatient', *['final_result_patient'] * 3])

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart(next(steps), {'value': 7})])

    agent = Agent(
        FunctionModel(respond),
        output_type=[ToolOutput(patient, max_retries=2), ToolOutput(impatient, max_retries=1)],
        retries={'output': 0},
    )

    result = await agent.run('go')

    # Three failures in a run whose output budget is 0, yet neither tool went past its own budget: the impatient
    # one's failure left the patient one's count (starting at 0) and its two retries alone.
    assert result.output == 7
    assert seen_by_patient == [(0, 2), (1, 2), (2, 2)]
