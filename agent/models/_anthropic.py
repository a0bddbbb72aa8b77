"""`AnthropicModel`: Claude through the Messages API (`POST {base_url}/v1/messages`)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, cast

from agent._events import ModelResponseStreamEvent
from agent._parts import ModelMessage, ModelResponse, ModelResponsePart
from agent._tool_def import ToolDefinition
from agent.exceptions import ModelAPIError, ModelHTTPError, UserError
from agent.profiles.anthropic import ANTHROPIC_THINKING_BUDGET_MAP, AnthropicModelProfile, anthropic_model_profile
from agent.providers import Provider
from agent.settings import ModelSettings, merge_model_settings

from . import ModelProfile, ModelRequestParameters, StreamedResponse
from ._anthropic_messages import (
    anthropic_finish_reason,
    anthropic_messages,
    anthropic_usage,
    block_part,
    native_call_part,
)
from ._anthropic_settings import AnthropicModelSettings, anthropic_output_config, anthropic_thinking, check_task_budget
from ._http import HTTPCall
from ._http_model import HTTPModel, HTTPStreamedResponse
from ._native_tools import native_field, native_kind
from ._sse import JSONEvent
from ._tool_choice import ToolChoiceMode, tools_for_request
from ._wire import (
    as_dict,
    as_list,
    drop_none,
    join_instructions,
    last_instructions,
    prompted_output_instructions,
    with_extras,
)

__all__ = ('THINKING_BUDGETS', 'AnthropicModel', 'AnthropicStreamedResponse')

DEFAULT_MAX_TOKENS = 4096
"""The Messages API requires `max_tokens`; this is used when the settings leave it out."""

THINKING_BUDGETS: dict[str, int] = {
    level: budget for level, budget in ANTHROPIC_THINKING_BUDGET_MAP.items() if isinstance(level, str)
}
"""Thinking token budgets per effort level, for models without adaptive thinking (`thinking=True`: 10000)."""

_BETAS = {'code_execution': 'code-execution-2025-08-25', 'web_fetch': 'web-fetch-2025-09-10'}
_MCP_BETA = 'mcp-client-2025-04-04'


class AnthropicModel(HTTPModel):
    """A Claude model.

    ```python
    from agent.models.anthropic import AnthropicModel

    model = AnthropicModel('claude-sonnet-4-5')  # key from ANTHROPIC_API_KEY
    ```
    """

    def __init__(
        self,
        model_name: str,
        *,
        provider: Provider | str = 'anthropic',
        profile: ModelProfile | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Create a model.

        Args:
            model_name: The model, e.g. `'claude-sonnet-4-5'`.
            provider: An `AnthropicProvider`, or `'anthropic'` to build one from `ANTHROPIC_API_KEY`.
            profile: What the model supports; Anthropic's defaults when omitted.
            settings: Default settings for every request.

        Raises:
            UserError: if the provider is built from the environment and the API key is missing.
        """
        from agent.providers import infer_provider

        resolved = infer_provider(provider) if isinstance(provider, str) else provider
        super().__init__(model_name, provider=resolved, profile=profile, settings=settings)

    @classmethod
    def default_profile(cls, model_name: str, provider: Provider) -> ModelProfile:
        """`anthropic_model_profile`: tools for structured output, thinking (Claude 3.7 and later, adaptive on the
        newest), and Anthropic's server tools."""
        return anthropic_model_profile(model_name)

    def build_call(
        self,
        messages: list[ModelMessage],
        settings: ModelSettings,
        params: ModelRequestParameters,
        *,
        stream: bool,
    ) -> HTTPCall:
        """The Messages API request (seeds have no Anthropic equivalent)."""
        native_tools = params.native_tools  # settled by `prepare_request`: all supported
        system_prompts, wire_messages = anthropic_messages(messages)
        system = join_instructions(last_instructions(messages), *system_prompts, prompted_output_instructions(params))
        check_task_budget(self.profile, self.model_name, settings)
        thinking = self._translate_thinking(settings, params)
        max_tokens = _max_tokens(settings, thinking)
        sampling = not AnthropicModelProfile.from_profile(self.profile).anthropic_disallows_sampling_settings
        choice = tools_for_request(settings, params)
        tools = [_tool(tool_def) for tool_def in choice.tools]
        tools += [_native_tool(tool) for tool in native_tools if native_kind(tool) != 'mcp_server']
        body: dict[str, Any] = {
            'model': self.model_name,
            'max_tokens': max_tokens,
            'system': system,
            'messages': wire_messages,
            'temperature': settings.get('temperature') if sampling else None,
            'top_p': settings.get('top_p') if sampling else None,
            'stop_sequences': settings.get('stop_sequences'),
            'thinking': thinking,
            'tools': tools or None,
            'tool_choice': _tool_choice(choice.mode, settings, thinking) if tools else None,
            'mcp_servers': [_mcp_server(t) for t in native_tools if native_kind(t) == 'mcp_server'] or None,
            'output_config': self._build_output_config(params, settings),
        }
        if stream:
            body['stream'] = True
        return HTTPCall(
            url=self.provider.url('v1/messages'),
            body=with_extras(drop_none(body), settings),
            headers=self._headers_with_betas(settings, native_tools),
            timeout=settings.get('timeout'),
        )

    def prepare_request(
        self, model_settings: ModelSettings | None, model_request_parameters: ModelRequestParameters
    ) -> tuple[ModelSettings | None, ModelRequestParameters]:
        """As `Model.prepare_request`; with thinking on, an `'auto'` output mode is native output (or prompted output
        without it) rather than output tools, since a thinking Claude cannot be made to call a tool.

        Raises:
            UserError: as `Model.prepare_request`, or if `anthropic_thinking` asks for budget thinking of a model
                that only thinks adaptively.
        """
        merged = merge_model_settings(self.settings, model_settings) or ModelSettings()
        explicit = cast(AnthropicModelSettings, merged).get('anthropic_thinking')
        adaptive_only = AnthropicModelProfile.from_profile(self.profile).anthropic_disallows_budget_thinking
        if adaptive_only and explicit and explicit.get('type') == 'enabled':
            raise UserError(
                f"{self.model_name!r} only thinks adaptively: use `anthropic_thinking={{'type': 'adaptive'}}` (with "
                '`anthropic_effort=...` for the depth) rather than a token budget.'
            )
        thinking_on = explicit.get('type') in ('enabled', 'adaptive') if explicit else bool(merged.get('thinking'))
        params = model_request_parameters
        if thinking_on and params.output_tools:
            params = params.with_default_output_mode(
                'native' if self.profile.supports_json_schema_output else 'prompted'
            )
        return super().prepare_request(model_settings, params)

    def _translate_thinking(self, settings: ModelSettings, params: ModelRequestParameters) -> dict[str, Any] | None:
        """The `thinking` parameter: `anthropic_thinking` if set, else the resolved `params.thinking` mapped by the
        profile (adaptive, or a token budget); `None` leaves it out."""
        return anthropic_thinking(self.profile, settings, params)

    def _build_output_config(self, params: ModelRequestParameters, settings: ModelSettings) -> dict[str, Any] | None:
        """The `output_config` parameter: native output's format, the effort and the task budget."""
        return anthropic_output_config(self.profile, settings, params)

    def _headers_with_betas(self, settings: ModelSettings, native_tools: list[Any]) -> dict[str, str]:
        kinds = {native_kind(tool) for tool in native_tools}
        betas = [beta for kind, beta in _BETAS.items() if kind in kinds] + (
            [_MCP_BETA] if 'mcp_server' in kinds else []
        )
        user_betas = settings.get('extra_headers', {}).get('anthropic-beta', '')
        betas += [beta.strip() for beta in user_betas.split(',') if beta.strip() and beta.strip() not in betas]
        headers = self.headers(settings)
        if betas:
            headers['anthropic-beta'] = ','.join(betas)
        return headers

    def parse_response(self, data: dict[str, Any], params: ModelRequestParameters) -> ModelResponse:
        """The response in a `message` object."""
        call_names: dict[str, str] = {}
        parts: list[ModelResponsePart] = []
        for block in as_list(data.get('content')):
            part = block_part(as_dict(block), call_names)
            if part is not None:
                parts.append(part)
        stop_reason = data.get('stop_reason')
        return ModelResponse(
            parts=parts,
            usage=anthropic_usage(as_dict(data.get('usage'))),
            model_name=str(data.get('model') or self.model_name),
            provider_name=self.system,
            # Pydantic AI reports the SDK client's base URL, which always ends with a slash.
            provider_url=f'{self.base_url}/',
            provider_response_id=data.get('id'),
            finish_reason=anthropic_finish_reason(stop_reason),
            provider_details={'stop_reason': stop_reason} if stop_reason else None,
        )

    def stream_response(self, events: AsyncIterator[JSONEvent], params: ModelRequestParameters) -> StreamedResponse:
        """A response reading Messages API stream events."""
        return AnthropicStreamedResponse(
            params, events, model_name=self.model_name, provider_name=self.system, provider_url=f'{self.base_url}/'
        )


class AnthropicStreamedResponse(HTTPStreamedResponse):
    """Part events from Messages API stream events (`content_block_start`, `content_block_delta`, ...).

    Content blocks are numbered by `index`; server tool calls are buffered until their input is complete,
    since native tool call parts are emitted whole.
    """

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        raw_usage: dict[str, Any] = {}
        pending_native: dict[Any, tuple[dict[str, Any], list[str]]] = {}
        call_names: dict[str, str] = {}
        async for event in self._events:
            data = as_dict(event.data)
            kind = data.get('type') or event.event
            index = data.get('index')
            vendor_id = ('block', index)
            part_event: ModelResponseStreamEvent | None = None
            if kind == 'message_start':
                message = as_dict(data.get('message'))
                self.provider_response_id = message.get('id')
                self._model_name = str(message.get('model') or self._model_name)
                raw_usage.update(as_dict(message.get('usage')))
                self._usage = anthropic_usage(raw_usage)
            elif kind == 'content_block_start':
                block = as_dict(data.get('content_block'))
                block_type = block.get('type')
                if block_type == 'text':
                    part_event = self._text(vendor_id, str(block.get('text', '')))
                elif block_type == 'thinking':
                    part_event = self._thinking(vendor_id, str(block.get('thinking', '')) or None)
                elif block_type == 'tool_use':
                    args = as_dict(block.get('input')) or None
                    part_event = self._parts_manager.handle_tool_call_delta(
                        vendor_part_id=vendor_id,
                        tool_name=str(block.get('name')),
                        args=args,
                        tool_call_id=block.get('id'),
                    )
                elif block_type in ('server_tool_use', 'mcp_tool_use'):
                    pending_native[index] = (block, [])
                else:
                    part = block_part(block, call_names)
                    if part is not None:
                        part_event = self._parts_manager.handle_part(vendor_part_id=vendor_id, part=part)
            elif kind == 'content_block_delta':
                part_event = self._delta(vendor_id, as_dict(data.get('delta')), pending_native.get(index))
            elif kind == 'content_block_stop' and index in pending_native:
                block, chunks = pending_native.pop(index)
                args = json.loads(''.join(chunks)) if ''.join(chunks).strip() else block.get('input')
                part = native_call_part(block, args)
                call_names[part.tool_call_id] = part.tool_name
                part_event = self._parts_manager.handle_part(vendor_part_id=vendor_id, part=part)
            elif kind == 'message_delta':
                stop_reason = as_dict(data.get('delta')).get('stop_reason')
                if stop_reason:
                    self.finish_reason = anthropic_finish_reason(stop_reason)
                    self.provider_details = {'stop_reason': stop_reason}
                raw_usage.update({k: v for k, v in as_dict(data.get('usage')).items() if v is not None})
                self._usage = anthropic_usage(raw_usage)
            elif kind == 'error':
                raise _stream_error(self.model_name, as_dict(data.get('error')))
            if part_event is not None:
                yield part_event

    def _delta(
        self, vendor_id: Any, delta: dict[str, Any], pending: tuple[dict[str, Any], list[str]] | None
    ) -> ModelResponseStreamEvent | None:
        delta_type = delta.get('type')
        if delta_type == 'text_delta':
            return self._text(vendor_id, str(delta.get('text', '')))
        if delta_type == 'thinking_delta':
            return self._thinking(vendor_id, str(delta.get('thinking', '')))
        if delta_type == 'signature_delta':
            return self._thinking(vendor_id, signature=str(delta.get('signature', '')))
        if delta_type == 'input_json_delta':
            if pending is not None:
                pending[1].append(str(delta.get('partial_json', '')))
                return None
            return self._parts_manager.handle_tool_call_delta(
                vendor_part_id=vendor_id, args=str(delta.get('partial_json', ''))
            )
        return None


def _stream_error(model_name: str, error: dict[str, Any]) -> Exception:
    # An overloaded API reports itself mid-stream; outside a stream the same condition is an HTTP 529.
    if error.get('type') == 'overloaded_error':
        return ModelHTTPError(529, model_name, {'type': 'error', 'error': error})
    return ModelAPIError(model_name, f'The stream reported an error: {error}')


def _max_tokens(settings: ModelSettings, thinking: dict[str, Any] | None) -> int:
    """`max_tokens`, which must leave room for the answer after a thinking budget.

    Unset, it is the budget plus `DEFAULT_MAX_TOKENS`; set at or below the budget, the budget is what gives way
    (in `thinking`, which is changed in place).
    """
    max_tokens = settings.get('max_tokens')
    budget = thinking.get('budget_tokens') if thinking and thinking.get('type') == 'enabled' else None
    if not isinstance(budget, int):
        return max_tokens or DEFAULT_MAX_TOKENS
    if max_tokens is None:
        return budget + DEFAULT_MAX_TOKENS
    if budget >= max_tokens:
        assert thinking is not None
        thinking['budget_tokens'] = max(ANTHROPIC_THINKING_BUDGET_MAP['minimal'], max_tokens - 1)
    return max_tokens


def _tool(tool_def: ToolDefinition) -> dict[str, Any]:
    return drop_none(
        {'name': tool_def.name, 'description': tool_def.description, 'input_schema': tool_def.parameters_json_schema}
    )


def _tool_choice(
    mode: ToolChoiceMode, settings: ModelSettings, thinking: dict[str, Any] | None
) -> dict[str, Any] | None:
    # With thinking on, Anthropic only accepts an `auto` (or `none`) tool choice: a required call becomes optional.
    thinking_on = bool(thinking and thinking.get('type') in ('enabled', 'adaptive'))
    kind = {'auto': 'auto', 'none': 'none', 'required': 'auto' if thinking_on else 'any'}[mode]
    choice: dict[str, Any] = {'type': kind}
    if settings.get('parallel_tool_calls') is False and kind != 'none':
        choice['disable_parallel_tool_use'] = True
    return choice if kind != 'auto' or len(choice) > 1 else None


def _native_tool(tool: Any) -> dict[str, Any]:
    kind = native_kind(tool)
    if kind == 'code_execution':
        return {'type': 'code_execution_20250825', 'name': 'code_execution'}
    location = native_field(tool, 'user_location')
    fields = {key: native_field(location, key) for key in ('city', 'country', 'region', 'timezone')} if location else {}
    common = {
        'max_uses': native_field(tool, 'max_uses'),
        'allowed_domains': native_field(tool, 'allowed_domains'),
        'blocked_domains': native_field(tool, 'blocked_domains'),
    }
    if kind == 'web_fetch':
        citations = {'enabled': True} if native_field(tool, 'enable_citations') else None
        return drop_none(
            {
                'type': 'web_fetch_20250910',
                'name': 'web_fetch',
                **common,
                'citations': citations,
                'max_content_tokens': native_field(tool, 'max_content_tokens'),
            }
        )
    user_location = {'type': 'approximate', **drop_none(fields)} if fields else None
    return drop_none({'type': 'web_search_20250305', 'name': 'web_search', **common, 'user_location': user_location})


def _mcp_server(tool: Any) -> dict[str, Any]:
    allowed = native_field(tool, 'allowed_tools')
    configuration = {'enabled': True, 'allowed_tools': list(allowed)} if allowed else None
    return drop_none(
        {
            'type': 'url',
            'url': native_field(tool, 'url'),
            'name': native_field(tool, 'id'),
            'authorization_token': native_field(tool, 'authorization_token'),
            'tool_configuration': configuration,
        }
    )
