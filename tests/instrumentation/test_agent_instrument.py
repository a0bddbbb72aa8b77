"""`Agent(instrument=...)`, `Agent.instrument_all()` and the `Instrumentation` spec entry."""

from __future__ import annotations

import pytest

from agent import Agent, InstrumentationSettings
from agent.capabilities import Instrumentation, _instrumentation
from agent.models.test import TestModel

from ._otel import Telemetry, attrs


def test_instrument_with_settings_traces_the_agents_runs(telemetry: Telemetry) -> None:
    Agent(TestModel(), name='a', instrument=telemetry.settings()).run_sync('hi')

    assert telemetry.tree() == [('invoke_agent a', None), ('chat test', 'invoke_agent a')]


def test_an_agent_without_instrumentation_emits_nothing(telemetry: Telemetry) -> None:
    Agent(TestModel(), name='a').run_sync('hi')

    assert telemetry.spans() == []


def test_instrument_true_uses_the_default_settings(telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch) -> None:
    # The default settings use the global providers, which a test cannot replace; point them here instead.
    monkeypatch.setattr(_instrumentation, '_default_settings', lambda: telemetry.settings())
    agent = Agent(TestModel(), name='a', instrument=True)

    agent.run_sync('hi')

    assert [name for name, _ in telemetry.tree()] == ['invoke_agent a', 'chat test']
    assert agent.capabilities == []


def test_instrument_all_traces_every_agent_without_its_own_setting(telemetry: Telemetry) -> None:
    Agent.instrument_all(telemetry.settings())

    Agent(TestModel(), name='first').run_sync('hi')
    Agent(TestModel(), name='opted_out', instrument=False).run_sync('hi')

    assert [name for name, _ in telemetry.tree()] == ['invoke_agent first', 'chat test']


def test_an_agents_own_setting_wins_over_instrument_all(telemetry: Telemetry) -> None:
    other = Telemetry.create()
    Agent.instrument_all(telemetry.settings())

    Agent(TestModel(), name='own', instrument=other.settings()).run_sync('hi')

    assert telemetry.spans() == []
    assert [name for name, _ in other.tree()] == ['invoke_agent own', 'chat test']


def test_an_instrumentation_capability_replaces_the_instrument_setting(telemetry: Telemetry) -> None:
    other = Telemetry.create()
    agent = Agent(TestModel(), name='a', instrument=other.settings())

    agent.run_sync('hi', capabilities=[Instrumentation(telemetry.settings())])

    assert other.spans() == []
    assert len(telemetry.spans()) == 2


def test_instrumentation_can_be_named_in_an_agent_spec() -> None:
    agent = Agent.from_spec({'model': 'test', 'capabilities': [{'Instrumentation': {'include_content': True}}]})

    (capability,) = agent.capabilities
    assert isinstance(capability, Instrumentation)
    assert capability.settings.include_content is True


def test_default_settings_leave_content_out_and_use_the_current_layout() -> None:
    settings = InstrumentationSettings()

    assert (settings.include_content, settings.include_binary_content, settings.version) == (False, True, 5)


def test_concurrent_runs_of_one_agent_get_separate_run_spans(telemetry: Telemetry) -> None:
    import asyncio

    agent = Agent(TestModel(), name='a', instrument=telemetry.settings())

    async def both() -> None:
        await asyncio.gather(agent.run('one'), agent.run('two'))

    asyncio.run(both())

    runs = [s for s in telemetry.spans() if s.name == 'invoke_agent a']
    chats = [s for s in telemetry.spans() if s.name == 'chat test']
    assert len(runs) == 2
    assert {c.parent.span_id for c in chats if c.parent} == {r.context.span_id for r in runs if r.context}
    assert {attrs(c)['gen_ai.agent.call.id'] for c in chats} == {attrs(r)['gen_ai.agent.call.id'] for r in runs}
