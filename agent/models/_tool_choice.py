"""Turning the `tool_choice` setting into the tools a request sends and the mode it asks for.

`ModelSettings.tool_choice` speaks about *function* tools only; output tools belong to the output type. Every
provider understands three modes (`'auto'`, `'none'`, `'required'`), so a choice settles into the tool
definitions to send plus one of those modes. Restricting to some tools is done by sending only those: every
provider honours that, where "allowed tools" lists are provider-specific.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from agent._tool_def import ToolDefinition
from agent.exceptions import UserError
from agent.settings import ModelSettings, ToolChoice, ToolOrOutput

from ._request_parameters import ModelRequestParameters

__all__ = ('ToolChoiceMode', 'ToolsForRequest', 'tools_for_request')

ToolChoiceMode = Literal['auto', 'none', 'required']
"""`'auto'`: the model may answer or call a tool; `'none'`: no tool calls; `'required'`: it must call a tool."""


@dataclass(frozen=True)
class ToolsForRequest:
    """The tool definitions a request sends, and whether the model may, must or must not call them."""

    tools: list[ToolDefinition]
    """Function and output tools to send, in that order."""
    mode: ToolChoiceMode
    """How the model is to use them."""


def tools_for_request(settings: ModelSettings | None, params: ModelRequestParameters) -> ToolsForRequest:
    """Settle `settings['tool_choice']` against the request's tools.

    Raises:
        UserError: for `'required'` without function tools, or a list naming none of the available tools.
    """
    choice = _revived((settings or {}).get('tool_choice'))
    function_tools, output_tools = params.function_tools, params.output_tools
    ends_freely = params.allow_text_output or params.allow_image_output
    # Without text or image output the run can only end through an output tool, so some tool call is needed.
    free: ToolChoiceMode = 'auto' if ends_freely else 'required'
    if choice is None or choice == 'auto':
        return ToolsForRequest([*function_tools, *output_tools], free)
    if choice == 'none' or choice == []:
        return _output_only(function_tools, output_tools, free)
    if choice == 'required':
        if not function_tools:
            raise UserError(
                "tool_choice='required' needs function tools, but this request has none; "
                "use 'auto' or 'none', or give the agent tools."
            )
        return ToolsForRequest(list(function_tools), 'required')
    if isinstance(choice, ToolOrOutput):
        if not choice.function_tools:
            return _output_only(function_tools, output_tools, free)
        chosen = _chosen(choice.function_tools, function_tools, 'function tools')
        return ToolsForRequest([*chosen, *output_tools], free)
    chosen = _chosen(choice, [*function_tools, *output_tools], 'tools')
    return ToolsForRequest(chosen, 'required')


def _revived(choice: object) -> ToolChoice:
    """The choice, with a `ToolOrOutput` that crossed a process boundary as a mapping made one again."""
    if isinstance(choice, Mapping):
        names: list[str] = list(cast('Mapping[str, Any]', choice).get('function_tools') or ())
        return ToolOrOutput(function_tools=names)
    return cast(ToolChoice, choice)


def _output_only(
    function_tools: list[ToolDefinition], output_tools: list[ToolDefinition], free: ToolChoiceMode
) -> ToolsForRequest:
    if output_tools:
        return ToolsForRequest(list(output_tools), free)
    # The tools are still sent (with mode 'none'): some providers refuse tool calls in the history otherwise.
    return ToolsForRequest(list(function_tools), 'none')


def _chosen(names: list[str], available: list[ToolDefinition], label: str) -> list[ToolDefinition]:
    known = {tool_def.name for tool_def in available}
    unknown = sorted(set(names) - known)
    if unknown and len(unknown) == len(set(names)):
        raise UserError(f'tool_choice names unknown tools {unknown}; the available {label} are {sorted(known)}')
    if unknown:
        # Toolsets may offer different tools per step, so a partly unknown choice is allowed; a typo still shows.
        warnings.warn(
            f'tool_choice names tools that are not available in this request, ignored: {unknown}; '
            f'the available {label} are {sorted(known)}',
            UserWarning,
            stacklevel=4,
        )
    wanted = set(names)
    return [tool_def for tool_def in available if tool_def.name in wanted]
