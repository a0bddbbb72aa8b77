"""What a model can do (`ModelProfile`) and what one request asks of it (`ModelRequestParameters`)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Self, TypeAlias

from agent._json_schema import JsonSchemaTransformer
from agent._tool_def import ToolDefinition
from agent.builtin_tools import AbstractBuiltinTool, NativeToolValue
from agent.settings import ThinkingLevel

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
    supports_tool_return_schema: bool = False
    """Whether the provider's API takes a function tool's return schema; for other models a tool that opts in gets
    it in its description instead (see `include_return_schema`)."""
    default_structured_output_mode: StructuredOutputMode = 'tool'
    """The structured output mode used when a request's output mode is `'auto'`."""
    prompted_output_template: str = DEFAULT_PROMPTED_OUTPUT_TEMPLATE
    """The instructions asking for prompted output; `{schema}` is replaced by the output's JSON schema."""
    native_output_requires_schema_in_instructions: bool = False
    """Whether native output also needs the schema in the instructions (the prompted template is then sent)."""
    supported_native_tools: frozenset[str | type[AbstractBuiltinTool]] = frozenset()
    """The provider-side tools the model supports, by kind ('web_search', 'code_execution', ...) or by class
    (`WebSearchTool`, as in Pydantic AI); see `agent.builtin_tools.native_kinds`."""
    supports_thinking: bool = False
    """Whether the model can be asked to think/reason before answering (the `thinking` setting reaches it)."""
    thinking_always_enabled: bool = False
    """Whether the model always thinks: `thinking=False` is then ignored, while effort levels still reach it."""
    json_schema_transformer: type[JsonSchemaTransformer] | None = None
    """Rewrites tool and output schemas into what the provider accepts (`None`: sent as they are)."""

    @classmethod
    def from_profile(cls, profile: ModelProfile | None) -> Self:
        """`profile` as this profile class: itself if it already is one, else this class's defaults updated with
        it (so a provider's model can read its own fields whatever profile it was given)."""
        if isinstance(profile, cls):
            return profile
        return cls().update(profile)

    def update(self, profile: ModelProfile | None) -> Self:
        """A copy of this profile with every field that `profile` shares with it and sets to a non-default value."""
        if profile is None:
            return self
        own = {f.name for f in dataclasses.fields(self) if f.init}
        changed = {
            f.name: getattr(profile, f.name)
            for f in dataclasses.fields(profile)
            if f.name in own and getattr(profile, f.name) != _default_of(f)
        }
        return dataclasses.replace(self, **changed)


def _default_of(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


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
    thinking: ThinkingLevel | None = None
    """The thinking asked of this request, resolved by `Model.prepare_request` from the `thinking` setting and
    the model's profile (`None`: the model's default behaviour). Each provider maps it to its own parameters."""

    def with_default_output_mode(self, mode: StructuredOutputMode) -> ModelRequestParameters:
        """These parameters with the `'auto'` output mode settled as `mode`, keeping only the fields that mode uses
        (unchanged when the mode is not `'auto'`). A native or prompted mode needs an output object; without one
        the output tools are used instead."""
        if self.output_mode != 'auto':
            return self
        if mode in ('native', 'prompted') and self.output_object is None:
            mode = 'tool'
        if mode == 'tool':
            return replace(self, output_mode='tool', output_object=None)
        return replace(self, output_mode=mode, output_tools=[], allow_text_output=True)

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
