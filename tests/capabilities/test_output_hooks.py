"""The output hooks: validation and processing of a run's final output, for tool, text and structured text output."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import pydantic
import pytest
from pydantic import BaseModel

from agent import Agent, ModelRetry, NativeOutput, PromptedOutput, RunContext, TextOutput
from agent.capabilities import AbstractCapability, CombinedCapability, Hooks, hook_side, split_by_side
from agent.exceptions import UserError
from agent.messages import RetryPromptPart
from agent.output import OutputContext
from tests._agent_helpers import call, parts_of, scripted, text


class City(BaseModel):
    name: str


@dataclass
class Recorder(AbstractCapability[Any]):
    """Records every output hook call as `(hook, output)`, and passes everything through."""

    log: list[tuple[str, Any]] = field(default_factory=list[tuple[str, Any]])
    contexts: list[OutputContext] = field(default_factory=list[OutputContext])

    async def before_output_validate(self, ctx: RunContext[Any], *, output_context: OutputContext, output: Any) -> Any:
        self.log.append(('before_output_validate', output))
        self.contexts.append(output_context)
        return output

    async def after_output_validate(self, ctx: RunContext[Any], *, output_context: OutputContext, output: Any) -> Any:
        self.log.append(('after_output_validate', output))
        return output

    async def before_output_process(self, ctx: RunContext[Any], *, output_context: OutputContext, output: Any) -> Any:
        self.log.append(('before_output_process', output))
        self.contexts.append(output_context)
        return output

    async def after_output_process(self, ctx: RunContext[Any], *, output_context: OutputContext, output: Any) -> Any:
        self.log.append(('after_output_process', output))
        return output


async def test_tool_output_hooks_see_the_value_asked_for_not_its_wrapper_object():
    recorder = Recorder()
    agent = Agent(scripted(call('final_result', {'response': 42})), output_type=int, capabilities=[recorder])

    result = await agent.run('go')

    assert result.output == 42
    assert recorder.log == [
        ('before_output_validate', {'response': 42}),
        ('after_output_validate', 42),
        ('before_output_process', 42),
        ('after_output_process', 42),
    ]
    context = recorder.contexts[0]
    assert context.mode == 'tool'
    assert context.output_type is int
    assert context.tool_call is not None
    assert context.tool_call.tool_name == 'final_result'
    assert context.tool_def is not None
    assert context.tool_def.name == 'final_result'


async def test_plain_text_output_fires_only_the_process_hooks():
    recorder = Recorder()
    result = await Agent(scripted(text('hello')), capabilities=[recorder]).run('go')

    assert result.output == 'hello'
    assert recorder.log == [('before_output_process', 'hello'), ('after_output_process', 'hello')]
    assert recorder.contexts[0].mode == 'text'
    assert recorder.contexts[0].tool_call is None


@pytest.mark.parametrize('marker', [NativeOutput, PromptedOutput])
async def test_structured_text_output_is_validated_from_the_raw_text(marker: Any):
    recorder = Recorder()
    agent = Agent(scripted(text('{"name": "Paris"}')), output_type=marker(City), capabilities=[recorder])

    result = await agent.run('go')

    assert result.output == City(name='Paris')
    assert recorder.log[0] == ('before_output_validate', '{"name": "Paris"}')
    assert recorder.log[1] == ('after_output_validate', City(name='Paris'))
    assert recorder.contexts[0].mode == marker.__name__.removesuffix('Output').lower()
    assert recorder.contexts[0].output_type is City


async def test_output_functions_run_inside_the_process_hooks_on_the_semantic_value():
    seen: list[Any] = []

    def double(value: int) -> int:
        return value * 2

    hooks = Hooks()

    @hooks.on.output_process
    async def around(ctx: RunContext[None], *, output_context: OutputContext, output: Any, handler: Any) -> Any:
        seen.append(('in', output, output_context.function_name, output_context.has_function))
        result = await handler(output + 1)
        seen.append(('out', result))
        return result

    agent = Agent(scripted(call('final_result', {'value': 20})), output_type=double, capabilities=[hooks])

    assert (await agent.run('go')).output == 42
    assert seen == [('in', 20, 'double', True), ('out', 42)]


async def test_text_output_function_sees_the_text_changed_by_before_output_process():
    def words(text: str) -> list[str]:
        return text.split()

    hooks = Hooks(before_output_process=lambda ctx, *, output_context, output: output.upper())
    agent = Agent(scripted(text('hi there')), output_type=TextOutput(words), capabilities=[hooks])

    assert (await agent.run('go')).output == ['HI', 'THERE']


async def test_before_output_validate_repairs_raw_tool_arguments():
    hooks = Hooks()

    @hooks.on.before_output_validate
    def repair(ctx: RunContext[None], *, output_context: OutputContext, output: Any) -> Any:
        return output.replace("'", '"') if isinstance(output, str) else output

    agent = Agent(scripted(call('final_result', "{'name': 'Rome'}")), output_type=City, capabilities=[hooks])

    assert (await agent.run('go')).output == City(name='Rome')


async def test_model_retry_from_after_output_validate_sends_a_retry_prompt_to_the_output_tool():
    attempts: list[int] = []

    def reject_small(ctx: RunContext[None], *, output_context: OutputContext, output: Any) -> Any:
        attempts.append(output)
        if output < 10:
            raise ModelRetry('too small, try a bigger number')
        return output

    model = scripted(call('final_result', {'response': 3}, 'c1'), call('final_result', {'response': 30}, 'c2'))
    agent = Agent(model, output_type=int, capabilities=[Hooks(after_output_validate=reject_small)])

    result = await agent.run('go')

    assert result.output == 30
    assert attempts == [3, 30]
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert retry.content == 'too small, try a bigger number'
    assert (retry.tool_name, retry.tool_call_id) == ('final_result', 'c1')


async def test_model_retry_from_after_output_process_on_text_sends_a_retry_prompt():
    def not_empty(ctx: RunContext[None], *, output_context: OutputContext, output: Any) -> Any:
        if output == 'nothing':
            raise ModelRetry('say something')

    agent = Agent(scripted(text('nothing'), text('something')), capabilities=[Hooks(after_output_process=not_empty)])

    result = await agent.run('go')

    assert result.output == 'something'
    [retry] = parts_of(result.all_messages(), RetryPromptPart)
    assert retry.content == 'say something'


async def test_on_output_validate_error_can_recover_from_invalid_output():
    errors: list[type[Exception]] = []

    def fallback(ctx: RunContext[None], *, output_context: OutputContext, output: Any, error: Exception) -> Any:
        errors.append(type(error))
        return City(name='Unknown')

    agent = Agent(
        scripted(call('final_result', {'nom': 'x'})),
        output_type=City,
        capabilities=[Hooks(output_validate_error=fallback)],
    )

    assert (await agent.run('go')).output == City(name='Unknown')
    assert errors == [pydantic.ValidationError]


async def test_on_output_process_error_recovers_a_failing_output_function_but_not_a_model_retry():
    handled: list[str] = []

    def explode(value: int) -> int:
        if value == 1:
            raise ModelRetry('one is not allowed')
        raise RuntimeError('boom')

    def recover(ctx: RunContext[None], *, output_context: OutputContext, output: Any, error: Exception) -> Any:
        handled.append(str(error))
        return -1

    model = scripted(call('final_result', {'value': 1}), call('final_result', {'value': 2}))
    agent = Agent(model, output_type=explode, capabilities=[Hooks(output_process_error=recover)])

    result = await agent.run('go')

    assert result.output == -1
    assert handled == ['boom']
    assert [p.content for p in parts_of(result.all_messages(), RetryPromptPart)] == ['one is not allowed']


async def test_output_validators_run_inside_wrap_output_process():
    order: list[str] = []
    hooks = Hooks()

    @hooks.on.output_process
    async def around(ctx: RunContext[None], *, output_context: OutputContext, output: Any, handler: Any) -> Any:
        order.append('enter')
        result = await handler(output)
        order.append('exit')
        return result

    agent = Agent(scripted(text('hi')), capabilities=[hooks])

    @agent.output_validator
    def check(output: str) -> str:
        order.append('validator')
        return output

    await agent.run('go')

    assert order == ['enter', 'validator', 'exit']


async def test_combined_output_hooks_follow_the_composition_order():
    log: list[str] = []

    def layer(name: str) -> Hooks[Any]:
        async def wrap(ctx: RunContext[Any], *, output_context: OutputContext, output: Any, handler: Any) -> Any:
            log.append(f'{name} in')
            result = await handler(output)
            log.append(f'{name} out')
            return result

        return Hooks(
            before_output_process=lambda ctx, *, output_context, output: log.append(f'{name} before'),
            after_output_process=lambda ctx, *, output_context, output: log.append(f'{name} after'),
            output_process=wrap,
        )

    combined = CombinedCapability([layer('a'), layer('b')])
    await Agent(scripted(text('hi')), capabilities=[combined]).run('go')

    assert log == ['a before', 'b before', 'a in', 'b in', 'b out', 'a out', 'b after', 'a after']


def test_output_hooks_run_in_the_workflow_and_cannot_be_moved_to_the_activity():
    recorder = Recorder()

    workflow_side, activity_side = split_by_side(CombinedCapability([recorder]))

    assert hook_side(recorder, 'after_output_validate') == 'workflow'
    assert not activity_side.hook_names()
    assert not workflow_side.hook_names() & {'before_output_validate', 'after_output_process'}  # only I/O hooks split

    class Moved(Recorder):
        hook_sides: ClassVar[dict[str, str]] = {'after_output_process': 'activity'}

    with pytest.raises(UserError, match='after_output_process'):
        hook_side(Moved(), 'after_output_process')


def test_short_hook_names_cover_the_output_points():
    hooks = Hooks(output_validate_error=lambda ctx, **kw: None)

    @hooks.on.output_validate
    async def wrap_validate(ctx: RunContext[None], **kwargs: Any) -> Any:
        return await kwargs['handler'](kwargs['output'])

    @hooks.on.output_process_error
    def process_error(ctx: RunContext[None], **kwargs: Any) -> Any:
        return None

    assert hooks.hook_names() == {'wrap_output_validate', 'on_output_validate_error', 'on_output_process_error'}


async def test_a_wrapped_capability_gets_its_output_hooks_through_the_wrapper():
    from agent.capabilities import WrapperCapability

    recorder = Recorder()
    agent = Agent(
        scripted(call('final_result', {'response': 7})), output_type=int, capabilities=[WrapperCapability(recorder)]
    )

    result = await agent.run('go')

    assert result.output == 7
    assert [hook for hook, _ in recorder.log] == [
        'before_output_validate',
        'after_output_validate',
        'before_output_process',
        'after_output_process',
    ]


class Country(BaseModel):
    code: str


async def test_a_recovered_union_output_goes_to_the_output_type_it_is_an_instance_of():
    seen: list[str] = []

    def country_found(country: Country) -> str:
        seen.append(country.code)
        return f'country {country.code}'

    def recover(ctx: RunContext[None], *, output_context: OutputContext, output: Any, error: Exception) -> Any:
        return Country(code='FR')  # the union's second member; validation never picked one

    agent = Agent(
        scripted(text('{"neither": true}')),
        output_type=PromptedOutput([City, country_found]),
        capabilities=[Hooks(output_validate_error=recover)],
    )
    assert (await agent.run('go')).output == 'country FR'
    assert seen == ['FR']


async def test_a_recovered_union_output_of_no_member_type_is_kept_as_it_is():
    def recover(ctx: RunContext[None], *, output_context: OutputContext, output: Any, error: Exception) -> Any:
        return ['not', 'a', 'city']

    agent = Agent(
        scripted(text('{"neither": true}')),
        output_type=PromptedOutput([City, Country]),
        capabilities=[Hooks(output_validate_error=recover)],
    )
    assert (await agent.run('go')).output == ['not', 'a', 'city']
