"""What the Chat Completions and Responses models share: profiles, reasoning effort and strict JSON schemas."""

from __future__ import annotations

from typing import Any, cast

from agent._tool_def import ToolDefinition
from agent.providers import Provider
from agent.settings import ModelSettings

from ._request_parameters import ModelProfile, OutputObjectDefinition

__all__ = (
    'REASONING_MODEL_PREFIXES',
    'is_openai_api',
    'openai_profile',
    'output_schema_format',
    'reasoning_effort',
    'strict_schema',
    'tool_strict',
)

REASONING_MODEL_PREFIXES = ('o1', 'o3', 'o4', 'gpt-5')
"""OpenAI models that reason (and accept a reasoning effort)."""

DEFAULT_OUTPUT_NAME = 'final_result'


def is_openai_api(provider: Provider) -> bool:
    """Whether requests go to OpenAI's own API rather than a compatible server."""
    return bool(getattr(provider, 'is_openai', False))


def openai_profile(model_name: str, provider: Provider, *, native_tools: frozenset[str]) -> ModelProfile:
    """What an OpenAI (or OpenAI-compatible) model supports.

    Compatible servers decide for themselves which parameters they honour, so a model behind another base URL
    is assumed able to think; OpenAI itself rejects a reasoning effort for models that do not reason.
    """
    reasons = model_name.startswith(REASONING_MODEL_PREFIXES) or not is_openai_api(provider)
    return ModelProfile(
        supports_json_schema_output=True,
        supports_json_object_output=True,
        supports_image_output='image_generation' in native_tools,
        default_structured_output_mode='tool',
        supported_native_tools=native_tools,
        supports_thinking=reasons,
    )


def reasoning_effort(settings: ModelSettings, profile: ModelProfile) -> str | None:
    """The reasoning effort for `settings['thinking']`: `True` is `'medium'`, `False` (or unset) sends nothing.

    OpenAI's reasoning models cannot all turn reasoning off, so `False` leaves each model at its default.
    """
    thinking = settings.get('thinking')
    if not profile.supports_thinking or thinking is None or thinking is False:
        return None
    return 'medium' if thinking is True else thinking


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
