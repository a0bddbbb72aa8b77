"""Tool calls as Pydantic AI makes them: a callable validation context, retry prompts, tools renamed by `prepare`."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pydantic
import pytest

from agent import Agent, RunContext, ToolDefinition
from agent.messages import RetryPromptPart

from ._agent_helpers import call, parts_of, scripted, text


class Limited(pydantic.BaseModel):
    n: int

    @pydantic.field_validator('n')
    @classmethod
    def below_limit(cls, value: int, info: pydantic.ValidationInfo) -> int:
        assert info.context is not None
        if value > info.context['limit']:
            raise ValueError(f'must be at most {info.context["limit"]}')
        return value


async def test_a_callable_validation_context_is_called_with_the_run_context():
    seen: list[int] = []
    agent = Agent(
        scripted(call('take', {'value': {'n': 7}}, 'c1'), call('take', {'value': {'n': 2}}, 'c2'), text('ok')),
        deps_type=int,
        validation_context=lambda ctx: {'limit': ctx.deps},
    )

    @agent.tool_plain
    def take(value: Limited) -> int:
        seen.append(value.n)
        return value.n

    result = await agent.run('go', deps=5)

    assert result.output == 'ok'
    assert seen == [2]
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert 'must be at most 5' in retry.model_response()


def _errors() -> list[Any]:
    try:
        pydantic.TypeAdapter(Limited).validate_python({'n': 'x'}, context={'limit': 1})
    except pydantic.ValidationError as exc:
        return exc.errors(include_url=False)
    raise AssertionError('unreachable')  # pragma: no cover


def test_retry_prompt_for_a_tool_wraps_the_errors_in_a_json_fence_and_keeps_the_input():
    text_sent = RetryPromptPart(_errors(), tool_name='take').model_response()

    assert text_sent.startswith('1 validation error:\n```json\n[\n')
    assert '"input": "x"' in text_sent
    assert text_sent.endswith('\n```\n\nFix the errors and try again.')


def test_retry_prompt_for_output_text_leaves_out_the_input_the_model_already_sent():
    errors = [{'type': 'int_parsing', 'loc': (), 'msg': 'Input should be a valid integer', 'input': 'ten'}]

    text_sent = RetryPromptPart(errors).model_response()  # pyright: ignore[reportArgumentType]

    assert '```json' in text_sent
    assert '"input"' not in text_sent


@pytest.mark.parametrize(('tool_name', 'expected'), [(None, 'Validation feedback:\nsay ok'), ('t', 'say ok')])
def test_retry_prompt_message_text(tool_name: str | None, expected: str):
    part = RetryPromptPart('say ok', tool_name=tool_name)

    assert part.model_response() == f'{expected}\n\nFix the errors and try again.'


async def test_prepare_may_rename_a_tool_and_the_model_calls_it_by_the_new_name():
    offered: list[list[str]] = []

    def respond_step(messages: Any, info: Any) -> Any:
        offered.append([t.name for t in info.function_tools])
        return call('lookup_v2', {'key': 'k'}, 'c1')

    agent = Agent(scripted(respond_step, text('done')))

    async def versioned(ctx: RunContext[None], tool_def: ToolDefinition) -> ToolDefinition:
        return replace(tool_def, name=f'{tool_def.name}_v2')

    @agent.tool_plain(prepare=versioned)
    def lookup(key: str) -> str:
        return f'value of {key}'

    result = await agent.run('go')

    assert offered == [['lookup_v2']]
    assert result.output == 'done'
    returns = [p for m in result.all_messages() for p in getattr(m, 'parts', []) if p.part_kind == 'tool-return']
    assert [(p.tool_name, p.content) for p in returns] == [('lookup_v2', 'value of k')]
