"""`create_web_app`: the chat page for one agent, under the name and signature Pydantic AI gives it.

The page is the one this project ships built (`agent.ui.web`), not one fetched from a CDN, and it chooses no
model or native tools itself: an agent's own model and tools are used, so `models` and `native_tools` are
refused rather than silently ignored. `html_source` replaces the page's HTML with a local file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent._agent import Agent
from agent.exceptions import UserError
from agent.settings import ModelSettings
from agent.ui._event_stream import AgentDepsT, OutputDataT

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = ('create_web_app',)


def create_web_app(
    agent: Agent[AgentDepsT, OutputDataT],
    models: Any = None,
    native_tools: Sequence[Any] | None = None,
    deps: AgentDepsT = None,
    model_settings: ModelSettings | None = None,
    instructions: str | None = None,
    html_source: str | Path | None = None,
    allowed_hosts: Sequence[str] | None = None,
) -> Starlette:
    """The chat page serving `agent` in this process (what `Agent.to_web()` returns).

    Args:
        agent: The agent to chat with.
        models: Not supported: the agent's model is used (a `UserError` says so).
        native_tools: Not supported: the agent's tools are used (a `UserError` says so).
        deps: The deps of every run.
        model_settings: Model settings for every run.
        instructions: More instructions for every run.
        html_source: A local HTML file served at `/` instead of the built page.
        allowed_hosts: Host names answered besides `localhost` and IP addresses (`*.example.com` for
            subdomains, `['*']` for any host); other hosts get 421.

    Raises:
        UserError: `models` or `native_tools` was given, `html_source` is not a readable local file, or an
            `allowed_hosts` pattern is malformed.
    """
    from agent.ui.web import InProcessChatBackend, create_chat_app  # the optional `ui` extra, imported when used

    if models is not None or native_tools:
        raise UserError(
            "The chat page uses the agent's own model and tools: `models` and `native_tools` are not supported; "
            'pass `model=` and tools to the `Agent` instead.'
        )
    page = _get_ui_html(html_source) if html_source is not None else None
    backend = InProcessChatBackend(
        {agent.name or 'agent': agent}, deps=deps, model_settings=model_settings, instructions=instructions
    )
    app = create_chat_app(backend, allowed_hosts=allowed_hosts)
    if page is not None:
        from starlette.responses import HTMLResponse
        from starlette.routing import Route

        async def index(request: Any) -> HTMLResponse:
            return HTMLResponse(page)

        app.router.routes.insert(0, Route('/', index, methods=['GET']))
    return app


def _get_ui_html(html_source: str | Path | None = None) -> bytes:
    """The page's HTML: the built page's, or a local file's.

    Raises:
        UserError: `html_source` is a URL (pages are not fetched) or names no readable file.
    """
    if html_source is None:
        from agent.ui.web._app import STATIC_DIR

        return (STATIC_DIR / 'index.html').read_bytes()
    if isinstance(html_source, str) and html_source.startswith(('http://', 'https://')):
        raise UserError(f'The page is not fetched from {html_source!r}: pass a local file as `html_source`.')
    try:
        return Path(html_source).read_bytes()
    except OSError as e:
        raise UserError(f'Cannot read the page from {str(html_source)!r}: {e.strerror or e}.') from e
