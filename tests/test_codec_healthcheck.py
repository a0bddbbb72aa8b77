"""`python -m deploy.healthcheck --codec-endpoint URL`: the codec endpoint container's health check."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from deploy.codec_server import CodecServer
from deploy.healthcheck import Unhealthy, check_codec_endpoint, main


@pytest.fixture
def codec() -> Iterator[CodecServer]:
    server = CodecServer().start()
    try:
        yield server
    finally:
        server.close()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return int(probe.getsockname()[1])


def test_a_codec_endpoint_that_decodes_is_healthy(codec: CodecServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert check_codec_endpoint(codec.url) == f'The codec endpoint at {codec.url} decodes'
    assert main(['--codec-endpoint', codec.url]) == 0
    assert capsys.readouterr().out == f'The codec endpoint at {codec.url} decodes\n'


def test_a_codec_endpoint_that_refuses_the_request_is_unhealthy(monkeypatch: pytest.MonkeyPatch) -> None:
    server = CodecServer(token='secret').start()
    try:
        monkeypatch.delenv('CODEC_SERVER_TOKEN', raising=False)
        with pytest.raises(Unhealthy, match=r'answered 401 to /decode'):
            check_codec_endpoint(server.url)
        # The container's health check runs with the endpoint's own environment, token included.
        monkeypatch.setenv('CODEC_SERVER_TOKEN', 'secret')
        assert check_codec_endpoint(server.url).endswith('decodes')
    finally:
        server.close()


def test_an_unreachable_codec_endpoint_is_reported_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    url = f'http://127.0.0.1:{_closed_port()}'
    assert main(['--codec-endpoint', url]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f'Unhealthy: The codec endpoint at {url} did not answer /decode')
    assert err.count('\n') == 1
