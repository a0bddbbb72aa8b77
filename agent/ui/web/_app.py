"""`create_chat_app`: the chat page and its API over any `ChatBackend`.

Routes (all `/api` routes authenticate with `auth` and reach only the caller's conversations):

| Route                          | What it does                                                              |
| ------------------------------ | ------------------------------------------------------------------------- |
| `POST /api/chat`               | A `useChat` request (AI SDK v6): one turn, streamed as a UI message stream |
| `GET /api/chat/{id}/stream`    | The running turn's stream from its start (`useChat`'s resume); 204 if none |
| `POST /api/chat/{id}/stop`     | Cancel the running turn                                                   |
| `GET /api/chat/{id}/messages`  | The history as AI SDK UI messages, to restore a chat after a reload       |
| `GET /api/chat/{id}/decisions` | Who decided the conversation's approvals, and the approvals still open    |
| `GET /api/inbox`               | The conversations waiting for a human's approval                           |
| `POST /api/external-events/{token}` | Resolve (`{"results": ...}`) or fail (`{"fail": ...}`) a `RequestInput` wait |
| `GET /api/agents`              | The agents' names                                                         |
| `GET /api/whoami`              | `{"owner": <the caller's owner id, or null when not authenticated>}`      |
| `POST /api/ag-ui`              | An AG-UI run (`RunAgentInput`): one turn, or a reconnect (see `_ag_ui_turn`) |
| `GET /api/health`              | `{"ok": true}`, without authentication (for probes)                        |
| `GET /`                        | The page (static files built from `agent/ui/web/frontend`)                 |

A conversation that does not exist or is not the caller's is 404 either way; a turn the conversation cannot take
now is 409; a body over `max_body_bytes` is 413; a `Host` that is not this server's is 421 (see `_hosts`). A body
that is not UTF-8, an empty message, or a conversation id the backend cannot take (e.g. too long) is 400. When what
runs the conversations cannot serve the request (`BackendUnavailable`: no worker), the answer is 503 within the
backend's bound, `{"detail": ..., "admitted": ...}`, where `admitted` says whether what was sent is kept and will be
acted on. A resume token (`/api/external-events/{token}`) that is malformed is 400, one that names no wait of the
caller's is 404, and a resolution its wait cannot take (it has ended, or the answer does not fit) is 409; the
caller's owner id is credited as who answered. Answers to approvals (a `POST /api/chat` turn) come from the caller's
owner id too: a durable run whose approval rules refuse it (not an allowed approver, or one who already approved)
answers 409 with the reason, and records nothing. A turn's stream that the backend interrupts (`StreamInterrupted`)
ends without its `finish` chunk: the page resumes it; over AG-UI it ends without `RUN_FINISHED`, and the client
reconnects.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Sequence
from dataclasses import asdict
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from agent._env import uuid7
from agent.run import AgentRunResultEvent
from agent.tools import DeferredToolRequests
from agent.ui._event_hooks import EventT
from agent.ui._event_stream import UIEventStream
from agent.ui.vercel_ai import VercelAIAdapter, VercelAIEventStream
from agent.ui.vercel_ai._dump import merge_steps
from agent.ui.vercel_ai.request_types import RequestData, SubmitMessage, UIMessage
from agent.ui.vercel_ai.response_types import BaseChunk

from ._auth import AuthFunc
from ._backend import (
    BackendUnavailable,
    ChatBackend,
    ConversationNotFound,
    ExternalEventNotFound,
    ExternalEventRefused,
    InvalidConversationId,
    InvalidResumeToken,
    StreamInterrupted,
    TurnRejected,
    UnknownAgent,
)
from ._hosts import HostCheckMiddleware, host_patterns
from ._resolution import BadResolution, parse_resolution
from ._vercel_turn import BadChatRequest, chat_turn

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from agent.ui._event_stream import NativeEvent

__all__ = ('DEFAULT_MAX_BODY_BYTES', 'STATIC_DIR', 'create_chat_app')

DEFAULT_MAX_BODY_BYTES = 1_000_000
"""The default bound on a request body: a chat message with a small attachment."""

STATIC_DIR = Path(__file__).parent / 'static'
"""The built page (`index.html`, `app.js`, `app.css`)."""

# The page loads only its own files, so nothing injected into a message can load or run anything else.
_PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)


class _BodyTooLarge(Exception):
    pass


class _BodyNotText(Exception):
    pass


def _local_user(request: Request) -> str:
    return 'local'


def create_chat_app(
    backend: ChatBackend,
    *,
    auth: AuthFunc | None = None,
    allowed_hosts: Sequence[str] | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    debug: bool = False,
) -> Starlette:
    """A Starlette app serving the chat page and its API (see the module docstring) over `backend`.

    Args:
        backend: Runs the conversations.
        auth: Returns the caller's owner id or raises `HTTPException(401)`, e.g. `bearer_token_auth(token)`.
            `None` makes every caller the same owner (`'local'`): only for a server that only you can reach.
        allowed_hosts: Host names the app answers besides `localhost` and IP addresses (`*.example.com`
            allows subdomains, `['*']` any host); requests for other hosts get 421, which defeats DNS rebinding.
        max_body_bytes: Larger request bodies get 413.
        debug: Starlette's debug mode (tracebacks in error responses).

    Raises:
        ImportError: Starlette is not installed.
        UserError: An `allowed_hosts` pattern is malformed.
    """
    try:
        from starlette.applications import Starlette
        from starlette.exceptions import HTTPException
        from starlette.middleware import Middleware
        from starlette.responses import FileResponse, JSONResponse, Response
        from starlette.routing import Mount, Route
        from starlette.staticfiles import StaticFiles
    except ImportError as e:  # pragma: no cover
        raise ImportError(
            'Please install the `starlette` package to use the chat app, you can use the `ui` optional group — '
            "`pip install 'durable-agents[ui]'`"
        ) from e
    hosts = host_patterns(allowed_hosts or ())  # a malformed pattern fails here, not at the first request

    authenticate: AuthFunc = auth or _local_user

    async def owner_of(request: Request) -> str:
        owner = authenticate(request)
        if inspect.isawaitable(owner):
            owner = await owner
        return owner

    async def read_body(request: Request) -> bytes:
        declared = request.headers.get('content-length')
        if declared is not None and declared.isdigit() and int(declared) > max_body_bytes:
            raise _BodyTooLarge
        # The declared length may be absent (chunked) or wrong: count what actually arrives.
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > max_body_bytes:
                raise _BodyTooLarge
        try:
            # Checked here: a validation error that quotes bytes that are not UTF-8 cannot be written as JSON.
            body.decode('utf-8')
        except UnicodeDecodeError as e:
            raise _BodyNotText(e.start) from e
        return bytes(body)

    def stream_response(run_input: RequestData, request: Request, events: AsyncIterator[NativeEvent]) -> Response:
        stream = _ChatPageStream(
            run_input,
            accept=request.headers.get('accept'),
            sdk_version=6,
            server_message_id=_response_message_id(run_input),
        )
        return stream.streaming_response(_unfinished_when_interrupted(stream, events))

    async def post_chat(request: Request) -> Response:
        owner = await owner_of(request)
        try:
            run_input = VercelAIAdapter.build_run_input(await read_body(request))
            turn = chat_turn(run_input, owner)
        except ValidationError as e:
            return Response(e.json(), status_code=HTTPStatus.UNPROCESSABLE_ENTITY, media_type='application/json')
        except BadChatRequest as e:
            raise HTTPException(HTTPStatus.BAD_REQUEST, str(e)) from e
        events = await backend.stream_turn(turn)
        return stream_response(run_input, request, events)

    async def resume_chat(request: Request) -> Response:
        owner = await owner_of(request)
        conversation_id: str = request.path_params['conversation_id']
        events = await backend.resume(conversation_id, owner)
        if events is None:
            return Response(status_code=HTTPStatus.NO_CONTENT)
        # The stream continues the chat's last assistant message when the turn answers approvals, so the `start`
        # chunk must carry that message's id, as the reloaded page knows it from `/messages`.
        last = merge_steps(VercelAIAdapter.dump_messages(await backend.history(conversation_id, owner)))[-1:]
        return stream_response(SubmitMessage(id=conversation_id, messages=last), request, events)

    async def post_ag_ui(request: Request) -> Response:
        from agent.ui.ag_ui import AGUIAdapter, AGUIEventStream

        from ._ag_ui_turn import AGUIReconnectStream, ag_ui_turn, up_to_last_prompt

        owner = await owner_of(request)
        try:
            run_input = AGUIAdapter.build_run_input(await read_body(request))
            turn = ag_ui_turn(run_input, owner)
        except ValidationError as e:
            return Response(e.json(), status_code=HTTPStatus.UNPROCESSABLE_ENTITY, media_type='application/json')
        except BadChatRequest as e:
            raise HTTPException(HTTPStatus.BAD_REQUEST, str(e)) from e
        accept = request.headers.get('accept')
        if turn is not None:
            events = await backend.stream_turn(turn)
            stream = AGUIEventStream[Any, Any](run_input, accept=accept)
            return stream.streaming_response(_unfinished_when_interrupted(stream, events))
        # A reconnect: the conversation, then the running (or just ended) turn replayed from its start.
        replay = await backend.resume(run_input.thread_id, owner)
        history = await backend.history(run_input.thread_id, owner)
        if replay is not None:
            history = up_to_last_prompt(history)
        snapshot = AGUIAdapter.dump_messages(history, preserve_file_data=True)  # the server's own history
        reconnect = AGUIReconnectStream(run_input, accept=accept, snapshot=snapshot)
        return reconnect.streaming_response(_unfinished_when_interrupted(reconnect, replay or _no_events()))

    async def stop_chat(request: Request) -> Response:
        owner = await owner_of(request)
        stopped = await backend.stop(request.path_params['conversation_id'], owner)
        return JSONResponse({'stopped': stopped})

    async def chat_messages(request: Request) -> Response:
        owner = await owner_of(request)
        history = await backend.history(request.path_params['conversation_id'], owner)
        # The page shows a turn as one assistant message of steps, as the turn's stream built it.
        messages: list[UIMessage] = merge_steps(VercelAIAdapter.dump_messages(history))
        return JSONResponse([m.model_dump(mode='json', by_alias=True, exclude_none=True) for m in messages])

    async def chat_decisions(request: Request) -> Response:
        owner = await owner_of(request)
        decided = await backend.decisions(request.path_params['conversation_id'], owner)
        return JSONResponse(asdict(decided))

    async def inbox(request: Request) -> Response:
        owner = await owner_of(request)
        waiting = await backend.inbox(owner)
        return JSONResponse(
            [
                {**asdict(w), 'updated_at': w.updated_at.isoformat(), 'approvals': [asdict(a) for a in w.approvals]}
                for w in waiting
            ]
        )

    async def resolve_event(request: Request) -> Response:
        owner = await owner_of(request)
        try:
            results, failure = parse_resolution(await read_body(request))
        except BadResolution as e:
            raise HTTPException(HTTPStatus.BAD_REQUEST, str(e)) from e
        token: str = request.path_params['token']
        await backend.resolve_external_event(token, owner, results=results, failure=failure)
        return JSONResponse({'resolved': failure is None, 'failed': failure is not None})

    async def health(request: Request) -> Response:
        return JSONResponse({'ok': True})  # for probes: answers without auth, says nothing about the backend

    async def whoami(request: Request) -> Response:
        # Answers 200 either way, so the page can find out whether to ask for a token without a failed request
        # (which a browser reports on the console).
        try:
            owner: str | None = await owner_of(request)
        except HTTPException as e:
            if e.status_code != HTTPStatus.UNAUTHORIZED:
                raise
            owner = None
        return JSONResponse({'owner': owner})

    async def agents(request: Request) -> Response:
        await owner_of(request)
        return JSONResponse(list(backend.agent_names()))

    async def index(request: Request) -> Response:
        return FileResponse(STATIC_DIR / 'index.html', headers={'Content-Security-Policy': _PAGE_CSP})

    def json_error(status: int, detail: str, headers: dict[str, str] | None = None) -> Response:
        return JSONResponse({'detail': detail}, status_code=status, headers=headers)

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return json_error(exc.status_code, exc.detail, dict(exc.headers or {}))

    async def on_not_found(request: Request, exc: Exception) -> Response:
        return json_error(HTTPStatus.NOT_FOUND, str(exc))

    async def on_rejected(request: Request, exc: Exception) -> Response:
        return json_error(HTTPStatus.CONFLICT, str(exc))

    async def on_bad_request(request: Request, exc: Exception) -> Response:
        return json_error(HTTPStatus.BAD_REQUEST, str(exc))

    async def on_not_text(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, _BodyNotText)
        return json_error(
            HTTPStatus.BAD_REQUEST,
            f'The request body is not valid UTF-8 (at byte {exc.args[0]}): send the JSON encoded as UTF-8.',
        )

    async def on_unavailable(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, BackendUnavailable)
        return JSONResponse({'detail': str(exc), 'admitted': exc.admitted}, status_code=HTTPStatus.SERVICE_UNAVAILABLE)

    async def on_too_large(request: Request, exc: Exception) -> Response:
        return json_error(
            HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f'The request body is larger than {max_body_bytes} bytes.'
        )

    return Starlette(
        debug=debug,
        routes=[
            Route('/api/chat', post_chat, methods=['POST']),
            Route('/api/chat/{conversation_id}/stream', resume_chat, methods=['GET']),
            Route('/api/chat/{conversation_id}/stop', stop_chat, methods=['POST']),
            Route('/api/chat/{conversation_id}/messages', chat_messages, methods=['GET']),
            Route('/api/chat/{conversation_id}/decisions', chat_decisions, methods=['GET']),
            Route('/api/inbox', inbox, methods=['GET']),
            Route('/api/external-events/{token}', resolve_event, methods=['POST']),
            Route('/api/agents', agents, methods=['GET']),
            Route('/api/whoami', whoami, methods=['GET']),
            Route('/api/health', health, methods=['GET']),
            Route('/api/ag-ui', post_ag_ui, methods=['POST']),
            Route('/', index, methods=['GET']),
            Mount('/', StaticFiles(directory=STATIC_DIR), name='static'),
        ],
        middleware=[Middleware(HostCheckMiddleware, allowed_hosts=hosts)],
        exception_handlers={
            HTTPException: on_http_error,
            ConversationNotFound: on_not_found,
            UnknownAgent: on_not_found,
            ExternalEventNotFound: on_not_found,
            TurnRejected: on_rejected,
            ExternalEventRefused: on_rejected,
            InvalidConversationId: on_bad_request,
            InvalidResumeToken: on_bad_request,
            BackendUnavailable: on_unavailable,
            _BodyTooLarge: on_too_large,
            _BodyNotText: on_not_text,
        },
    )


async def _no_events() -> AsyncIterator[NativeEvent]:
    return
    yield


async def _unfinished_when_interrupted(
    stream: UIEventStream[Any, EventT, Any, Any], events: AsyncIterator[NativeEvent]
) -> AsyncIterator[EventT]:
    """The stream's chunks, cut off where the backend interrupts the events (`StreamInterrupted`).

    The protocol stream would report the interruption as an error and finish the message; instead it stops there,
    without closing the message: `useChat` ends the request with no finish reason, and the page resumes (an AG-UI
    client sees a run that never finished, and reconnects).
    """
    interrupted = False

    async def until_interrupted() -> AsyncIterator[NativeEvent]:
        nonlocal interrupted
        try:
            async for event in events:
                yield event
        except StreamInterrupted:
            interrupted = True

    async for chunk in stream.transform_stream(until_interrupted()):
        if not interrupted:  # what comes after closes the message and finishes it
            yield chunk


def _response_message_id(run_input: RequestData) -> str:
    """The id of the assistant message a turn's stream writes: the chat's last message when the turn continues it
    (approvals answered), so the page keeps adding to the message it shows (also after a reload, when it knows the
    id from `/messages`); a new id otherwise."""
    messages = run_input.messages
    if messages and messages[-1].role == 'assistant':
        return messages[-1].id
    return uuid7()


class _ChatPageStream(VercelAIEventStream[Any, Any]):
    """The page's stream: every turn that ends names a finish reason, because the page takes a `finish` chunk
    without one for a stream the server cut off (see `_unfinished_when_interrupted`). The model's reason when it
    gave one, else `tool-calls` for a turn waiting on the user, else `stop`."""

    async def handle_run_result(self, event: AgentRunResultEvent[Any]) -> AsyncIterator[BaseChunk]:
        async for chunk in super().handle_run_result(event):
            yield chunk
        if self._finish_reason is None:
            self._finish_reason = 'tool-calls' if isinstance(event.result.output, DeferredToolRequests) else 'stop'
