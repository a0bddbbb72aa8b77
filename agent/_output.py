"""The output specification under the private module path Pydantic AI code imports it from (`pydantic_ai._output`).

The markers live in `agent.output` and the resolved schemas in `_output_schema`; this module only gathers them.
"""

from typing import Any

from typing_extensions import TypeAliasType, TypeVar

from ._output_schema import NativeOutputSchema, OutputSchema, OutputToolDef, OutputValidator, PromptedOutputSchema
from .output import NativeOutput, PromptedOutput, TextOutput, ToolOutput

T_co = TypeVar('T_co', covariant=True)

# `agent.output.OutputSpec` with a type parameter, as code written for Pydantic AI subscripts it (`OutputSpec[str]`).
# It stands for `Any` to type checkers: the union it describes nests sequences of itself.
OutputSpec = TypeAliasType('OutputSpec', Any, type_params=(T_co,))
"""What `output_type=` accepts, parametrized by the output it produces."""

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
    'ToolOutput',
)
