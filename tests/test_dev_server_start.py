"""The embedded dev server when a port is taken: started again on new ports, or one line saying it did not start."""

from __future__ import annotations

import argparse
import os
import socket
from collections.abc import Iterator
from datetime import timedelta

import pytest
from temporalio.api.workflowservice.v1 import GetSystemInfoRequest

from doors.cli._errors import explain
from workflows import _dev_server
from workflows._dev_server import DevServerNotStarted, start_dev_server, web_ui_url


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port something listens on for the whole test."""
    with socket.socket() as listener:
        listener.bind(('127.0.0.1', 0))
        listener.listen()
        yield int(listener.getsockname()[1])


def _dev_servers() -> set[int]:
    """The pids of this process's `temporal` children (from /proc: the SDK starts the server as a child)."""
    pids: set[int] = set()
    for entry in os.listdir('/proc'):
        try:
            with open(f'/proc/{entry}/stat') as stat:
                fields = stat.read().rsplit(')', 1)[1].split()
            with open(f'/proc/{entry}/comm') as comm:
                name = comm.read().strip()
        except (OSError, IndexError):
            continue  # not a process, or one that ended meanwhile
        if name == 'temporal' and int(fields[1]) == os.getpid():
            pids.add(int(entry))
    return pids


async def test_a_taken_ui_port_given_by_the_caller_is_one_line_saying_so(taken_port: int) -> None:
    before = _dev_servers()
    with pytest.raises(DevServerNotStarted) as raised:
        await start_dev_server(ui=True, ui_port=taken_port, startup_timeout=timedelta(seconds=3))
    message = str(raised.value)
    assert message.startswith('The Temporal dev server did not start: ')
    assert 'is a port it was given taken?' in message
    assert '\n' not in message
    assert _dev_servers() == before  # the server that could not bind is not left running

    told = explain(raised.value, argparse.Namespace())
    assert told is not None
    assert len(told.splitlines()) == 2
    assert 'Try again' in told


async def test_a_ui_port_taken_after_it_was_chosen_is_chosen_again(
    taken_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen: list[int] = []
    free_port = _dev_server._free_port

    def first_a_taken_port() -> int:
        # Another process binds the port between choosing it and the server binding it (the race this retries).
        chosen.append(taken_port if not chosen else free_port())
        return chosen[-1]

    monkeypatch.setattr(_dev_server, '_free_port', first_a_taken_port)
    before = _dev_servers()  # the suite's own dev server, where one runs
    env = await start_dev_server(ui=True, startup_timeout=timedelta(seconds=15))
    try:
        assert len(chosen) == 2
        assert len(_dev_servers() - before) == 1  # the one that could not bind ended; this one runs
        assert web_ui_url(env) == f'http://127.0.0.1:{chosen[1]}'
        assert await env.client.workflow_service.get_system_info(GetSystemInfoRequest())
    finally:
        await env.shutdown()
