"""`WrapperAgent`: an agent that hands everything to another one; subclass it to change one thing.

```python
class LoggingAgent(WrapperAgent):
    async def run(self, user_prompt=None, **kwargs):
        print('running', user_prompt)
        return await super().run(user_prompt, **kwargs)
```
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from typing import TYPE_CHECKING, Any, Generic, Self

from ._abstract_agent import AbstractAgent, AgentDepsT, OutputDataT

if TYPE_CHECKING:
    from ._content import UserContent
    from ._parts import SystemPromptPart
    from .models import Model
    from .result import AgentEventStream, StreamedRunResult, StreamedRunResultSync
    from .run import AgentRun, AgentRunResult
    from .toolsets import AbstractToolset

__all__ = ('WrapperAgent',)


class WrapperAgent(AbstractAgent[AgentDepsT, OutputDataT], Generic[AgentDepsT, OutputDataT]):
    """Forwards every call and property to `wrapped`; override the methods whose behaviour should differ.

    `run_sync` is inherited (it calls `self.run`), so a subclass that overrides `run` changes both.
    """

    def __init__(self, wrapped: AbstractAgent[AgentDepsT, OutputDataT]) -> None:
        """Wrap `wrapped`."""
        self.wrapped = wrapped
        """The agent everything is forwarded to."""

    @property
    def model(self) -> Model | str | None:
        """The wrapped agent's default model."""
        return self.wrapped.model

    @property
    def name(self) -> str | None:
        """The wrapped agent's name (setting it renames the wrapped agent)."""
        return self.wrapped.name

    @name.setter
    def name(self, value: str | None) -> None:
        self.wrapped.name = value

    @property
    def output_type(self) -> Any:
        """The wrapped agent's output type."""
        return self.wrapped.output_type

    @property
    def deps_type(self) -> Any:
        """The wrapped agent's dependencies type."""
        return self.wrapped.deps_type

    @property
    def toolsets(self) -> Sequence[AbstractToolset[AgentDepsT]]:
        """The wrapped agent's toolsets."""
        return self.wrapped.toolsets

    def iter(
        self, user_prompt: str | Sequence[UserContent] | None = None, **kwargs: Any
    ) -> AbstractAsyncContextManager[AgentRun[AgentDepsT, Any]]:
        """`iter` of the wrapped agent."""
        return self.wrapped.iter(user_prompt, **kwargs)

    def override(self, **kwargs: Any) -> AbstractContextManager[None]:
        """`override` of the wrapped agent: the replacements apply to runs through either."""
        return self.wrapped.override(**kwargs)

    async def system_prompt_parts(self, **kwargs: Any) -> list[SystemPromptPart]:
        """`system_prompt_parts` of the wrapped agent."""
        return await self.wrapped.system_prompt_parts(**kwargs)  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType, reportUnknownVariableType]

    async def run(self, user_prompt: str | Sequence[UserContent] | None = None, **kwargs: Any) -> AgentRunResult[Any]:
        """`run` of the wrapped agent."""
        return await self.wrapped.run(user_prompt, **kwargs)

    def run_stream(
        self, user_prompt: str | Sequence[UserContent] | None = None, **kwargs: Any
    ) -> AbstractAsyncContextManager[StreamedRunResult[Any]]:
        """`run_stream` of the wrapped agent."""
        return self.wrapped.run_stream(user_prompt, **kwargs)

    def run_stream_events(
        self, user_prompt: str | Sequence[UserContent] | None = None, **kwargs: Any
    ) -> AgentEventStream[Any]:
        """`run_stream_events` of the wrapped agent."""
        return self.wrapped.run_stream_events(user_prompt, **kwargs)

    def run_stream_sync(
        self, user_prompt: str | Sequence[UserContent] | None = None, **kwargs: Any
    ) -> StreamedRunResultSync[Any]:
        """`run_stream_sync` of the wrapped agent.

        Raises:
            AttributeError: if the wrapped agent has no `run_stream_sync`.
        """
        run_stream_sync: Any = getattr(self.wrapped, 'run_stream_sync')  # noqa: B009  # not every AbstractAgent has it
        return run_stream_sync(user_prompt, **kwargs)

    async def __aenter__(self) -> Self:
        """Enter the wrapped agent (its toolsets stay entered until the matching exit)."""
        await self.wrapped.__aenter__()
        return self

    async def __aexit__(self, *args: Any) -> None:
        """Exit the wrapped agent."""
        await self.wrapped.__aexit__(*args)

    def __repr__(self) -> str:
        return f'{type(self).__name__}({self.wrapped!r})'
