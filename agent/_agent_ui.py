"""`Agent.to_ag_ui` and `Agent.to_web`: serving one agent over AG-UI or as a chat page (the optional `ui` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Generic, cast

from typing_extensions import TypeVar

from .settings import ModelSettings

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from ._agent import Agent
    from .ui.ag_ui import AGUIApp

__all__ = ('AgentUIMixin',)

AgentDepsT = TypeVar('AgentDepsT', default=None)
OutputDataT = TypeVar('OutputDataT', default=str)


class AgentUIMixin(Generic[AgentDepsT, OutputDataT]):
    """Web front ends for `Agent`, imported only when asked for (Starlette is an optional dependency)."""

    name: str | None

    def to_ag_ui(self, **kwargs: Any) -> AGUIApp[AgentDepsT, OutputDataT]:
        """A Starlette app serving this agent over AG-UI; takes the arguments of `agent.ui.ag_ui.AGUIApp`.

        Needs the `ui` extra: `pip install 'durable-agents[ui]'`.
        """
        from .ui.ag_ui import AGUIApp  # needs the optional `ui` extra, so only imported when used

        return AGUIApp(cast('Agent[AgentDepsT, OutputDataT]', self), **kwargs)

    def to_web(
        self,
        *,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        instructions: Any = None,
        allowed_hosts: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Starlette:
        """The chat page for this agent: `agent.ui.web.create_chat_app` over an in-process backend.

        `deps`, `model_settings` and `instructions` apply to every run; `allowed_hosts` and `**kwargs` (`auth`,
        `max_body_bytes`) go to `create_chat_app`. Needs the `ui` extra: `pip install 'durable-agents[ui]'`.
        """
        from .ui.web import InProcessChatBackend, create_chat_app  # the optional `ui` extra, imported when used

        backend = InProcessChatBackend(
            {self.name or 'agent': cast('Agent[AgentDepsT, OutputDataT]', self)},
            deps=deps,
            model_settings=model_settings,
            instructions=instructions,
        )
        return create_chat_app(backend, allowed_hosts=allowed_hosts, **kwargs)
