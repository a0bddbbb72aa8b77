"""`AGUIAdapter`: an AG-UI `RunAgentInput` as an agent run.

What the run input carries and where it goes:

- `messages` -> the run's (sanitized) history, see `_load`;
- `tools` -> the frontend's tools, offered to the model as deferred tools (`_toolset`);
- `state` -> the deps' state when the deps are a `StateHandler` such as `StateDeps`;
- `resume` -> `DeferredToolResults`: the client's answers to the approval interrupts of the last run
  (`_interrupts`);
- `threadId` -> the run's conversation id.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ag_ui.core import BaseEvent, Message, RunAgentInput
from pydantic import ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from agent.messages import ModelMessage
from agent.tools import DeferredToolResults
from agent.toolsets import AbstractToolset
from agent.ui._adapter import UIAdapter
from agent.ui._event_stream import AgentDepsT, OutputDataT

from ._dump import dump_messages
from ._event_stream import AGUIEventStream
from ._interrupts import interrupt_tool_call_id, resume_to_deferred_tool_results
from ._load import MessageLoadError, load_messages
from ._toolset import frontend_toolset
from ._utils import DEFAULT_AG_UI_VERSION

__all__ = ('AGUIAdapter',)


@dataclass
class AGUIAdapter(UIAdapter[RunAgentInput, Message, BaseEvent, AgentDepsT, OutputDataT]):
    """Runs an agent for an AG-UI request (`RunAgentInput`) and streams AG-UI events (see the module docstring).

    `AGUIAdapter.dispatch_request(request, agent=agent)` answers a Starlette/FastAPI request end to end;
    `handle_ag_ui_request` and `AGUIApp` wrap it.
    """

    ag_ui_version: str = DEFAULT_AG_UI_VERSION
    """The AG-UI version the frontend speaks (that of the installed `ag-ui-protocol` by default)."""

    @classmethod
    def build_run_input(cls, body: bytes) -> RunAgentInput:
        """Decode and check an AG-UI request body.

        Beyond the protocol's schema, the messages must make a history (every tool message answers a tool call
        made before it, inline data is base64) and every resume entry must answer an approval interrupt.

        Raises:
            pydantic.ValidationError: The body is not a valid run input; the errors say where and why.
        """
        run_input = RunAgentInput.model_validate_json(body)
        errors: list[InitErrorDetails] = []
        # Loading the messages now makes a history that cannot be loaded a 422 instead of a stream that fails
        # later; the messages are loaded again (with their warnings) for the run.
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                load_messages(run_input.messages)
        except MessageLoadError as e:
            errors.append(_error(('messages', e.index), e.reason, run_input.messages[e.index]))
        for index, entry in enumerate(run_input.resume or []):
            if interrupt_tool_call_id(entry.interrupt_id) is None:
                reason = f'{entry.interrupt_id!r} is not the id of an interrupt this agent sent'
                errors.append(_error(('resume', index, 'interruptId'), reason, entry.interrupt_id))
        if errors:
            raise ValidationError.from_exception_data(RunAgentInput.__name__, errors)
        return run_input

    @classmethod
    def load_messages(cls, messages: Sequence[Message], *, preserve_file_data: bool = False) -> list[ModelMessage]:
        """AG-UI messages as agent messages (file activities only with `preserve_file_data`).

        Raises:
            ValueError: A tool message answers no earlier tool call, or inline data is not base64.
        """
        return load_messages(messages, preserve_file_data=preserve_file_data)

    @classmethod
    def dump_messages(
        cls,
        messages: Sequence[ModelMessage],
        *,
        ag_ui_version: str = DEFAULT_AG_UI_VERSION,
        preserve_file_data: bool = False,
    ) -> list[Message]:
        """Agent messages as AG-UI messages, e.g. to send a stored conversation to a frontend.

        Args:
            messages: The agent messages.
            ag_ui_version: The frontend's AG-UI version; before 0.1.13 thinking is left out.
            preserve_file_data: Include the files the model produced (as activity messages).
        """
        return dump_messages(messages, ag_ui_version=ag_ui_version, preserve_file_data=preserve_file_data)

    def build_event_stream(self) -> AGUIEventStream[AgentDepsT, OutputDataT]:
        """A new AG-UI event stream for this run input (it reports the state of the deps given to the run)."""
        return AGUIEventStream(
            self.run_input, accept=self.accept, state_handler=self._state_handler, ag_ui_version=self.ag_ui_version
        )

    @cached_property
    def messages(self) -> list[ModelMessage]:
        """The run input's messages as agent messages (not yet sanitized)."""
        return load_messages(self.run_input.messages, preserve_file_data=self.preserve_file_data)

    @cached_property
    def toolset(self) -> AbstractToolset[AgentDepsT] | None:
        """The frontend's tools, executed by the frontend: a call to one ends the run for the client to answer."""
        if not self.run_input.tools:
            return None
        return frontend_toolset(self.run_input.tools)

    @cached_property
    def state(self) -> dict[str, Any] | None:
        """The frontend's state, when it is a non-empty object."""
        state: Any = self.run_input.state
        return state if isinstance(state, dict) and state else None  # pyright: ignore[reportUnknownVariableType]

    @cached_property
    def deferred_tool_results(self) -> DeferredToolResults | None:
        """The client's answers to the approval interrupts of the previous run (`RunAgentInput.resume`)."""
        return resume_to_deferred_tool_results(self.run_input.resume or [])

    @cached_property
    def conversation_id(self) -> str | None:
        """The AG-UI thread id."""
        return self.run_input.thread_id


def _error(loc: tuple[str | int, ...], reason: str, value: Any) -> InitErrorDetails:
    return InitErrorDetails(
        type=PydanticCustomError('ag_ui_run_input', '{reason}', {'reason': reason}),
        loc=loc,
        input=value.model_dump(by_alias=True) if hasattr(value, 'model_dump') else value,
    )
