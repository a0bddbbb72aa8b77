"""Instructions and system prompts: static, templates and functions, per request and per run."""

from __future__ import annotations

from dataclasses import dataclass

from agent import Agent, RunContext, TemplateStr
from agent.messages import ModelMessage, ModelRequest, ModelResponse, SystemPromptPart, TextPart
from agent.models.function import AgentInfo, FunctionModel


@dataclass
class User:
    name: str
    plan: str


def capture(instructions: list[str | None], systems: list[list[str]]) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        instructions.append(info.instructions)
        first = messages[0]
        assert isinstance(first, ModelRequest)
        systems.append([p.content for p in first.parts if isinstance(p, SystemPromptPart)])
        return ModelResponse(parts=[TextPart('ok')])

    return FunctionModel(respond)


def test_instructions_combine_static_template_function_and_run_level() -> None:
    instructions: list[str | None] = []
    agent: Agent[User, str] = Agent(
        capture(instructions, []),
        deps_type=User,
        instructions=['Be brief.', TemplateStr('Address {{name}} by name.')],
    )

    @agent.instructions
    def plan_hint(ctx: RunContext[User]) -> str | None:
        return f'They are on the {ctx.deps.plan} plan.' if ctx.deps.plan != 'free' else None

    agent.run_sync('hi', deps=User('Ada', 'pro'), instructions='Answer in French.')
    agent.run_sync('hi', deps=User('Bob', 'free'))
    assert instructions == [
        'Be brief.\n\nAddress Ada by name.\n\nThey are on the pro plan.\n\nAnswer in French.',
        'Be brief.\n\nAddress Bob by name.',
    ]


def test_system_prompts_only_start_a_new_conversation_and_dynamic_ones_refresh() -> None:
    systems: list[list[str]] = []
    agent: Agent[User, str] = Agent(capture([], systems), deps_type=User, system_prompt='You are a helpdesk.')

    @agent.system_prompt(dynamic=True)
    async def who(ctx: RunContext[User]) -> str:
        return f'The user is {ctx.deps.name}.'

    first = agent.run_sync('hi', deps=User('Ada', 'pro'))
    agent.run_sync('again', deps=User('Bob', 'pro'), message_history=first.all_messages())
    assert systems == [
        ['You are a helpdesk.', 'The user is Ada.'],
        ['You are a helpdesk.', 'The user is Bob.'],
    ]


def test_requests_record_the_instructions_in_force() -> None:
    agent = Agent('test', instructions='Be kind.')
    result = agent.run_sync('hi')
    request = result.all_messages()[0]
    assert isinstance(request, ModelRequest)
    assert request.instructions == 'Be kind.'


def test_history_processors_trim_what_the_model_sees_and_the_runs_history() -> None:
    sizes: list[int] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sizes.append(len(messages))
        return ModelResponse(parts=[TextPart('ok')])

    def keep_last(messages: list[ModelMessage]) -> list[ModelMessage]:
        return messages[-1:]

    async def keep_last_with_ctx(ctx: RunContext[None], messages: list[ModelMessage]) -> list[ModelMessage]:
        return messages[-1:]

    for processor in (keep_last, keep_last_with_ctx):
        agent = Agent(FunctionModel(respond), history_processors=[processor])
        first = agent.run_sync('one')
        second = agent.run_sync('two', message_history=first.all_messages())
        assert len(first.all_messages()) == 2
        assert len(second.all_messages()) == 2  # the trimmed history replaced the run's
        assert len(agent.capabilities) == 1
    assert sizes == [1, 1, 1, 1]


def test_refreshing_dynamic_system_prompts_leaves_the_callers_history_untouched() -> None:
    agent: Agent[User, str] = Agent('test', deps_type=User)

    @agent.system_prompt(dynamic=True)
    def who(ctx: RunContext[User]) -> str:
        return f'The user is {ctx.deps.name}.'

    first = agent.run_sync('hi', deps=User('Ada', 'pro'))
    history = first.all_messages()
    before = bytes(first.all_messages_json())
    second = agent.run_sync('again', deps=User('Bob', 'pro'), message_history=history)
    assert bytes(first.all_messages_json()) == before
    opening = second.all_messages()[0]
    assert isinstance(opening, ModelRequest)
    assert opening.parts[0].content == 'The user is Bob.'
