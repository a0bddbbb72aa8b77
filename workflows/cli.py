"""The `agents` command (see `workflows._cli`); `python -m workflows.cli ...` is the same command.

```bash
python -m workflows.cli run support "Clean up my files" --watch    # = agents run support ... --watch
```

Not imported by workflow code.
"""

from __future__ import annotations

from ._cli import main, run

__all__ = ('main', 'run')


if __name__ == '__main__':
    main(prog='python -m workflows.cli')
