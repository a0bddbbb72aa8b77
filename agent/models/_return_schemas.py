"""Which tool return schemas reach the model, and how: the last step of preparing a request's function tools.

A tool's return schema is computed whenever the tool is defined but only sent when the tool opts in
(`include_return_schema=True`, directly or through `IncludeToolReturnSchemas`). A model whose API takes a
return schema (`ModelProfile.supports_tool_return_schema`) gets it as it is; any other model gets it as text
at the end of the tool's description, so the model still learns what the tool gives back.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import replace

from agent._tool_def import ToolDefinition

from ._request_parameters import ModelProfile, ModelRequestParameters

__all__ = ('prepare_return_schemas',)

_HEADING = 'Return schema:'


def prepare_return_schemas(params: ModelRequestParameters, profile: ModelProfile) -> ModelRequestParameters:
    """`params` with each function tool's return schema kept, moved into its description, or dropped.

    Warns (`UserWarning`) for a tool that opted in but has no meaningful return schema (none at all, as for an
    MCP tool without an output schema, or `{}` for an untyped function), which would otherwise be a silent no-op.
    """
    tools = [_prepared(tool_def, inline=not profile.supports_tool_return_schema) for tool_def in params.function_tools]
    if all(new is old for new, old in zip(tools, params.function_tools, strict=True)):
        return params
    return replace(params, function_tools=tools)


def _prepared(tool_def: ToolDefinition, *, inline: bool) -> ToolDefinition:
    if not tool_def.include_return_schema:
        return tool_def if tool_def.return_schema is None else replace(tool_def, return_schema=None)
    if not tool_def.return_schema:
        # Preparing a prepared request again finds the schema already in the description: nothing is missing.
        if _HEADING not in (tool_def.description or ''):
            warnings.warn(
                f'Tool {tool_def.name!r} has `include_return_schema` enabled but no meaningful return schema was '
                'generated. Set `include_return_schema=False` on this tool to suppress this warning.',
                UserWarning,
                stacklevel=1,
            )
        return tool_def if tool_def.return_schema is None else replace(tool_def, return_schema=None)
    if not inline:
        return tool_def
    schema_text = f'{_HEADING}\n\n{json.dumps(tool_def.return_schema, indent=2)}'
    description = f'{tool_def.description}\n\n{schema_text}' if tool_def.description else schema_text
    return replace(tool_def, description=description, return_schema=None)
