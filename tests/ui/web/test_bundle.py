"""The committed page is exactly what `npm run build:web` makes from the source."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
STATIC = ROOT / 'agent' / 'ui' / 'web' / 'static'
BUILD = ROOT / 'agent' / 'ui' / 'web' / 'frontend' / 'build.mjs'


def test_the_committed_bundle_is_what_the_build_makes_from_the_source(tmp_path: Path):
    node = shutil.which('node')
    if node is None or not (ROOT / 'node_modules' / 'esbuild').is_dir():
        pytest.fail('Building the page needs Node and the JS dependencies: run `npm ci` at the repository root.')
    subprocess.run([node, str(BUILD), str(tmp_path)], cwd=ROOT, check=True, timeout=120)

    built = sorted(p.name for p in tmp_path.iterdir())
    assert built == ['app.css', 'app.js', 'index.html']
    for name in built:
        assert (tmp_path / name).read_bytes() == (STATIC / name).read_bytes(), (
            f'agent/ui/web/static/{name} is stale: run `npm run build:web` and commit the result.'
        )
