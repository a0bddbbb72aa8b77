"""Deprecated: the AG-UI names at their old place, for programs written against it.

Use `agent.ui` (`SSE_CONTENT_TYPE`, `StateDeps`, `StateHandler`, `OnCompleteFunc`) and `agent.ui.ag_ui`
(`AGUIAdapter`, `AGUIApp`); instead of `handle_ag_ui_request` and `run_ag_ui`, call
`AGUIAdapter.dispatch_request()` or `AGUIAdapter(...).run_stream()`. Importing this module warns.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import RunAgentInput

from ._abstract_agent import AbstractAgent
from ._warnings import PydanticAIDeprecationWarning
from .tools import AgentDepsT
from .ui import SSE_CONTENT_TYPE, OnCompleteFunc, StateDeps, StateHandler
from .ui.ag_ui import AGUIAdapter, AGUIApp, handle_ag_ui_request
from .ui.ag_ui._utils import DEFAULT_AG_UI_VERSION

__all__ = (
    'SSE_CONTENT_TYPE',
    'AGUIApp',
    'OnCompleteFunc',
    'StateDeps',
    'StateHandler',
    'handle_ag_ui_request',
    'run_ag_ui',
)

warnings.warn(
    'The `agent.ag_ui` module is deprecated: import `SSE_CONTENT_TYPE`, `StateDeps` and `StateHandler` from '
    '`agent.ui` and `AGUIAdapter` and `AGUIApp` from `agent.ui.ag_ui`; instead of `handle_ag_ui_request` and '
    '`run_ag_ui`, call `AGUIAdapter.dispatch_request()` or `AGUIAdapter(...).run_stream()`.',
    PydanticAIDeprecationWarning,
    stacklevel=2,
)


def run_ag_ui(
    agent: AbstractAgent[AgentDepsT, Any],
    run_input: RunAgentInput,
    accept: str = SSE_CONTENT_TYPE,
    *,
    ag_ui_version: str = DEFAULT_AG_UI_VERSION,
    preserve_file_data: bool = False,
    manage_system_prompt: Any = 'server',
    allowed_file_url_schemes: frozenset[str] = frozenset({'http', 'https'}),
    allowed_file_url_force_download: frozenset[Any] = frozenset(),
    on_complete: OnCompleteFunc[Any] | None = None,
    **run_kwargs: Any,
) -> AsyncIterator[str]:
    """Run `agent` on an AG-UI run input and stream the encoded AG-UI events (deprecated, see the module docstring).

    Args:
        agent: The agent to run.
        run_input: The AG-UI run input.
        accept: The `Accept` header choosing the encoding.
        ag_ui_version: The AG-UI version to speak (see `AGUIAdapter.ag_ui_version`).
        preserve_file_data: Carry files through messages (see `AGUIAdapter.preserve_file_data`).
        manage_system_prompt: Who owns the system prompt (see `UIAdapter.manage_system_prompt`).
        allowed_file_url_schemes: The URL schemes accepted for client file URLs.
        allowed_file_url_force_download: The `force_download` values accepted on client file URLs besides `False`.
        on_complete: Called with the run's result when it completes.
        **run_kwargs: The arguments of `UIAdapter.run_stream` (`deps`, `model`, `message_history`, ...).
    """
    adapter = AGUIAdapter[AgentDepsT, Any](
        agent=agent,
        run_input=run_input,
        accept=accept,
        ag_ui_version=ag_ui_version,
        preserve_file_data=preserve_file_data,
        manage_system_prompt=manage_system_prompt,
        allowed_file_url_schemes=allowed_file_url_schemes,
        allowed_file_url_force_download=allowed_file_url_force_download,
    )
    return adapter.encode_stream(adapter.run_stream(on_complete=on_complete, **run_kwargs))
