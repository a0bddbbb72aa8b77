"""`python worker.py ARGS` (and `python -m worker ARGS`): the `agents worker ARGS` command under the script's name.

`worker.py` is both the module that assembles workers (`build_worker`, imported by this command) and the script a
Temporal user expects to run; its `__main__` block hands the command line to `worker_script` here.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import NoReturn

from . import main

__all__ = ('agents_argv', 'worker_script')


def worker_script(argv: Sequence[str] | None = None) -> NoReturn:
    """`python worker.py ARGS`: the same as `agents worker ARGS`; `--demo [ask|approve|deny]` is `agents demo`."""
    main(agents_argv(sys.argv[1:] if argv is None else argv), prog='agents')


def agents_argv(argv: Sequence[str]) -> list[str]:
    """The `agents` command line of a `worker.py` one: `--demo [MODE] ...` becomes `demo [MODE] ...`."""
    args = list(argv)
    for index, arg in enumerate(args):
        if arg == '--demo' or arg.startswith('--demo='):
            mode = arg.partition('=')[2]
            rest = args[:index] + args[index + 1 :]
            if not mode and index < len(args) - 1 and args[index + 1] in ('ask', 'approve', 'deny'):
                mode, rest = args[index + 1], args[:index] + args[index + 2 :]
            return ['demo', *([mode] if mode else []), *rest]
    return ['worker', *args]
