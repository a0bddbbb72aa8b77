"""The output specification under the private module path Pydantic AI code imports it from (`pydantic_ai._output`).

The markers live in `agent.output` and the resolved schemas in `_output_schema`; this module only gathers them.
"""

from dataclasses import dataclass, field
from typing import Any, Generic

from typing_extensions import TypeAliasType, TypeVar

from ._output_schema import NativeOutputSchema, OutputSchema, OutputToolDef, OutputValidator, PromptedOutputSchema
from .output import NativeOutput, PromptedOutput, TextOutput, ToolOutput

T_co = TypeVar('T_co', covariant=True)

# `agent.output.OutputSpec` with a type parameter, as code written for Pydantic AI subscripts it (`OutputSpec[str]`).
# It stands for `Any` to type checkers: the union it describes nests sequences of itself.
OutputSpec = TypeAliasType('OutputSpec', Any, type_params=(T_co,))
"""What `output_type=` accepts, parametrized by the output it produces."""


class TextOutputProcessor:
    """How plain response text becomes the output: it is the output as it is, neither parsed nor passed on."""

    async def process(self, text: str) -> str:
        """The output `text` carries: `text` itself."""
        return text


@dataclass
class TextOutputSchema(OutputSchema, Generic[T_co]):
    """The output schema of plain text output (`output_type=str`): the response text is the output."""

    allows_text: bool = True
    allows_deferred_tool_requests: bool = False
    tools: dict[str, OutputToolDef] = field(default_factory=dict[str, OutputToolDef])


__all__ = (
    'NativeOutput',
    'NativeOutputSchema',
    'OutputSchema',
    'OutputSpec',
    'OutputToolDef',
    'OutputValidator',
    'PromptedOutput',
    'PromptedOutputSchema',
    'TextOutput',
    'TextOutputProcessor',
    'TextOutputSchema',
    'ToolOutput',
)
