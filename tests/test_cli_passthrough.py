"""`agents codec` hands its own arguments, options included, to the codec endpoint's command line."""

from __future__ import annotations

from doors.cli import build_parser
from doors.cli._parser import parse


def test_options_after_codec_are_the_codec_servers() -> None:
    args = parse(build_parser('agents'), ['codec', '--port', '8081', '--allow-origin', 'http://localhost:8233'])
    assert args.command == 'codec'
    assert args.rest == ['--port', '8081', '--allow-origin', 'http://localhost:8233']


def test_global_flags_before_codec_stay_global() -> None:
    args = parse(build_parser('agents'), ['--debug', 'codec', '--token', 't'])
    assert args.command == 'codec'
    assert args.debug is True
    assert args.rest == ['--token', 't']


def test_codec_as_a_flags_value_is_not_the_command() -> None:
    args = parse(build_parser('agents'), ['--namespace', 'codec', 'status', 'run-1'])
    assert args.command == 'status'
    assert args.namespace == 'codec'
