"""The decorators an `Agent` offers: tools, instructions, system prompts and output validators."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from typing_extensions import TypeVar as TypeVarWithDefault

from ._instructions import InstructionSource, SystemPromptRunner
from .output import OutputValidator

if TYPE_CHECKING:
    from .toolsets import FunctionToolset

__all__ = ('AgentDecoratorsMixin',)

AgentDepsT = TypeVarWithDefault('AgentDepsT', default=None)
FuncT = TypeVar('FuncT', bound=Callable[..., Any])


class AgentDecoratorsMixin(Generic[AgentDepsT]):
    """Decorator methods of `Agent`; tools go to the agent's own `FunctionToolset`."""

    _function_toolset: FunctionToolset[AgentDepsT]
    _instructions: list[InstructionSource]
    _system_prompts: list[str | SystemPromptRunner]
    _output_validators: list[OutputValidator]

    @overload
    def tool(self, func: FuncT, /) -> FuncT: ...
    @overload
    def tool(self, /, **kwargs: Any) -> Callable[[FuncT], FuncT]: ...
    def tool(self, func: Any = None, /, **kwargs: Any) -> Any:
        """Register a tool that takes `RunContext` as its first argument.

        Usable bare (`@agent.tool`) or with the keyword arguments of `Tool` (`name`, `retries`, `prepare`,
        `args_validator`, `docstring_format`, `require_parameter_descriptions`, `schema_generator`,
        `strict`, `sequential`, `requires_approval`, `metadata`, `timeout`, `defer_loading`,
        `include_return_schema`).

        Raises:
            UserError: if the function's first parameter is annotated as something other than `RunContext`
                (register such a function with `tool_plain`).
        """

        def register(function: Any) -> Any:
            # Unlike `FunctionToolset.tool` (which still accepts a plain function, with a deprecation warning),
            # the agent's decorator insists on the context, as Pydantic AI's does.
            self._function_toolset.add_function(function, takes_ctx=True, **kwargs)
            return function

        return register(func) if func is not None else register

    @overload
    def tool_plain(self, func: FuncT, /) -> FuncT: ...
    @overload
    def tool_plain(self, /, **kwargs: Any) -> Callable[[FuncT], FuncT]: ...
    def tool_plain(self, func: Any = None, /, **kwargs: Any) -> Any:
        """Register a tool that does not take `RunContext`; same keyword arguments as `tool`."""
        if func is not None:
            return self._function_toolset.tool_plain(func, **kwargs)
        return self._function_toolset.tool_plain(**kwargs)

    @overload
    def instructions(self, func: FuncT, /) -> FuncT: ...
    @overload
    def instructions(self, /) -> Callable[[FuncT], FuncT]: ...
    def instructions(self, func: Any = None, /) -> Any:
        """Register a function (with or without `RunContext`, sync or async) that returns instructions.

        Instructions are re-evaluated for every model request; returning `None` adds nothing.
        """

        def register(f: Any) -> Any:
            self._instructions.append(f)
            return f

        return register(func) if func is not None else register

    @overload
    def system_prompt(self, func: FuncT, /) -> FuncT: ...
    @overload
    def system_prompt(self, /, *, dynamic: bool = False) -> Callable[[FuncT], FuncT]: ...
    def system_prompt(self, func: Any = None, /, *, dynamic: bool = False) -> Any:
        """Register a function that returns a system prompt (added to the first request of a new conversation).

        With `dynamic=True` the prompt is re-evaluated on later runs that continue the conversation.
        """

        def register(f: Any) -> Any:
            self._system_prompts.append(SystemPromptRunner(f, dynamic=dynamic))
            return f

        return register(func) if func is not None else register

    def output_validator(self, func: FuncT, /) -> FuncT:
        """Register an output validator: `(ctx, output) -> output` or `(output) -> output`, sync or async.

        It may transform the output, or raise `ModelRetry` to ask the model to try again.
        """
        self._output_validators.append(OutputValidator(func))
        return func
