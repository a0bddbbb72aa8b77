"""`agent_fingerprint`: an agent's version changes exactly when a part that changes its runs' behaviour does."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pydantic
import pytest

from agent import Agent, ToolDefinition
from agent.capabilities import AbstractCapability, HookSide
from agent.toolsets import ExternalToolset, FunctionToolset, PrefixedToolset
from workflows import ApprovalRule, DurableAgent, agent_fingerprint
from workflows._fingerprint import fingerprint_parts

from ._fingerprint_agents import Invoice, Trim, add_line, build, instructions, lookup_customer, send_invoice

ROOT = Path(__file__).resolve().parent.parent


def changed(before: Agent[Any, Any] | DurableAgent, after: Agent[Any, Any] | DurableAgent) -> set[str]:
    """The parts whose digests differ between the two agents (and, if any does, the fingerprints differ too)."""
    old, new = fingerprint_parts(before), fingerprint_parts(after)
    parts = {name for name in old if old[name] != new[name]}
    assert (agent_fingerprint(before) != agent_fingerprint(after)) == bool(parts)
    return parts


def user_function(source: str, name: str = 'f', **module: Any) -> Callable[..., Any]:
    """A function compiled from `source` in a module of its own (as a user's module would define it)."""
    namespace: dict[str, Any] = {'__name__': 'users_module', **module}
    exec(compile(textwrap.dedent(source), 'users_module.py', 'exec'), namespace)
    return namespace[name]


def with_agent(durable: DurableAgent, **changes: Any) -> Agent[Any, Any]:
    """An agent like `durable`'s, built with `changes` to its constructor's arguments."""
    agent = durable.agent
    arguments: dict[str, Any] = {
        'model': agent.model,
        'instructions': agent._instructions,
        'output_type': agent.output_type,
        'model_settings': agent.model_settings,
        'capabilities': agent.capabilities,
        'toolsets': agent.toolsets[1:],
        'tools': list(agent.toolsets[0].tools.values()),  # pyright: ignore[reportAttributeAccessIssue]
    }
    return Agent(**{**arguments, **changes})


def test_the_same_agent_built_twice_has_the_same_fingerprint_of_twelve_hex_characters() -> None:
    first, second = build(), build()
    assert first.agent is not second.agent
    assert agent_fingerprint(first) == agent_fingerprint(second)
    assert len(agent_fingerprint(first)) == 12
    assert int(agent_fingerprint(first), 16) >= 0
    # A plain agent is the durable agent with default options.
    assert agent_fingerprint(first.agent) == agent_fingerprint(DurableAgent(first.agent))


def test_the_fingerprint_is_the_same_in_processes_with_other_hash_seeds() -> None:
    here = agent_fingerprint(build())
    seen: set[str] = set()
    for seed in ('1', '2', '12345'):
        done = subprocess.run(
            [sys.executable, '-c', 'from tests._fingerprint_agents import main; main()'],
            cwd=ROOT,
            env={**os.environ, 'PYTHONHASHSEED': seed},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        seen.add(done.stdout.strip())
    assert seen == {here}


def test_running_the_agent_does_not_change_its_fingerprint() -> None:
    agent = Agent('test', instructions=instructions, tools=[add_line], capabilities=[Trim(keep=4)])
    before = agent_fingerprint(agent)
    for _ in range(10):  # the interpreter specializes the bytecode of what runs often
        agent.run_sync('Add a line')
    assert agent_fingerprint(agent) == before


# ----- instructions -----


def test_static_instructions_are_part_of_the_version() -> None:
    durable = build()
    assert changed(with_agent(durable), with_agent(durable, instructions='You file receipts.')) == {'instructions'}


def test_an_instruction_functions_code_is_part_of_the_version_but_not_its_formatting_or_name() -> None:
    durable = build()
    original = user_function("""
        def f(ctx):
            return 'Today is ' + ctx.deps
    """)
    reformatted = user_function(
        """
        # Says which day it is.
        def renamed(ctx):


            return ('Today is '
                    + ctx.deps)  # the deps are the day
    """,
        'renamed',
    )
    edited = user_function("""
        def f(ctx):
            return 'Tomorrow is ' + ctx.deps
    """)
    base = with_agent(durable, instructions=original)
    assert changed(base, with_agent(durable, instructions=reformatted)) == set()
    assert changed(base, with_agent(durable, instructions=edited)) == {'instructions'}


def test_what_an_instruction_function_reads_is_part_of_the_version() -> None:
    durable = build()
    source = """
        def f(ctx):
            return greeting() + f' ({STYLE})'

        def greeting():
            return 'Hello'
    """
    base = with_agent(durable, instructions=user_function(source, STYLE='short'))
    assert changed(base, with_agent(durable, instructions=user_function(source, STYLE='long'))) == {'instructions'}
    other_helper = source.replace("'Hello'", "'Hi'")
    assert changed(base, with_agent(durable, instructions=user_function(other_helper, STYLE='short'))) == {
        'instructions'
    }
    # A closure's value too.
    make = user_function("""
        def make(text):
            return lambda: text
    """, 'make')  # fmt: skip
    assert changed(with_agent(durable, instructions=make('a')), with_agent(durable, instructions=make('b'))) == {
        'instructions'
    }


# ----- tools -----


def test_a_tools_description_schema_approval_and_code_are_part_of_the_version() -> None:
    durable = build()
    base = with_agent(durable, tools=[add_line])
    described = user_function('''
        def add_line(item: str, amount: float) -> str:
            """Add a line to the bill."""
            return f'{item}: {amount:.2f}'
    ''', 'add_line')  # fmt: skip
    retyped = user_function('''
        def add_line(item: str, amount: int) -> str:
            """Add a line to the invoice."""
            return f'{item}: {amount:.2f}'
    ''', 'add_line')  # fmt: skip
    recoded = user_function('''
        def add_line(item: str, amount: float) -> str:
            """Add a line to the invoice."""
            return f'{item}: {amount:.3f}'
    ''', 'add_line')  # fmt: skip
    assert changed(base, with_agent(durable, tools=[described])) == {'tools'}
    assert changed(base, with_agent(durable, tools=[retyped])) == {'tools'}
    assert changed(base, with_agent(durable, tools=[recoded])) == {'tools'}
    approved = Agent('test', tools=[add_line])
    approved.tool_plain(requires_approval=True)(send_invoice)
    unapproved = Agent('test', tools=[add_line])
    unapproved.tool_plain(send_invoice)
    assert changed(approved, unapproved) == {'tools'}


def test_reordering_tools_leaves_the_version_alone() -> None:
    durable = build()
    assert (
        changed(
            with_agent(durable, tools=[add_line, send_invoice]), with_agent(durable, tools=[send_invoice, add_line])
        )
        == set()
    )


# ----- toolsets -----


def test_a_toolsets_tools_and_settings_are_part_of_the_version() -> None:
    durable = build()

    def toolsets(*items: Any) -> Agent[Any, Any]:
        return with_agent(durable, toolsets=list(items))

    external = ExternalToolset([ToolDefinition(name='ask_user', description='Ask the user.')])
    base = toolsets(FunctionToolset([lookup_customer]), external)
    assert changed(base, toolsets(FunctionToolset([lookup_customer]), external)) == set()
    assert changed(base, toolsets(FunctionToolset([lookup_customer, add_line]), external)) == {'toolsets'}
    assert changed(base, toolsets(FunctionToolset([lookup_customer], requires_approval=True), external)) == {'toolsets'}
    asked = ExternalToolset([ToolDefinition(name='ask_user', description='Ask the user, politely.')])
    assert changed(base, toolsets(FunctionToolset([lookup_customer]), asked)) == {'toolsets'}
    prefixed = PrefixedToolset(FunctionToolset([lookup_customer]), prefix='crm')
    assert changed(toolsets(prefixed), toolsets(PrefixedToolset(FunctionToolset([lookup_customer]), prefix='erp'))) == {
        'toolsets'
    }


def test_a_dynamic_toolsets_building_code_is_part_of_the_version() -> None:
    def agent_with(source: str) -> Agent[Any, Any]:
        agent = Agent('test')
        agent.toolset(id='dynamic')(user_function(source, FunctionToolset=FunctionToolset, lookup=lookup_customer))
        return agent

    one = 'def f(ctx):\n    return FunctionToolset([lookup])'
    none = 'def f(ctx):\n    return None'
    assert changed(agent_with(one), agent_with(one)) == set()
    assert changed(agent_with(one), agent_with(none)) == {'toolsets'}


# ----- capabilities -----


@dataclasses.dataclass
class TrimInActivity(Trim):
    hook_sides: ClassVar[dict[str, HookSide]] = {'before_model_request': 'activity'}


class Shout(Trim):
    async def after_model_request(self, ctx: Any, *, request_context: Any, response: Any) -> Any:
        return response


def test_a_capabilitys_configuration_hooks_sides_and_hook_code_are_part_of_the_version() -> None:
    durable = build()
    base = with_agent(durable, capabilities=[Trim(keep=4)])
    assert changed(base, with_agent(durable, capabilities=[Trim(keep=4)])) == set()
    assert changed(base, with_agent(durable, capabilities=[Trim(keep=5)])) == {'capabilities'}
    # The same hook, run on the activity side instead of in the workflow.
    assert changed(base, with_agent(durable, capabilities=[TrimInActivity(keep=4)])) == {'capabilities'}
    # One more hook.
    assert changed(base, with_agent(durable, capabilities=[Shout(keep=4)])) == {'capabilities'}
    # The hook's code.
    recoded = user_function(
        """
        async def before_model_request(self, ctx, request_context):
            request_context.messages[:] = request_context.messages[-self.keep - 1 :]
            return request_context
    """,
        'before_model_request',
    )
    other = dataclasses.make_dataclass(
        'Trim', [], bases=(Trim,), namespace={'before_model_request': recoded, '__module__': 'users_module'}
    )
    assert changed(base, with_agent(durable, capabilities=[other(keep=4)])) == {'capabilities'}
    assert isinstance(other(keep=4), AbstractCapability)


# ----- output, model, run -----


class Receipt(pydantic.BaseModel):
    number: str
    total: float
    paid: bool


def test_the_output_types_schema_and_validators_are_part_of_the_version() -> None:
    durable = build()
    assert changed(with_agent(durable, output_type=Invoice), with_agent(durable, output_type=Receipt)) == {'output'}
    assert changed(with_agent(durable, output_type=Invoice), with_agent(durable, output_type=str)) == {'output'}
    checked = with_agent(durable)
    checked.output_validator(user_function('def f(output):\n    return output'))
    assert changed(with_agent(durable), checked) == {'output'}


def test_the_model_and_its_settings_are_part_of_the_version_but_not_the_settings_order() -> None:
    durable = build()
    base = with_agent(durable, model_settings={'temperature': 0.2, 'max_tokens': 300})
    assert changed(base, with_agent(durable, model_settings={'max_tokens': 300, 'temperature': 0.2})) == set()
    assert changed(base, with_agent(durable, model_settings={'temperature': 0.3, 'max_tokens': 300})) == {'model'}
    assert changed(base, with_agent(durable, model='openai:gpt-4o', defer_model_check=True)) == {'model'}


def test_the_deps_type_is_part_of_the_version() -> None:
    durable = build()
    assert changed(with_agent(durable), with_agent(durable, deps_type=Invoice)) == {'run'}


# ----- approval rules, roles, durable options -----


def test_approval_rules_and_roles_are_part_of_the_version_but_not_the_order_of_a_set() -> None:
    durable = build()
    rule = durable.approval_rules['send_invoice']
    assert changed(durable, dataclasses.replace(durable, roles={'finance': {'dave', 'bob', 'alice'}})) == set()
    assert changed(durable, dataclasses.replace(durable, roles={'finance': {'alice', 'bob'}})) == {'approval'}
    stricter = {'send_invoice': dataclasses.replace(rule, required_approvals=3)}
    assert changed(durable, dataclasses.replace(durable, approval_rules=stricter)) == {'approval'}
    anyone = {'send_invoice': ApprovalRule()}
    assert changed(durable, dataclasses.replace(durable, approval_rules=anyone)) == {'approval'}


def test_durable_options_are_part_of_the_version() -> None:
    durable = build()
    assert changed(durable, dataclasses.replace(durable, max_tool_calls_in_flight=4)) == {'durable'}


@pytest.mark.parametrize('part', ['instructions', 'tools', 'toolsets', 'capabilities', 'output', 'model', 'approval'])
def test_every_part_of_the_example_agent_is_read(part: str, caplog: pytest.LogCaptureFixture) -> None:
    # A part that could not be read would keep one digest whatever it holds: none of them is unreadable.
    durable = build()
    fingerprint_parts(durable)
    assert not [r for r in caplog.records if r.name == 'workflows.fingerprint']
    empty = DurableAgent(Agent('test'))
    assert fingerprint_parts(durable)[part] != fingerprint_parts(empty)[part]
