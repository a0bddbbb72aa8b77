"""`VercelAIAdapter`: serve an agent to the Vercel AI SDK's `useChat` (UI message stream protocol, AI SDK v6).

```python
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agent import Agent
from agent.ui.vercel_ai import VercelAIAdapter

agent = Agent('test')


async def chat(request: Request) -> Response:
    return await VercelAIAdapter.dispatch_request(request, agent=agent)


app = Starlette(routes=[Route('/api/chat', chat, methods=['POST'])])
```

Each request carries the whole chat. Tool approvals make a round trip: a call that needs approval ends the run
with a `tool-approval-request`; the user's answer comes back in the next request as the tool part's
`approval-responded` state, which `deferred_tool_results` turns into the results the run resumes with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from pydantic import TypeAdapter

from agent._parts import ModelMessage
from agent.tools import DeferredToolApprovalResult, DeferredToolResults, ToolDenied
from agent.ui._adapter import DEFAULT_FILE_URL_SCHEMES, UIAdapter
from agent.ui._event_stream import AgentDepsT, OutputDataT

from ._dump import MessageIdFunc, dump_ui_messages
from ._event_stream import VercelAIEventStream
from ._load import load_ui_messages
from ._utils import iter_tool_approval_responses
from .request_types import RequestData, UIMessage
from .response_types import BaseChunk

if TYPE_CHECKING:
    from starlette.requests import Request

    from agent._abstract_agent import AbstractAgent

__all__ = ('VercelAIAdapter',)

_REQUEST_DATA: TypeAdapter[RequestData] = TypeAdapter(RequestData)


@dataclass
class VercelAIAdapter(UIAdapter[RequestData, UIMessage, BaseChunk, AgentDepsT, OutputDataT]):
    """Runs an agent for one `useChat` request and streams the answer as UI message stream chunks."""

    _: KW_ONLY
    sdk_version: Literal[5, 6, 7] = 6
    """The AI SDK major version of the client: 6 and 7 get tool approvals (requests, denials), 5 does not."""
    server_message_id: str | None = None
    """The assistant message's id for the stream's `start` chunk (see `VercelAIEventStream.server_message_id`)."""

    @classmethod
    async def from_request(
        cls,
        request: Request,
        *,
        agent: AbstractAgent[AgentDepsT, OutputDataT],
        sdk_version: Literal[5, 6, 7] = 6,
        server_message_id: str | None = None,
        manage_system_prompt: Literal['server', 'client'] = 'server',
        allowed_file_url_schemes: frozenset[str] = DEFAULT_FILE_URL_SCHEMES,
        **kwargs: Any,
    ) -> VercelAIAdapter[AgentDepsT, OutputDataT]:
        """`UIAdapter.from_request` with the Vercel AI options `sdk_version` and `server_message_id`."""
        return await super().from_request(
            request,
            agent=agent,
            sdk_version=sdk_version,
            server_message_id=server_message_id,
            manage_system_prompt=manage_system_prompt,
            allowed_file_url_schemes=allowed_file_url_schemes,
            **kwargs,
        )

    @classmethod
    def build_run_input(cls, body: bytes) -> RequestData:
        """Decode a `useChat` request body.

        Raises:
            pydantic.ValidationError: The body is not a valid chat request.
        """
        return _REQUEST_DATA.validate_json(body)

    @classmethod
    def load_messages(cls, messages: Sequence[UIMessage]) -> list[ModelMessage]:
        """UI messages as agent messages: text, reasoning, files, and tool calls with their results."""
        return load_ui_messages(messages)

    @classmethod
    def dump_messages(
        cls,
        messages: Sequence[ModelMessage],
        *,
        generate_message_id: MessageIdFunc | None = None,
        sdk_version: Literal[5, 6, 7] = 6,
    ) -> list[UIMessage]:
        """Agent messages as UI messages, e.g. to send a stored chat to the page.

        Args:
            messages: The agent history.
            generate_message_id: Makes each UI message's id from the agent message, the role and the UI message's
                index; by default an id derived from the message's run id (or its time), stable across calls.
            sdk_version: The client's AI SDK major version; from 6, a tool call without a result is shown as
                waiting for approval.
        """
        return dump_ui_messages(messages, generate_message_id=generate_message_id, sdk_version=sdk_version)

    def build_event_stream(self) -> VercelAIEventStream[AgentDepsT, OutputDataT]:
        """A new Vercel AI event stream for this request."""
        return VercelAIEventStream(
            self.run_input, accept=self.accept, sdk_version=self.sdk_version, server_message_id=self.server_message_id
        )

    @cached_property
    def messages(self) -> list[ModelMessage]:
        """The chat's messages as agent messages."""
        return self.load_messages(self.run_input.messages)

    @cached_property
    def conversation_id(self) -> str | None:
        """The chat's id (the body's top-level `id`)."""
        return self.run_input.id

    @cached_property
    def deferred_tool_results(self) -> DeferredToolResults | None:
        """The user's answers to approval requests: tool parts in the `approval-responded` state.

        An approval becomes `True`; a denial becomes `ToolDenied` with the user's reason (which the model sees as
        the tool's result), or `False` without one. `None` when there are none, or for an AI SDK v5 client.
        """
        if self.sdk_version < 6:
            return None
        approvals: dict[str, bool | DeferredToolApprovalResult] = {}
        for tool_call_id, answer in iter_tool_approval_responses(self.run_input.messages):
            if answer.approved:
                approvals[tool_call_id] = True
            else:
                approvals[tool_call_id] = ToolDenied(answer.reason) if answer.reason else False
        return DeferredToolResults(approvals=approvals) if approvals else None
