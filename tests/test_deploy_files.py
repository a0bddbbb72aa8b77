"""The container files in deploy/: the compose file is a valid system and the image's health check exists.

With the `docker` client and its compose plugin present, the compose file is checked through
`docker compose config` (which needs no daemon) and the assertions run on its normalized output; without them,
on the file as pyyaml reads it. Either way the same assertions hold.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import yaml

from deploy.search_attributes import SEARCH_ATTRIBUTES

ROOT = Path(__file__).parent.parent
DEPLOY = ROOT / 'deploy'
COMPOSE = DEPLOY / 'compose.yaml'
DOCKERFILE = DEPLOY / 'Dockerfile'


def _docker_compose_available() -> bool:
    docker = shutil.which('docker')
    if docker is None:
        return False
    probe = subprocess.run([docker, 'compose', 'version'], capture_output=True, timeout=30, check=False)
    return probe.returncode == 0


def _compose() -> dict[str, Any]:
    """The compose file as the docker client resolves it, or as YAML when there is no docker compose."""
    if _docker_compose_available():
        done = subprocess.run(
            ['docker', 'compose', '-f', str(COMPOSE), 'config', '--format', 'yaml'],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd=ROOT,
        )
        assert done.returncode == 0, done.stderr
        return yaml.safe_load(done.stdout)
    return yaml.safe_load(COMPOSE.read_text())


def _command(service: dict[str, Any]) -> list[str]:
    command = service.get('command') or []
    return shlex.split(command) if isinstance(command, str) else [str(part) for part in command]


def _healthcheck_test(service: dict[str, Any]) -> list[str]:
    test = (service.get('healthcheck') or {}).get('test') or []
    return shlex.split(test) if isinstance(test, str) else [str(part) for part in test]


def _depends_on(service: dict[str, Any]) -> dict[str, str]:
    depends = service.get('depends_on') or {}
    if isinstance(depends, list):
        return dict.fromkeys(depends, 'service_started')
    return {name: spec.get('condition', 'service_started') for name, spec in depends.items()}


def _published_ports(service: dict[str, Any]) -> list[tuple[int, int]]:
    """(host port, container port) pairs, from the short syntax or `docker compose config`'s long one."""
    pairs: list[tuple[int, int]] = []
    for port in service.get('ports') or []:
        if isinstance(port, dict):
            pairs.append((int(port['published']), int(port['target'])))
        else:
            host, _, container = str(port).rpartition(':')
            pairs.append((int(host.rpartition(':')[2]), int(container)))
    return pairs


def _one_shots(services: dict[str, Any]) -> set[str]:
    """Services others wait on to finish: set-up jobs, which exit instead of staying healthy."""
    return {
        name
        for service in services.values()
        for name, condition in _depends_on(service).items()
        if condition == 'service_completed_successfully'
    }


def test_compose_file_runs_temporal_on_postgresql_with_ui_codec_endpoint_and_workers():
    services = _compose()['services']
    assert services['postgresql']['image'].startswith('postgres:')
    assert services['temporal']['environment']['DB'] == 'postgres12'
    assert services['temporal']['environment']['POSTGRES_SEEDS'] == 'postgresql'
    assert _command(services['codec'])[:3] == ['python', '-m', 'deploy.codec_server']
    ui = services['temporal-ui']['environment']
    assert ui['TEMPORAL_CODEC_ENDPOINT'] == 'http://localhost:8081'
    assert '--allow-origin=http://localhost:8080' in _command(services['codec'])
    assert services['worker']['deploy']['replicas'] >= 2
    assert services['worker']['environment']['TEMPORAL_ADDRESS'] == 'temporal:7233'


def test_every_long_running_service_has_a_health_check():
    services = _compose()['services']
    one_shots = _one_shots(services)
    assert one_shots == {'temporal-schema', 'temporal-namespace', 'search-attributes'}
    for name, service in services.items():
        if name in one_shots:
            continue
        test = _healthcheck_test(service)
        assert test, f'{name} has no health check'
        assert test[0] in ('CMD', 'CMD-SHELL'), f'{name} health check {test}'


def test_workers_start_only_after_the_search_attributes_are_registered():
    services = _compose()['services']
    assert _command(services['search-attributes']) == ['python', '-m', 'deploy.search_attributes']
    assert _depends_on(services['worker']) == {'search-attributes': 'service_completed_successfully'}
    assert _depends_on(services['search-attributes']) == {'temporal-namespace': 'service_completed_successfully'}
    # The attributes are named in one place: the module the one-shot runs.
    assert [key.name for key in SEARCH_ATTRIBUTES] == [
        'AgentName',
        'AgentState',
        'PendingApprovals',
        'AgentOwner',
        'AgentVersion',
    ]


def test_worker_service_health_check_is_the_images_health_check_module():
    services = _compose()['services']
    assert _healthcheck_test(services['worker'])[1:4] == ['python', '-m', 'deploy.healthcheck']
    assert _healthcheck_test(services['codec'])[1:4] == ['python', '-m', 'deploy.healthcheck']


def test_chat_service_serves_the_page_over_the_workers_conversations_from_the_worker_image():
    services = _compose()['services']
    chat, worker = services['chat'], services['worker']
    assert chat['image'] == worker['image']
    shell, flag, script = _command(chat)
    assert (shell, flag) == ('/bin/sh', '-c')
    command = shlex.split(script)
    assert command[:4] == ['exec', 'python', '-m', 'doors.chat']
    assert '--no-worker' in command
    # The container's AGENTS (`$$` in the file: compose leaves it alone, and `docker compose config` unescapes it).
    assert command[command.index('--agents') + 1] in ('$AGENTS', '$$AGENTS')
    assert chat['environment']['AGENTS'] == worker['environment']['AGENTS']
    assert command[command.index('--host') + 1] == '0.0.0.0'
    assert command[command.index('--port') + 1] == '8000'
    assert command[command.index('--allow-host') + 1] == 'chat'  # the name the workers post to
    assert command[command.index('--task-queue') + 1] == worker['environment']['TASK_QUEUE']
    assert chat['environment']['TEMPORAL_ADDRESS'] == 'temporal:7233'
    assert 'CHAT_TOKEN' in chat['environment']
    assert _depends_on(chat) == {'search-attributes': 'service_completed_successfully'}
    assert _published_ports(chat) == [(8000, 8000)]


def test_workers_publish_their_turn_events_to_the_chat_service_with_its_token():
    services = _compose()['services']
    chat, worker = services['chat']['environment'], services['worker']['environment']
    assert worker['AGENT_CHAT_EVENTS_URL'] == 'http://chat:8000/internal/turn-events'
    assert worker['AGENT_CHAT_EVENTS_TOKEN']
    assert worker['AGENT_CHAT_EVENTS_TOKEN'] == chat['AGENT_CHAT_EVENTS_TOKEN']


def test_chat_service_health_check_asks_the_page_whoami():
    test = _healthcheck_test(_compose()['services']['chat'])
    assert test[:3] == ['CMD', 'python', '-c']
    assert 'http://127.0.0.1:8000/api/whoami' in test[3]


def test_dockerfile_installs_the_ui_extra_the_chat_page_needs():
    run = next(line for line in DOCKERFILE.read_text().splitlines() if line.startswith('RUN pip install'))
    assert "'/tmp/src[ui]'" in run


def test_dockerfile_health_check_runs_a_module_of_the_repo():
    dockerfile = DOCKERFILE.read_text()
    healthcheck = re.search(r'^HEALTHCHECK\b.*?\bCMD (\[.*\])$', dockerfile, flags=re.MULTILINE)
    assert healthcheck is not None, 'deploy/Dockerfile has no HEALTHCHECK ... CMD [...]'
    command = yaml.safe_load(healthcheck.group(1))
    assert command[:2] == ['python', '-m']
    assert importlib.util.find_spec(command[2]) is not None, f'{command[2]} is not a module of the repo'
    assert (ROOT / (command[2].replace('.', '/') + '.py')).is_file()


def test_dockerfile_builds_from_python_slim_and_runs_the_worker_as_a_non_root_user():
    lines = [line for line in DOCKERFILE.read_text().splitlines() if line and not line.startswith('#')]
    assert lines[0] == 'FROM python:3.11-slim'
    users = [line.split()[1] for line in lines if line.startswith('USER ')]
    assert users
    assert users[-1] not in ('root', '0')
    cmd = next(line for line in lines if line.startswith('CMD '))
    assert 'python -m worker --agents' in cmd


def test_build_context_keeps_the_project_and_leaves_out_the_rest():
    patterns = [line for line in (ROOT / '.dockerignore').read_text().splitlines() if line and line[0] != '#']
    assert patterns[0] == '*'
    included = {pattern[1:] for pattern in patterns if pattern.startswith('!')}
    # What `pip install` of the project needs: its metadata and every package setuptools is told to find (read
    # from pyproject.toml, so a new top-level package cannot be left out of the image).
    setuptools = tomllib.loads((ROOT / 'pyproject.toml').read_text())['tool']['setuptools']
    packages = {pattern.rstrip('*') for pattern in setuptools['packages']['find']['include']}
    assert {'agent', 'workflows', 'activities', 'doors', 'deploy'} <= packages
    assert {'pyproject.toml', 'README.md', *(f'{module}.py' for module in setuptools['py-modules'])} <= included
    assert packages <= included
