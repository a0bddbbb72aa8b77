"""Runs the protocol checkers in `tests/ui/js/` with Node, so streams are judged by the protocols' own libraries."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
JS_DIR = Path(__file__).resolve().parent / 'js'


def run_node(script: str, stdin: str, *args: str) -> Any:
    """Run `tests/ui/js/<script>` from the repo root with `stdin` as its input and return its JSON output.

    Fails (never skips) when Node or the repo's `node_modules` is missing: these tests are the only check
    that real clients accept our streams.
    """
    node = shutil.which('node')
    if node is None:
        pytest.fail('node is not on PATH; install Node 20+ to run the UI protocol tests')
    if not (REPO_ROOT / 'node_modules').is_dir():
        pytest.fail(f'{REPO_ROOT / "node_modules"} is missing; run `npm ci` at the repo root')
    completed = subprocess.run(
        [node, str(JS_DIR / script), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=60,
        check=False,
    )
    if completed.returncode != 0:
        pytest.fail(f'{script} exited with {completed.returncode}:\n{completed.stderr}')
    return json.loads(completed.stdout)
