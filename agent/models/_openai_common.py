"""What the Chat Completions and Responses models share: profiles, reasoning effort and strict JSON schemas."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from typing_extensions import deprecated

from agent._tool_def import ToolDefinition
from agent.profiles.openai import OPENAI_REASONING_EFFORT_MAP, openai_model_profile
from agent.providers import Provider
from agent.settings import ModelSettings

from ._request_parameters import ModelProfile, ModelRequestParameters, OutputObjectDefinition

__all__ = (
    'OpenAIChatModelSettings',
    'OpenAIModelSettings',
    'OpenAIResponsesModelSettings',
    'is_openai_api',
    'openai_profile',
    'openai_reasoning',
    'openai_reasoning_effort',
    'output_schema_format',
    'strict_schema',
    'tool_strict',
)


class OpenAIChatModelSettings(ModelSettings, total=False):
    """Settings for `OpenAIChatModel`: the common ones plus OpenAI's own, all prefixed `openai_`."""

    openai_reasoning_effort: str
    """The `reasoning_effort` sent as is (`'none'`, `'minimal'`, `'low'`, ...); wins over `thinking`."""


@deprecated('Use `OpenAIChatModelSettings` instead.')
class OpenAIModelSettings(OpenAIChatModelSettings, total=False):
    """The former name of `OpenAIChatModelSettings`."""


class OpenAIResponsesModelSettings(OpenAIChatModelSettings, total=False):
    """Settings for `OpenAIResponsesModel`: the Chat Completions ones plus the reasoning summary."""

    openai_reasoning_summary: str
    """The reasoning summary asked for (`'auto'`, `'concise'`, `'detailed'`); `'auto'` while reasoning if unset."""


DEFAULT_OUTPUT_NAME = 'final_result'


def is_openai_api(provider: Provider) -> bool:
    """Whether requests go to OpenAI's own API rather than a compatible server."""
    return bool(getattr(provider, 'is_openai', False))


def openai_profile(model_name: str, provider: Provider, *, native_tools: frozenset[str]) -> ModelProfile:
    """What an OpenAI (or OpenAI-compatible) model supports: `openai_model_profile` with the API's native tools.

    Compatible servers decide for themselves which parameters they honour, so a model behind another base URL is
    assumed able to think (and to be told not to); OpenAI itself rejects a reasoning effort for models that do
    not reason. A provider that knows its models (Cerebras, OpenRouter) gives the profile through its
    `model_profile`.
    """
    own_profile = getattr(provider, 'model_profile', None)
    if callable(own_profile):
        return cast(ModelProfile, own_profile(model_name))
    profile = replace(
        openai_model_profile(model_name),
        supports_image_output='image_generation' in native_tools,
        supported_native_tools=native_tools,
    )
    if is_openai_api(provider):
        return profile
    return replace(profile, supports_thinking=True, thinking_always_enabled=False)


def openai_reasoning_effort(settings: ModelSettings, params: ModelRequestParameters) -> str | None:
    """The `reasoning_effort`: `openai_reasoning_effort` if set, else the resolved `params.thinking` mapped by
    `OPENAI_REASONING_EFFORT_MAP` (`False` is `'none'`); `None` leaves it out."""
    explicit = cast(OpenAIChatModelSettings, settings).get('openai_reasoning_effort')
    if explicit:
        return explicit
    return None if params.thinking is None else OPENAI_REASONING_EFFORT_MAP[params.thinking]


def openai_reasoning(settings: ModelSettings, params: ModelRequestParameters) -> dict[str, Any] | None:
    """The Responses API's `reasoning` object (`effort`, and `summary` if `openai_reasoning_summary` is set)."""
    reasoning: dict[str, Any] = {}
    if effort := openai_reasoning_effort(settings, params):
        reasoning['effort'] = effort
    if summary := cast(OpenAIResponsesModelSettings, settings).get('openai_reasoning_summary'):
        reasoning['summary'] = summary
    return reasoning or None


def tool_strict(tool_def: ToolDefinition) -> tuple[dict[str, Any], bool]:
    """The parameters schema to send and whether to ask for strict arguments (only when the tool asks)."""
    if tool_def.strict:
        return strict_schema(tool_def.parameters_json_schema), True
    return tool_def.parameters_json_schema, False


def output_schema_format(output: OutputObjectDefinition) -> dict[str, Any]:
    """The `json_schema` format of a native structured output: strict unless the schema cannot be."""
    strict = output.strict if output.strict is not None else is_strict_compatible(output.json_schema)
    schema = strict_schema(output.json_schema) if strict else output.json_schema
    result: dict[str, Any] = {'name': output.name or DEFAULT_OUTPUT_NAME, 'schema': schema, 'strict': strict}
    if output.description:
        result['description'] = output.description
    return result


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with `additionalProperties: false` on every object, as strict mode requires."""
    return cast('dict[str, Any]', _strict(schema))


def _strict(node: Any) -> Any:
    if isinstance(node, list):
        return [_strict(item) for item in cast('list[Any]', node)]
    if not isinstance(node, dict):
        return node
    result = {key: _strict(value) for key, value in cast('dict[str, Any]', node).items()}
    if result.get('type') == 'object' and 'additionalProperties' not in result:
        result['additionalProperties'] = False
    if result.get('type') == 'object' and not result.get('properties') and 'required' not in result:
        # Strict mode wants every object to list its required properties, even when it has none.
        result['required'] = []
    return result


def is_strict_compatible(schema: Any) -> bool:
    """Whether strict mode accepts `schema` as is: every object property required, no open objects."""
    if isinstance(schema, list):
        return all(is_strict_compatible(item) for item in cast('list[Any]', schema))
    if not isinstance(schema, dict):
        return True
    node = cast('dict[str, Any]', schema)
    if node.get('type') == 'object':
        properties = cast('dict[str, Any]', node.get('properties') or {})
        if set(cast('list[str]', node.get('required') or [])) != set(properties):
            return False
        if node.get('additionalProperties') not in (None, False):
            return False
    return all(is_strict_compatible(value) for value in node.values())
