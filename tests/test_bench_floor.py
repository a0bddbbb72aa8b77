"""The benchmark reports S1, S3 and S5 against the floor (S0, a bare Temporal workflow) measured in the same run."""

from __future__ import annotations

from bench._support import Bench
from bench.floor import against_floor
from bench.run import parse_scenarios


def test_scenarios_measured_against_the_floor_bring_it_into_the_same_invocation() -> None:
    assert parse_scenarios('S1,S3') == ['S0', 'S1', 'S3']
    assert parse_scenarios('s5') == ['S0', 'S5']
    assert parse_scenarios('S0,S1') == ['S0', 'S1']
    assert parse_scenarios('S2,S6') == ['S2', 'S6']


def test_a_scenario_line_repeats_the_floors_figures_and_divides_by_them() -> None:
    bench = Bench(env=None, quick=True)  # pyright: ignore[reportArgumentType]
    bench.floor['S3'] = {'signal_to_result_ms': 50.0, 'start_to_awaiting_ms': 0.0, 'history_events': 45, 'other': 1}
    metrics = {'signal_to_result_ms': 40.0, 'start_to_awaiting_ms': 70.0, 'history_events': 51}

    line = against_floor(bench, 'S3', metrics)

    assert line == {
        'S0': {'signal_to_result_ms': 50.0, 'start_to_awaiting_ms': 0.0, 'history_events': 45},
        'over_S0': {'signal_to_result_ms': 0.8, 'history_events': 1.13},
    }
    assert against_floor(bench, 'S1', metrics) == {}
    assert against_floor(bench, 'S3', {'error': 'TimeoutError: ...'}) == {}


def test_local_activity_variants_are_measured_against_their_scenarios_floor() -> None:
    assert parse_scenarios('S1L,S5L') == ['S0', 'S1L', 'S5L']
    assert parse_scenarios('S4L') == ['S4L']  # no floor for the crash scenario
    bench = Bench(env=None, quick=True, scenarios=('S0', 'S3L'))  # pyright: ignore[reportArgumentType]
    bench.floor['S3'] = {'signal_to_result_ms': 80.0}
    assert against_floor(bench, 'S3L', {'signal_to_result_ms': 40.0}) == {
        'S0': {'signal_to_result_ms': 80.0},
        'over_S0': {'signal_to_result_ms': 0.5},
    }
