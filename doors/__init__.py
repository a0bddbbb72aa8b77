"""The front doors: the programs people and other systems use to reach durable agents.

- `doors.cli`: the `agents` command (serve agents, start, steer and answer runs, the inbox, schedules, the demo).
- `doors.chat`: the chat page over durable conversations, its live turn-event hub and the workers' relays to it.
- `doors.demo`: the end-to-end demo that `agents demo` runs.

They sit on top of the house: they import the runtime (`agent`), the workflow and its client API (`workflows`) and
the workers (`worker`), and nothing below imports them (`tests/test_layers.py` holds that).
"""
