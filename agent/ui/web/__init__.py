"""A chat page for agents, served by the project: the app, its backend interface and the in-process backend.

`create_chat_app(backend)` serves the page and its JSON/stream API over any `ChatBackend`; `Agent.to_web()` serves
one in-process agent. The durable backend lives in `doors.chat`.
"""

from ._app import create_chat_app
from ._auth import AuthFunc, bearer_token_auth
from ._backend import (
    BackendUnavailable,
    ChatBackend,
    ChatBackendError,
    ChatTurn,
    ConversationDecisions,
    ConversationNotFound,
    ExternalEventNotFound,
    ExternalEventRefused,
    InvalidConversationId,
    InvalidResumeToken,
    NotOwner,
    OpenApproval,
    PendingApproval,
    StreamInterrupted,
    ToolCallDecision,
    TurnRejected,
    UnknownAgent,
    WaitingConversation,
)
from ._in_process import InProcessChatBackend

__all__ = (
    'AuthFunc',
    'BackendUnavailable',
    'ChatBackend',
    'ChatBackendError',
    'ChatTurn',
    'ConversationDecisions',
    'ConversationNotFound',
    'ExternalEventNotFound',
    'ExternalEventRefused',
    'InProcessChatBackend',
    'InvalidConversationId',
    'InvalidResumeToken',
    'NotOwner',
    'OpenApproval',
    'PendingApproval',
    'StreamInterrupted',
    'ToolCallDecision',
    'TurnRejected',
    'UnknownAgent',
    'WaitingConversation',
    'bearer_token_auth',
    'create_chat_app',
)
