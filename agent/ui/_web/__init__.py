"""Pydantic AI's place for the web chat app behind `Agent.to_web()`, for code that imports it from there.

`create_web_app(agent)` is this project's chat page (`agent.ui.web.create_chat_app`) over an in-process backend
for one agent; see `agent.ui._web.app`.
"""

from .app import create_web_app

__all__ = ('create_web_app',)
