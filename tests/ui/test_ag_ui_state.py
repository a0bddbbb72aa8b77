"""Frontend state through `StateDeps`: validated into the deps, changed by tools, sent back as snapshots."""

from __future__ import annotations

from ag_ui.core import StateSnapshotEvent

from agent.tools import RunContext
from agent.ui import StateDeps
from agent.ui.ag_ui import AGUIAdapter

from ._ag_ui import Counter, calling_agent, client_check, counter_agent, encode, run_events, run_input, types


async def test_the_frontend_state_reaches_the_tools_and_comes_back_as_snapshots():
    deps = StateDeps(Counter())
    adapter = AGUIAdapter(counter_agent(), run_input(state={'count': 5}))

    events = await run_events(adapter, deps=deps)

    # The tool's change is sent after its result, and the final state closes the run.
    snapshots = [(i, e.snapshot) for i, e in enumerate(events) if isinstance(e, StateSnapshotEvent)]
    result_index = types(events).index('TOOL_CALL_RESULT')
    assert snapshots == [(result_index + 1, {'count': 6}), (len(events) - 2, {'count': 6})]
    assert types(events)[-1] == 'RUN_FINISHED'
    assert deps.state == Counter(count=6)


async def test_the_real_client_ends_up_with_the_state_the_tools_left():
    events = await run_events(AGUIAdapter(counter_agent(), run_input(state={'count': 1})), deps=StateDeps(Counter()))

    client = client_check(encode(events))

    assert client['error'] is None
    assert client['agent']['state'] == {'count': 2}


async def test_a_tool_that_leaves_the_state_alone_sends_no_snapshot_of_its_own():
    agent = calling_agent('read_count')

    @agent.tool
    def read_count(ctx: RunContext[StateDeps[Counter]]) -> int:
        return ctx.deps.state.count

    events = await run_events(AGUIAdapter(agent, run_input(state={'count': 3})), deps=StateDeps(Counter()))

    assert [e.snapshot for e in events if isinstance(e, StateSnapshotEvent)] == [{'count': 3}]
    assert types(events)[-2:] == ['STATE_SNAPSHOT', 'RUN_FINISHED']


async def test_deps_without_state_send_no_snapshot():
    agent = calling_agent('ping')

    @agent.tool_plain
    def ping() -> str:
        return 'pong'

    events = await run_events(AGUIAdapter(agent, run_input()))

    assert 'STATE_SNAPSHOT' not in types(events)
    assert types(events)[-1] == 'RUN_FINISHED'


def test_a_state_that_is_not_a_non_empty_object_is_no_state():
    assert AGUIAdapter(counter_agent(), run_input(state={})).state is None
    assert AGUIAdapter(counter_agent(), run_input(state=[1, 2])).state is None
    assert AGUIAdapter(counter_agent(), run_input(state={'count': 1})).state == {'count': 1}
