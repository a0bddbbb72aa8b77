"""`python -m workflows.chat ARGS`: the earlier name of `python -m doors.chat ARGS` (`agents chat ARGS`)."""

from __future__ import annotations

import runpy

if __name__ == '__main__':
    runpy.run_module('doors.chat', run_name='__main__', alter_sys=True)
