"""`python -m doors.cli ARGS`: the `agents` command, for an environment without its console script.

```bash
python -m doors.cli run support "Clean up my files" --watch    # = agents run support ... --watch
```
"""

from __future__ import annotations

from . import main

if __name__ == '__main__':
    main(prog='python -m doors.cli')
