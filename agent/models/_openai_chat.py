"""`OpenAIChatModel`: the Chat Completions API, at OpenAI or any compatible server."""

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
from ._openai_chat_messages import (
    REASONING_FIELDS,
    chat_finish_reason,
    chat_messages,
    chat_response_parts,
    chat_usage,
)
from ._openai_common import is_openai_api, openai_profile, openai_reasoning_effort, output_schema_format, tool_strict
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

__all__ = ('OpenAIChatModel', 'OpenAIChatStreamedResponse')


class OpenAIChatModel(HTTPModel):
    """A model behind the Chat Completions API (`POST {base_url}/chat/completions`).

    ```python
    from agent.models.openai import OpenAIChatModel
    from agent.providers.openai import OpenAIProvider

    model = OpenAIChatModel('llama3.2', provider=OpenAIProvider(base_url='http://localhost:11434/v1'))
    ```
    """

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
            provider: An `OpenAIProvider` (or another provider speaking the protocol), or `'openai'` to build one
                from `OPENAI_API_KEY` / `OPENAI_BASE_URL`.
            profile: What the model supports; derived from the name and provider when omitted.
            settings: Default settings for every request.

        Raises:
            UserError: if the provider is built from the environment and the API key is missing.
        """
        from agent.providers import infer_provider

        resolved = infer_provider(provider) if isinstance(provider, str) else provider
        super().__init__(model_name, provider=resolved, profile=profile, settings=settings)

    def _translate_thinking(self, settings: ModelSettings, params: ModelRequestParameters) -> str | None:
        """The `reasoning_effort`: `openai_reasoning_effort` if set, else the resolved `params.thinking` (`True` is
        `'medium'`, `False` is `'none'`); `None` leaves it out."""
        return openai_reasoning_effort(settings, params)

    @classmethod
    def default_profile(cls, model_name: str, provider: Provider) -> ModelProfile:
        """JSON schema output; web search for OpenAI's search models; reasoning for reasoning models."""
        native = frozenset({'web_search'}) if 'search' in model_name else frozenset[str]()
        return openai_profile(model_name, provider, native_tools=native)

    def build_call(
        self,
        messages: list[ModelMessage],
        settings: ModelSettings,
        params: ModelRequestParameters,
        *,
        stream: bool,
    ) -> HTTPCall:
        """The Chat Completions request."""
        native_tools = params.native_tools  # settled by `prepare_request`: all supported
        instructions = join_instructions(last_instructions(messages), prompted_output_instructions(params))
        choice = tools_for_request(settings, params)
        tools = [_tool(tool_def) for tool_def in choice.tools]
        max_tokens_field = 'max_completion_tokens' if is_openai_api(self.provider) else 'max_tokens'
        body: dict[str, Any] = {
            'model': self.model_name,
            'messages': chat_messages(messages, instructions, provider_name=self.system),
            max_tokens_field: settings.get('max_tokens'),
            'temperature': settings.get('temperature'),
            'top_p': settings.get('top_p'),
            'seed': settings.get('seed'),
            'stop': settings.get('stop_sequences'),
            'presence_penalty': settings.get('presence_penalty'),
            'frequency_penalty': settings.get('frequency_penalty'),
            'logit_bias': settings.get('logit_bias'),
            'reasoning_effort': self._translate_thinking(settings, params),
            'response_format': _response_format(params, self.profile),
        }
        if tools:
            body['tools'] = tools
            if choice.mode != 'auto':
                body['tool_choice'] = choice.mode
            body['parallel_tool_calls'] = settings.get('parallel_tool_calls')
        for tool in native_tools:
            if native_kind(tool) == 'web_search':
                body['web_search_options'] = _web_search_options(tool)
        if stream:
            body['stream'] = True
            body['stream_options'] = {'include_usage': True}
        return HTTPCall(
            url=self.provider.url('chat/completions'),
            body=with_extras(drop_none(body), settings),
            headers=self.headers(settings),
            timeout=settings.get('timeout'),
        )

    def parse_response(self, data: dict[str, Any], params: ModelRequestParameters) -> ModelResponse:
        """The response in a `chat.completion` object.

        Raises:
            ModelAPIError: if the object has no choices.
        """
        choices = as_list(data.get('choices'))
        if not choices:
            raise ModelAPIError(self.model_name, f'The response has no choices: {data}')
        choice = as_dict(choices[0])
        raw_finish = choice.get('finish_reason')
        return ModelResponse(
            parts=chat_response_parts(as_dict(choice.get('message')), provider_name=self.system),
            usage=chat_usage(as_dict(data.get('usage'))),
            model_name=str(data.get('model') or self.model_name),
            provider_name=self.system,
            # Pydantic AI reports the SDK client's base URL, which always ends with a slash.
            provider_url=f'{self.base_url}/',
            provider_response_id=data.get('id'),
            finish_reason=chat_finish_reason(raw_finish),
            provider_details={'finish_reason': raw_finish} if raw_finish else None,
        )

    def stream_response(self, events: AsyncIterator[JSONEvent], params: ModelRequestParameters) -> StreamedResponse:
        """A response reading `chat.completion.chunk` events."""
        return OpenAIChatStreamedResponse(
            params, events, model_name=self.model_name, provider_name=self.system, provider_url=f'{self.base_url}/'
        )


class OpenAIChatStreamedResponse(HTTPStreamedResponse):
    """Part events from a stream of `chat.completion.chunk` objects."""

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        named_calls: set[Any] = set()
        async for event in self._events:
            chunk = as_dict(event.data)
            if 'error' in chunk:
                raise ModelAPIError(self.model_name, f'The stream reported an error: {chunk["error"]}')
            self.provider_response_id = chunk.get('id') or self.provider_response_id
            if isinstance(chunk.get('model'), str) and chunk['model']:
                self._model_name = chunk['model']
            if chunk.get('usage'):
                self._usage = chat_usage(as_dict(chunk['usage']))
            for choice in [as_dict(c) for c in as_list(chunk.get('choices'))[:1]]:
                delta = as_dict(choice.get('delta'))
                for field in REASONING_FIELDS:
                    reasoning = delta.get(field)
                    if isinstance(reasoning, str) and (part_event := self._thinking(field, reasoning, part_id=field)):
                        yield part_event
                content = delta.get('content')
                if isinstance(content, str) and (part_event := self._text('content', content)):
                    yield part_event
                for position, raw_call in enumerate(as_list(delta.get('tool_calls'))):
                    call = as_dict(raw_call)
                    vendor_id = ('tool_call', call.get('index', position))
                    function = as_dict(call.get('function'))
                    # Some servers repeat the name in every fragment; only the first one names the call.
                    name = function.get('name') if vendor_id not in named_calls else None
                    if name:
                        named_calls.add(vendor_id)
                    part_event = self._parts_manager.handle_tool_call_delta(
                        vendor_part_id=vendor_id,
                        tool_name=name or None,
                        args=function.get('arguments'),
                        tool_call_id=call.get('id') or None,
                    )
                    if part_event is not None:
                        yield part_event
                raw_finish = choice.get('finish_reason')
                if raw_finish:
                    self.finish_reason = chat_finish_reason(raw_finish)
                    self.provider_details = {'finish_reason': raw_finish}


def _tool(tool_def: ToolDefinition) -> dict[str, Any]:
    schema, strict = tool_strict(tool_def)
    function: dict[str, Any] = {'name': tool_def.name, 'parameters': schema}
    if tool_def.description:
        function['description'] = tool_def.description
    if strict:
        function['strict'] = True
    return {'type': 'function', 'function': function}


def _response_format(params: ModelRequestParameters, profile: ModelProfile) -> dict[str, Any] | None:
    output = params.output_object
    if params.output_mode == 'native' and output is not None:
        return {'type': 'json_schema', 'json_schema': output_schema_format(output)}
    if params.output_mode == 'prompted' and profile.supports_json_object_output:
        return {'type': 'json_object'}
    return None


def _web_search_options(tool: Any) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if size := native_field(tool, 'search_context_size'):
        options['search_context_size'] = size
    if location := native_field(tool, 'user_location'):
        fields = {key: native_field(location, key) for key in ('city', 'country', 'region', 'timezone')}
        options['user_location'] = {'type': 'approximate', 'approximate': drop_none(fields)}
    return options
