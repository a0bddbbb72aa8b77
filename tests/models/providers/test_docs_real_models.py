"""The real-model commands of docs/getting-started.md run as written, each against a local server of its provider.

The section's bash block exports a key and runs the demo with a model, four times: OpenAI, Anthropic, Gemini and an
OpenAI-compatible server. Here each provider's API is a local server speaking its wire format over HTTP
(`LocalOpenAIServer`, `LocalAnthropicServer`, `LocalGeminiServer`) and scripted as a model would drive the demo: list
the files, ask to delete the old report, report. OpenAI's and Anthropic's APIs are reached through their base-URL
variables (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`); the Gemini provider reads no such variable, so its command runs
with the provider's default base URL (`agent.providers.google.GEMINI_BASE_URL`) pointed at the local server before
`worker.py` runs. The block's own `OPENAI_BASE_URL` (Ollama's address) is replaced by a second local OpenAI server's.
Each command answers `y` at the prompt, then Enter.
"""

from __future__ import annotations

import os
import shlex
import sys

from tests._docs import ROOT, blocks, commands
from tests._processes import run

from ._local_server import LocalOpenAIServer, Reply
from ._local_wire_servers import LocalAnthropicServer, LocalGeminiServer

GETTING_STARTED = 'docs/getting-started.md'
REAL_MODELS = 'Real models'
OLLAMA = 'http://localhost:11434/v1'

GEMINI_AT = (
    'import runpy, sys; import agent.providers.google as google; google.GEMINI_BASE_URL = sys.argv.pop(1); '
    'sys.argv[0] = "worker.py"; runpy.run_path("worker.py", run_name="__main__")'
)
"""`python worker.py ARGS` with the Gemini provider's default base URL set to the argument before `ARGS`."""


def demo_script() -> list[Reply]:
    return [
        Reply(tool_calls=[('call_1', 'list_files', {})]),
        Reply(tool_calls=[('call_2', 'delete_file', {'path': 'old-report.txt'})]),
        Reply('I deleted old-report.txt.'),
    ]


def section_commands() -> list[list[str]]:
    (block,) = blocks(GETTING_STARTED, 'bash', section=REAL_MODELS)
    return [shlex.split(command, comments=True) for command in commands(block.source)]


def test_the_section_exports_a_key_or_address_before_each_demo_command() -> None:
    words = section_commands()
    assert [command[0] for command in words] == ['export', 'python'] * 4
    models = [command[4] for command in words if command[0] == 'python']
    assert models == ['openai:gpt-5.2', 'anthropic:claude-sonnet-4-5', 'google:gemini-2.5-flash', 'openai:llama3.2']
    assert all(command[:4] == ['python', 'worker.py', '--demo', '--model'] for command in words[1::2])
    assert words[-2] == ['export', f'OPENAI_BASE_URL={OLLAMA}']


def test_each_real_model_command_drives_the_demo_through_its_providers_api() -> None:
    with (
        LocalOpenAIServer(demo_script()) as openai,
        LocalAnthropicServer(demo_script()) as anthropic,
        LocalGeminiServer(demo_script()) as gemini,
        LocalOpenAIServer(demo_script()) as ollama,
    ):
        unset = ('OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'GEMINI_API_KEY')
        env = {name: value for name, value in os.environ.items() if name not in (*unset, 'GOOGLE_API_KEY')}
        env |= {'OPENAI_BASE_URL': openai.base_url, 'ANTHROPIC_BASE_URL': anthropic.base_url}
        for words in section_commands():
            if words[0] == 'export':
                name, _, value = words[1].partition('=')
                env[name] = ollama.base_url if value == OLLAMA else value
                continue
            model = words[4]
            program = [sys.executable, *words[1:]]
            if model.startswith('google:'):
                program = [sys.executable, '-c', GEMINI_AT, gemini.base_url, *words[2:]]
            # Killed with the dev server it starts if it takes too long.
            done = run(program, cwd=ROOT, env=env, input='y\n\n', timeout=120)

            assert done.returncode == 0, f'{model}:\n{done.stdout}\n{done.stderr}'
            assert 'The agent wants to call delete_file({"path": "old-report.txt"})' in done.stdout
            assert 'Result: I deleted old-report.txt.' in done.stdout

    assert [r.body['model'] for r in openai.received] == ['gpt-5.2'] * 3
    assert openai.received[0].headers['authorization'] == 'Bearer sk-...'
    assert openai.received[2].body['messages'][-1]['content'] == 'deleted old-report.txt'

    assert [r.body['model'] for r in anthropic.received] == ['claude-sonnet-4-5'] * 3
    assert anthropic.received[0].headers['x-api-key'] == 'sk-ant-...'
    assert anthropic.received[2].body['messages'][-1]['content'][0]['type'] == 'tool_result'

    assert [r.path for r in gemini.received] == ['/v1beta/models/gemini-2.5-flash:generateContent'] * 3
    assert gemini.received[0].headers['x-goog-api-key'] == '...'
    assert 'functionResponse' in gemini.received[2].body['contents'][-1]['parts'][0]

    assert [r.body['model'] for r in ollama.received] == ['llama3.2'] * 3
