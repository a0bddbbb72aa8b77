"""`OpenAIResponsesModel`: OpenAI's Responses API (`POST {base_url}/responses`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agent._events import ModelResponseStreamEvent
from agent._parts import ModelMessage, ModelResponse
from agent._tool_def import ToolDefinition
from agent.exceptions import ModelAPIError
from agent.providers import Provider
from agent.settings import ModelSettings

from . import ModelProfile, ModelRequestParameters, StreamedResponse
from ._http import HTTPCall
from ._http_model import HTTPModel, HTTPStreamedResponse
from ._native_tools import native_field, native_kind
from ._openai_common import openai_profile, openai_reasoning, output_schema_format, tool_strict
from ._openai_responses_items import (
    function_call_part,
    native_item_parts,
    responses_finish_reason,
    responses_input,
    responses_output_parts,
    responses_usage,
)
from ._sse import JSONEvent
from ._tool_choice import tools_for_request
from ._wire import (
    as_dict,
    as_list,
    drop_none,
    join_instructions,
    last_instructions,
    prompted_output_instructions,
    with_extras,
)

__all__ = ('OpenAIResponsesModel', 'OpenAIResponsesStreamedResponse')

_NATIVE_TOOLS = frozenset({'web_search', 'code_execution', 'image_generation', 'mcp_server'})


class OpenAIResponsesModel(HTTPModel):
    """A model behind OpenAI's Responses API, with reasoning summaries and OpenAI-run tools."""

    def __init__(
        self,
        model_name: str,
        *,
        provider: Provider | str = 'openai',
        profile: ModelProfile | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Create a model.

        Args:
            model_name: The model, e.g. `'gpt-5.2'`.
            provider: An `OpenAIProvider`, or `'openai'` to build one from `OPENAI_API_KEY` / `OPENAI_BASE_URL`.
            profile: What the model supports; derived from the name when omitted.
            settings: Default settings for every request.

        Raises:
            UserError: if the provider is built from the environment and the API key is missing.
        """
        from agent.providers import infer_provider

        resolved = infer_provider(provider) if isinstance(provider, str) else provider
        super().__init__(model_name, provider=resolved, profile=profile, settings=settings)

    def _translate_thinking(self, settings: ModelSettings, params: ModelRequestParameters) -> dict[str, Any] | None:
        """The `reasoning` object: the effort (`openai_reasoning_effort`, else the resolved `params.thinking`) and
        the `openai_reasoning_summary`; `None` leaves it out."""
        return openai_reasoning(settings, params)

    @classmethod
    def default_profile(cls, model_name: str, provider: Provider) -> ModelProfile:
        """JSON schema output, reasoning for reasoning models, and OpenAI's web search, code interpreter,
        image generation and remote MCP tools."""
        return openai_profile(model_name, provider, native_tools=_NATIVE_TOOLS)

    def build_call(
        self,
        messages: list[ModelMessage],
        settings: ModelSettings,
        params: ModelRequestParameters,
        *,
        stream: bool,
    ) -> HTTPCall:
        """The Responses API request (stop sequences and seeds have no Responses equivalent)."""
        native_tools = params.native_tools  # settled by `prepare_request`: all supported
        choice = tools_for_request(settings, params)
        tools = [_tool(tool_def) for tool_def in choice.tools]
        tools += [_native_tool(tool) for tool in native_tools]
        reasoning = self._translate_thinking(settings, params)
        body: dict[str, Any] = {
            'model': self.model_name,
            'input': responses_input(messages, provider_name=self.system),
            'instructions': join_instructions(last_instructions(messages), prompted_output_instructions(params)),
            'max_output_tokens': settings.get('max_tokens'),
            'temperature': settings.get('temperature'),
            'top_p': settings.get('top_p'),
            'text': _text_format(params, self.profile),
        }
        if tools:
            body['tools'] = tools
            if choice.mode != 'auto':
                body['tool_choice'] = choice.mode
            body['parallel_tool_calls'] = settings.get('parallel_tool_calls')
        if reasoning is not None:
            if reasoning.get('effort') != 'none':
                # A summary is what a thinking part shows; reasoning items are sent back with their encrypted
                # content, so a run does not depend on state stored at OpenAI.
                reasoning = {'summary': 'auto', **reasoning}
                body['include'] = ['reasoning.encrypted_content']
            body['reasoning'] = reasoning
        if stream:
            body['stream'] = True
        return HTTPCall(
            url=self.provider.url('responses'),
            body=with_extras(drop_none(body), settings),
            headers=self.headers(settings),
            timeout=settings.get('timeout'),
        )

    def parse_response(self, data: dict[str, Any], params: ModelRequestParameters) -> ModelResponse:
        """The response in a `response` object.

        Raises:
            ModelAPIError: if the response failed.
        """
        if data.get('status') == 'failed':
            raise ModelAPIError(self.model_name, f'The response failed: {data.get("error")}')
        parts = responses_output_parts(as_list(data.get('output')), provider_name=self.system)
        return ModelResponse(
            parts=parts,
            usage=responses_usage(as_dict(data.get('usage'))),
            model_name=str(data.get('model') or self.model_name),
            provider_name=self.system,
            # Pydantic AI reports the SDK client's base URL, which always ends with a slash.
            provider_url=f'{self.base_url}/',
            provider_response_id=data.get('id'),
            finish_reason=responses_finish_reason(data, parts),
            provider_details={'status': data['status']} if data.get('status') else None,
        )

    def stream_response(self, events: AsyncIterator[JSONEvent], params: ModelRequestParameters) -> StreamedResponse:
        """A response reading Responses API stream events."""
        return OpenAIResponsesStreamedResponse(
            params, events, model_name=self.model_name, provider_name=self.system, provider_url=f'{self.base_url}/'
        )


class OpenAIResponsesStreamedResponse(HTTPStreamedResponse):
    """Part events from Responses API stream events (`response.output_text.delta`, ...)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._streamed_arguments: set[Any] = set()

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        async for event in self._events:
            data = as_dict(event.data)
            kind = data.get('type') or event.event
            item_id = data.get('item_id')
            if kind == 'response.created':
                self.provider_response_id = as_dict(data.get('response')).get('id')
            elif kind == 'response.output_item.added':
                part_event = self._item_added(as_dict(data.get('item')))
                if part_event is not None:
                    yield part_event
            elif kind in ('response.output_text.delta', 'response.refusal.delta'):
                if part_event := self._text(item_id, str(data.get('delta', '')), part_id=item_id):
                    yield part_event
            elif kind == 'response.function_call_arguments.delta':
                self._streamed_arguments.add(item_id)
                part_event = self._parts_manager.handle_tool_call_delta(vendor_part_id=item_id, args=data.get('delta'))
                if part_event is not None:
                    yield part_event
            elif kind in ('response.reasoning_summary_text.delta', 'response.reasoning_text.delta'):
                if part_event := self._thinking(item_id, str(data.get('delta', '')), part_id=item_id):
                    yield part_event
            elif kind == 'response.reasoning_summary_part.added' and data.get('summary_index', 0):
                if part_event := self._thinking(item_id, '\n\n', part_id=item_id):
                    yield part_event
            elif kind == 'response.output_item.done':
                for part_event in self._item_done(as_dict(data.get('item'))):
                    yield part_event
            elif kind in ('response.completed', 'response.incomplete', 'response.failed'):
                self._finish(as_dict(data.get('response')))
            elif kind == 'error':
                raise ModelAPIError(self.model_name, f'The stream reported an error: {data}')

    def _item_added(self, item: dict[str, Any]) -> ModelResponseStreamEvent | None:
        item_id = item.get('id')
        if item.get('type') == 'function_call':
            self._started.add(item_id)
            return self._parts_manager.handle_part(vendor_part_id=item_id, part=function_call_part(item))
        if item.get('type') == 'reasoning':
            return self._thinking(item_id, part_id=item_id, start_empty=True)
        return None

    def _item_done(self, item: dict[str, Any]) -> list[ModelResponseStreamEvent]:
        item_id = item.get('id')
        if item.get('type') == 'function_call' and item_id not in self._streamed_arguments and item.get('arguments'):
            # Some compatible servers send a call's arguments only with the finished item.
            done = self._parts_manager.handle_tool_call_delta(vendor_part_id=item_id, args=item['arguments'])
            return [done] if done is not None else []
        if item.get('type') == 'reasoning':
            signed = (
                self._thinking(item_id, signature=item['encrypted_content'], part_id=item_id)
                if item.get('encrypted_content')
                else None
            )
            return [signed] if signed is not None else []
        return [
            self._parts_manager.handle_part(vendor_part_id=(item_id, index), part=part)
            for index, part in enumerate(native_item_parts(item, provider_name=self.provider_name or 'openai'))
        ]

    def _finish(self, response: dict[str, Any]) -> None:
        if response.get('status') == 'failed':
            raise ModelAPIError(self.model_name, f'The response failed: {response.get("error")}')
        self.provider_response_id = response.get('id') or self.provider_response_id
        if response.get('usage'):
            self._usage = responses_usage(as_dict(response['usage']))
        self.finish_reason = responses_finish_reason(response, self._parts_manager.get_parts())
        if response.get('status'):
            self.provider_details = {'status': response['status']}


def _tool(tool_def: ToolDefinition) -> dict[str, Any]:
    schema, strict = tool_strict(tool_def)
    # The Responses API makes function tools strict unless told otherwise, which most schemas do not allow.
    return drop_none(
        {
            'type': 'function',
            'name': tool_def.name,
            'description': tool_def.description,
            'parameters': schema,
            'strict': strict,
        }
    )


def _text_format(params: ModelRequestParameters, profile: ModelProfile) -> dict[str, Any] | None:
    output = params.output_object
    if params.output_mode == 'native' and output is not None:
        return {'format': {'type': 'json_schema', **output_schema_format(output)}}
    if params.output_mode == 'prompted' and profile.supports_json_object_output:
        return {'format': {'type': 'json_object'}}
    return None


def _native_tool(tool: Any) -> dict[str, Any]:
    kind = native_kind(tool)
    if kind == 'web_search':
        result: dict[str, Any] = {
            'type': 'web_search',
            'search_context_size': native_field(tool, 'search_context_size'),
        }
        if location := native_field(tool, 'user_location'):
            fields = {key: native_field(location, key) for key in ('city', 'country', 'region', 'timezone')}
            result['user_location'] = {'type': 'approximate', **drop_none(fields)}
        if allowed := native_field(tool, 'allowed_domains'):
            result['filters'] = {'allowed_domains': list(allowed)}
        return drop_none(result)
    if kind == 'code_execution':
        return {'type': 'code_interpreter', 'container': {'type': 'auto'}}
    if kind == 'image_generation':
        options = ('background', 'input_fidelity', 'moderation', 'output_compression', 'output_format')
        options += ('partial_images', 'quality', 'size')
        return {'type': 'image_generation', **drop_none({key: native_field(tool, key) for key in options})}
    return drop_none(
        {
            'type': 'mcp',
            'server_label': native_field(tool, 'id'),
            'server_url': native_field(tool, 'url'),
            'server_description': native_field(tool, 'description'),
            'authorization': native_field(tool, 'authorization_token'),
            'allowed_tools': native_field(tool, 'allowed_tools'),
            'headers': native_field(tool, 'headers'),
            'require_approval': 'never',
        }
    )
