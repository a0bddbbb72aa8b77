"""Serve an agent to AG-UI frontends (the Agent-User Interaction protocol, 1.0).

`AGUIAdapter` turns a `RunAgentInput` into an agent run and `AGUIEventStream` turns the run's events into
AG-UI events; `handle_ag_ui_request` answers one Starlette/FastAPI request with them and `AGUIApp` (also
`Agent.to_ag_ui()`) is a Starlette app serving one agent. The frontend's state reaches tools through
`StateDeps`, the frontend's tools are offered to the model and answered by the frontend, and tools that need
approval become the protocol's interrupts, answered by the client's `resume` on the next run.

Needs the `ui` extra: `pip install 'durable-agents[ui]'`.
"""

try:
    import ag_ui.core  # noqa: F401  # pyright: ignore[reportUnusedImport]
except ImportError as e:  # pragma: no cover
    raise ImportError(
        'Please install the `ag-ui-protocol` package to use the AG-UI adapter, '
        "you can use the `ui` optional group — `pip install 'durable-agents[ui]'`"
    ) from e

from agent.ui._state import StateDeps, StateHandler

from ._adapter import AGUIAdapter
from ._app import AGUIApp, handle_ag_ui_request
from ._event_stream import AGUIEventStream
from ._interrupts import APPROVAL_INTERRUPT_PREFIX, ApprovalAnswer
from ._toolset import FRONTEND_TOOLSET_ID

__all__ = (
    'APPROVAL_INTERRUPT_PREFIX',
    'FRONTEND_TOOLSET_ID',
    'AGUIAdapter',
    'AGUIApp',
    'AGUIEventStream',
    'ApprovalAnswer',
    'StateDeps',
    'StateHandler',
    'handle_ag_ui_request',
)
