"""`AbstractAgent`: what every agent offers, whether it runs itself (`Agent`) or delegates (`WrapperAgent`).

Code that only runs agents (a UI adapter, a durable wrapper, a test helper) can accept an `AbstractAgent` and work
with `Agent` and with any wrapper around one. A subclass implements `iter`, `override`, `run_stream` and
`run_stream_events` and the configuration properties; `run` and `run_sync` are built on `iter` here (`Agent`
keeps its own versions, which also infer its name).
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from typing import TYPE_CHECKING, Any, Generic, Self

from typing_extensions import TypeVar

from ._override import UNSET
from .exceptions import UserError
from .graph import End

if TYPE_CHECKING:
    from ._content import UserContent
    from ._deferred import DeferredToolResults
    from ._parts import ModelMessage
    from ._spec import AgentSpec
    from .models import Model
    from .result import AgentEventStream, StreamedRunResult
    from .run import AgentRun, AgentRunResult
    from .settings import ModelSettings
    from .toolsets import AbstractToolset
    from .usage import RunUsage, UsageLimits

__all__ = ('AbstractAgent',)

AgentDepsT = TypeVar('AgentDepsT', default=None)
OutputDataT = TypeVar('OutputDataT', default=str)


class AbstractAgent(ABC, Generic[AgentDepsT, OutputDataT]):
    """The interface of an agent: its configuration, the ways to run it, and `override` for tests."""

    output_type: Any
    """What a run returns (an output spec: a type, `ToolOutput(...)`, `NativeOutput(...)`, ...)."""
    deps_type: Any
    """The type of the dependencies a run takes (`deps=`)."""

    @property
    @abstractmethod
    def model(self) -> Model | str | None:
        """The default model, if any."""
        raise NotImplementedError

    @property
    @abstractmethod
    def name(self) -> str | None:
        """The agent's name (inferred from the variable it is assigned to on the first run, if not given)."""
        raise NotImplementedError

    @name.setter
    @abstractmethod
    def name(self, value: str | None) -> None:
        raise NotImplementedError

    @property
    @abstractmethod
    def toolsets(self) -> Sequence[AbstractToolset[AgentDepsT]]:
        """The agent's toolsets, its own function tools first."""
        raise NotImplementedError

    @abstractmethod
    def iter(
        self,
        user_prompt: str | Sequence[UserContent] | None = None,
        *,
        output_type: Any = None,
        message_history: Sequence[ModelMessage] | None = None,
        deferred_tool_results: DeferredToolResults | None = None,
        conversation_id: str | None = None,
        model: Model | str | None = None,
        instructions: Any = None,
        deps: AgentDepsT = None,
        model_settings: ModelSettings | None = None,
        usage_limits: UsageLimits | None = None,
        usage: RunUsage | None = None,
        metadata: dict[str, Any] | Callable[..., dict[str, Any]] | None = None,
        infer_name: bool = True,
        toolsets: Sequence[Any] | None = None,
        capabilities: Sequence[Any] | None = None,
        builtin_tools: Sequence[Any] | None = None,
        event_stream_handler: Callable[[Any, Any], Any] | None = None,
        spec: AgentSpec | dict[str, Any] | None = None,
        retries: int | dict[str, int] | None = None,
    ) -> AbstractAsyncContextManager[AgentRun[AgentDepsT, Any]]:
        """Start a run to drive node by node: `async with agent.iter(prompt) as agent_run: ...`."""
        raise NotImplementedError

    @abstractmethod
    def override(
        self,
        *,
        name: str | None = UNSET,
        deps: Any = UNSET,
        model: Any = UNSET,
        toolsets: Sequence[Any] = UNSET,
        tools: Sequence[Any] = UNSET,
        native_tools: Sequence[Any] = UNSET,
        builtin_tools: Sequence[Any] = UNSET,
        instructions: Any = UNSET,
        metadata: dict[str, Any] | Callable[..., dict[str, Any]] | None = UNSET,
        model_settings: ModelSettings | Callable[..., ModelSettings] | None = UNSET,
        retries: int | dict[str, int] = UNSET,
        spec: AgentSpec | dict[str, Any] | None = None,
    ) -> AbstractContextManager[None]:
        """Replace parts of the agent's configuration inside a `with` block (see `Agent.override`)."""
        raise NotImplementedError

    @abstractmethod
    def run_stream(
        self, user_prompt: str | Sequence[UserContent] | None = None, **kwargs: Any
    ) -> AbstractAsyncContextManager[StreamedRunResult[Any]]:
        """Run the agent, streaming the final output as it is generated (see `Agent.run_stream`)."""
        raise NotImplementedError

    @abstractmethod
    def run_stream_events(
        self, user_prompt: str | Sequence[UserContent] | None = None, **kwargs: Any
    ) -> AgentEventStream[Any]:
        """Run the agent and stream its events, ending with an `AgentRunResultEvent`."""
        raise NotImplementedError

    async def run(self, user_prompt: str | Sequence[UserContent] | None = None, **kwargs: Any) -> AgentRunResult[Any]:
        """Run the agent to completion by driving `iter`; takes the same keyword arguments."""
        async with self.iter(user_prompt, **kwargs) as agent_run:
            node = agent_run.next_node
            while not isinstance(node, End):
                node = await agent_run.next(node)
        assert agent_run.result is not None
        return agent_run.result

    def run_sync(self, user_prompt: str | Sequence[UserContent] | None = None, **kwargs: Any) -> AgentRunResult[Any]:
        """Run the agent in a fresh event loop; takes the same keyword arguments as `iter`.

        Raises:
            UserError: when called from a running event loop (use `await agent.run(...)` there).
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.run(user_prompt, **kwargs))
        raise UserError('run_sync() cannot be called from a running event loop; use `await agent.run(...)`.')

    async def __aenter__(self) -> Self:
        """Enter the agent's resources (e.g. its MCP servers) for several runs; nothing by default."""
        return self

    async def __aexit__(self, *args: Any) -> None:
        """Leave what `__aenter__` entered."""
        return None
