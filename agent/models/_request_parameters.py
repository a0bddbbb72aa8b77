"""What a model can do (`ModelProfile`) and what one request asks of it (`ModelRequestParameters`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from agent._json_schema import JsonSchemaTransformer
from agent._tool_def import ToolDefinition
from agent.builtin_tools import NativeToolValue

__all__ = (
    'DEFAULT_PROMPTED_OUTPUT_TEMPLATE',
    'ModelProfile',
    'ModelRequestParameters',
    'OutputMode',
    'OutputObjectDefinition',
    'StructuredOutputMode',
)

StructuredOutputMode: TypeAlias = Literal['tool', 'native', 'prompted']
"""How structured output is obtained: an output tool, the provider's JSON schema mode, or a prompt."""

OutputMode: TypeAlias = Literal['text', 'tool', 'native', 'prompted', 'tool_or_text', 'image', 'auto']
"""How the final output of a request is expected; `'auto'` lets the model's profile pick a structured mode."""


DEFAULT_PROMPTED_OUTPUT_TEMPLATE = (
    'Always respond with a JSON object that matches this JSON schema:\n\n{schema}\n\n'
    'Reply with the JSON object only, with no text or Markdown code fence around it.'
)
"""The default instructions for prompted output."""


@dataclass
class ModelProfile:
    """The capabilities of a model, used to shape requests to it."""

    supports_tools: bool = True
    """Whether the model accepts function tool definitions."""
    supports_json_schema_output: bool = False
    """Whether the provider can constrain output to a JSON schema (`'native'` output mode)."""
    supports_json_object_output: bool = False
    """Whether the provider can constrain output to some JSON object."""
    supports_image_output: bool = False
    """Whether the model can produce images as output."""
    default_structured_output_mode: StructuredOutputMode = 'tool'
    """The structured output mode used when a request's output mode is `'auto'`."""
    prompted_output_template: str = DEFAULT_PROMPTED_OUTPUT_TEMPLATE
    """The instructions asking for prompted output; `{schema}` is replaced by the output's JSON schema."""
    native_output_requires_schema_in_instructions: bool = False
    """Whether native output also needs the schema in the instructions (the prompted template is then sent)."""
    supported_native_tools: frozenset[str] = frozenset()
    """Kinds of provider-side tools the model supports ('web_search', 'code_execution', 'web_fetch', ...)."""
    supports_thinking: bool = False
    """Whether the model can be asked to think/reason before answering."""
    json_schema_transformer: type[JsonSchemaTransformer] | None = None
    """Rewrites tool and output schemas into what the provider accepts (`None`: sent as they are)."""


@dataclass
class OutputObjectDefinition:
    """A JSON schema the response text must conform to (`'native'` and `'prompted'` output modes)."""

    json_schema: dict[str, Any]
    """The schema of the output object."""
    name: str | None = None
    """A name for the schema, sent to providers that want one."""
    description: str | None = None
    """What the output is."""
    strict: bool | None = None
    """Whether to ask the provider for strict schema adherence."""


@dataclass(kw_only=True)
class ModelRequestParameters:
    """Everything about a request besides the messages and settings: tools and the expected output.

    Plain data, so a request can be handed to another process (e.g. a durable activity) as is.
    """

    function_tools: list[ToolDefinition] = field(default_factory=list[ToolDefinition])
    """Tools the model may call, which run here (or are deferred)."""
    native_tools: list[NativeToolValue] = field(default_factory=list[Any])
    """Provider-side tools (web search, code execution, ...; see `agent.builtin_tools`), each with a `kind`."""
    output_mode: OutputMode = 'text'
    """How the final output is expected."""
    output_object: OutputObjectDefinition | None = None
    """The output schema for the `'native'` and `'prompted'` output modes."""
    output_tools: list[ToolDefinition] = field(default_factory=list[ToolDefinition])
    """Tools whose call is the final output (`'tool'` and `'tool_or_text'` output modes)."""
    prompted_output_template: str | Literal[False] | None = None
    """Instructions asking for the output object (`{schema}` stands for its JSON schema); `None` until the model
    fills in its profile's template for the `'prompted'` mode, `False` for none."""
    allow_text_output: bool = True
    """Whether plain text is an acceptable final output."""
    allow_image_output: bool = False
    """Whether an image is an acceptable final output."""

    @property
    def prompted_output_instructions(self) -> str | None:
        """The instructions asking for the output object, from the template and the object's schema."""
        output = self.output_object
        if not self.prompted_output_template or output is None:
            return None
        schema = dict(output.json_schema)
        if output.name:
            schema['title'] = output.name
        if output.description:
            schema['description'] = output.description
        template = self.prompted_output_template
        if '{schema}' not in template:
            template = f'{template}\n\n{{schema}}'
        # `replace`, not `format`: a template may hold other braces (a JSON example, say).
        return template.replace('{schema}', json.dumps(schema, ensure_ascii=False))

    @property
    def builtin_tools(self) -> list[Any]:
        """Older name of `native_tools`."""
        return self.native_tools

    @property
    def tool_defs(self) -> dict[str, ToolDefinition]:
        """Function and output tool definitions by name."""
        return {tool_def.name: tool_def for tool_def in [*self.function_tools, *self.output_tools]}
