"""A `useChat` request as a `ChatTurn`: only what is new in it is taken.

`useChat` sends the whole chat on every request, but the backend keeps the history, so the client's copy is not
trusted: the turn takes the last message only. A user message is the turn's prompt (sanitized in `'server'`
mode: no system prompts, only `http(s)` file URLs); an assistant message carries the human's answers to the
approvals it asked for (its tool parts in the `approval-responded` state).
"""

from __future__ import annotations

import warnings
from typing import Any

from agent._content import UserContent
from agent._parts import ModelMessage, ModelRequest, UserPromptPart
from agent.tools import DeferredToolApprovalResult, DeferredToolResults, ToolDenied
from agent.ui import _sanitize
from agent.ui._adapter import DEFAULT_FILE_URL_SCHEMES
from agent.ui.vercel_ai import VercelAIAdapter
from agent.ui.vercel_ai._utils import iter_tool_approval_responses
from agent.ui.vercel_ai.request_types import (
    RegenerateMessage,
    RequestData,
    UIMessage,
)

from ._backend import ChatTurn

__all__ = ('BadChatRequest', 'chat_turn', 'sanitized_prompt')


class BadChatRequest(ValueError):
    """The request is valid `useChat` JSON but carries no turn this app can take (the app answers 400)."""


def chat_turn(run_input: RequestData, owner: str) -> ChatTurn:
    """The turn a `useChat` request asks for.

    Raises:
            BadChatRequest: A regenerate request, no messages, or a last message with nothing new in it.
    """
    if isinstance(run_input, RegenerateMessage):
        raise BadChatRequest('Regenerating a message is not supported: send a new message instead.')
    if not run_input.messages:
        raise BadChatRequest('The request has no messages.')
    extra: dict[str, Any] = run_input.model_extra or {}
    agent = extra.get('agent')
    if agent is not None and not isinstance(agent, str):
        raise BadChatRequest('`agent` must be a string.')
    last = run_input.messages[-1]
    if last.role == 'user':
        return ChatTurn(conversation_id=run_input.id, owner=owner, agent=agent, user_prompt=_user_prompt(last))
    if last.role == 'assistant' and (results := _approval_answers(last)) is not None:
        return ChatTurn(conversation_id=run_input.id, owner=owner, agent=agent, deferred_tool_results=results)
    raise BadChatRequest('The last message must be a user message or answer pending approvals.')


def _user_prompt(message: UIMessage) -> str | list[UserContent]:
    return sanitized_prompt(VercelAIAdapter.load_messages([message]))


def sanitized_prompt(requests: list[ModelMessage]) -> str | list[UserContent]:
    """The user content of a protocol's new user message (loaded as `requests`), sanitized in `'server'` mode.

    Raises:
        BadChatRequest: Nothing of the message is left, or only whitespace.
    """
    with warnings.catch_warnings():
        # What sanitizing removes is reported to nobody here: the request simply does not get it.
        warnings.simplefilter('ignore')
        report = _sanitize.sanitize(
            requests, strip_system_prompt=True, allowed_file_url_schemes=DEFAULT_FILE_URL_SCHEMES
        )
    content: list[UserContent] = []
    for request in report.messages:
        if isinstance(request, ModelRequest):
            for part in request.parts:
                if isinstance(part, UserPromptPart):
                    content.extend([part.content] if isinstance(part.content, str) else part.content)
    # Text that is only whitespace says nothing: a turn on it would spend a model request on an empty message.
    if not any(not isinstance(item, str) or item.strip() for item in content):
        raise BadChatRequest('The message is empty: write something (or attach a file) and send it again.')
    if len(content) == 1 and isinstance(content[0], str):
        return content[0]
    return content


def _approval_answers(message: UIMessage) -> DeferredToolResults | None:
    """The answers in an assistant message's tool parts; a denial's reason is what the model is told."""
    approvals: dict[str, bool | DeferredToolApprovalResult] = {}
    for tool_call_id, answer in iter_tool_approval_responses([message]):
        if answer.approved:
            approvals[tool_call_id] = True
        else:
            approvals[tool_call_id] = ToolDenied(answer.reason) if answer.reason else False
    return DeferredToolResults(approvals=approvals) if approvals else None
