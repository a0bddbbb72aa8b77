"""`GoogleModel`: Gemini through the Gemini API's `generateContent` and `streamGenerateContent`."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Hashable
from typing import Any, cast

from agent._events import ModelResponseStreamEvent
from agent._parts import ModelMessage, ModelResponse, ModelResponsePart, NativeToolCallPart
from agent._tool_def import ToolDefinition
from agent.exceptions import ModelAPIError
from agent.profiles.google import GoogleModelProfile, google_model_profile
from agent.providers import Provider
from agent.settings import ModelSettings

from . import ModelProfile, ModelRequestParameters, StreamedResponse
from ._google_contents import (
    candidate_part,
    candidate_parts,
    gemini_contents,
    gemini_finish_reason,
    gemini_usage,
    grounding_parts,
)
from ._http import HTTPCall
from ._http_model import HTTPModel, HTTPStreamedResponse
from ._native_tools import native_kind
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

__all__ = ('THINKING_BUDGETS', 'GoogleModel', 'GoogleModelSettings', 'GoogleStreamedResponse')

THINKING_BUDGETS: dict[str, int] = {'minimal': 128, 'low': 2048, 'medium': 8192, 'high': 24576, 'xhigh': 24576}
"""Thinking token budgets per effort level for Gemini 2.5 models (`True` lets the model decide).

They stay within what both 2.5 Flash (0 to 24576) and 2.5 Pro (128 to 32768) accept."""

_THINKING_LEVELS = {'minimal': 'MINIMAL', 'low': 'LOW', 'medium': 'MEDIUM', 'high': 'HIGH', 'xhigh': 'HIGH'}
_CALLING_MODES = {'auto': 'AUTO', 'none': 'NONE', 'required': 'ANY'}
_NATIVE_TOOL_CONFIGS = {'web_search': 'googleSearch', 'code_execution': 'codeExecution', 'web_fetch': 'urlContext'}


class GoogleModelSettings(ModelSettings, total=False):
    """Settings for `GoogleModel`: the common ones plus Google's own, all prefixed `google_`."""

    google_thinking_config: dict[str, Any]
    """The thinking config in the SDK's spelling (e.g. `{'include_thoughts': False}`); wins over `thinking`."""


class GoogleModel(HTTPModel):
    """A Gemini model.

    ```python
    from agent.models.google import GoogleModel

    model = GoogleModel('gemini-2.5-flash')  # key from GEMINI_API_KEY or GOOGLE_API_KEY
    ```
    """

    def __init__(
        self,
        model_name: str,
        *,
        provider: Provider | str = 'google-gla',
        profile: ModelProfile | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Create a model.

        Args:
            model_name: The model, e.g. `'gemini-2.5-flash'`.
            provider: A `GoogleProvider`, or `'google-gla'` to build one from `GEMINI_API_KEY` / `GOOGLE_API_KEY`.
            profile: What the model supports; derived from the name when omitted.
            settings: Default settings for every request.

        Raises:
            UserError: if the provider is built from the environment and the API key is missing.
        """
        from agent.providers import infer_provider

        resolved = infer_provider(provider) if isinstance(provider, str) else provider
        super().__init__(model_name, provider=resolved, profile=profile, settings=settings)

    @classmethod
    def default_profile(cls, model_name: str, provider: Provider) -> ModelProfile:
        """`google_model_profile`: JSON schema output, thinking from Gemini 2.5 on, Google Search, code execution
        and URL context."""
        return google_model_profile(model_name)

    def _translate_thinking(self, settings: ModelSettings, params: ModelRequestParameters) -> dict[str, Any] | None:
        """The thinking config in the SDK's spelling (`include_thoughts`, `thinking_level`, `thinking_budget`):
        `google_thinking_config` if set, else the resolved `params.thinking` mapped by the profile; `None` sends none.

        Gemini 3 and later take a level, Gemini 2.5 a token budget; `False` is the lowest level or a zero budget.
        """
        explicit = cast(GoogleModelSettings, settings).get('google_thinking_config')
        if explicit:
            return explicit
        thinking = params.thinking
        if thinking is None:
            return None
        levels = GoogleModelProfile.from_profile(self.profile).google_supports_thinking_level
        if thinking is False:
            return {'thinking_level': 'MINIMAL'} if levels else {'thinking_budget': 0}
        if thinking is True:
            return {'include_thoughts': True}
        if levels:
            return {'include_thoughts': True, 'thinking_level': _THINKING_LEVELS[thinking]}
        return {'include_thoughts': True, 'thinking_budget': THINKING_BUDGETS[thinking]}

    def build_call(
        self,
        messages: list[ModelMessage],
        settings: ModelSettings,
        params: ModelRequestParameters,
        *,
        stream: bool,
    ) -> HTTPCall:
        """The `generateContent` request (parallel tool calls cannot be switched off in Gemini)."""
        native_tools = params.native_tools  # settled by `prepare_request`: all supported
        system_prompts, contents = gemini_contents(messages, provider_name=self.system)
        system = join_instructions(last_instructions(messages), *system_prompts, prompted_output_instructions(params))
        choice = tools_for_request(settings, params)
        declarations = [_declaration(tool_def) for tool_def in choice.tools]
        tools: list[dict[str, Any]] = [{'functionDeclarations': declarations}] if declarations else []
        tools += [{_NATIVE_TOOL_CONFIGS[native_kind(tool)]: {}} for tool in native_tools]
        body: dict[str, Any] = {
            'contents': contents,
            'systemInstruction': {'parts': [{'text': system}]} if system else None,
            'tools': tools or None,
            'toolConfig': {'functionCallingConfig': {'mode': _CALLING_MODES[choice.mode]}}
            if declarations and choice.mode != 'auto'
            else None,
            'generationConfig': _generation_config(settings, params, self._translate_thinking(settings, params))
            or None,
        }
        action = 'streamGenerateContent?alt=sse' if stream else 'generateContent'
        return HTTPCall(
            url=self.provider.url(f'models/{self.model_name}:{action}'),
            body=with_extras(drop_none(body), settings),
            headers=self.headers(settings),
            timeout=settings.get('timeout'),
        )

    def retry_delay_in_body(self, body: object) -> float | None:
        """Gemini puts the delay of a 429 in a `RetryInfo` detail (`"retryDelay": "37s"`), not in a header."""
        for detail in as_list(as_dict(as_dict(body).get('error')).get('details')):
            delay = as_dict(detail).get('retryDelay')
            if isinstance(delay, str) and (match := re.fullmatch(r'(\d+(?:\.\d+)?)s', delay)):
                return float(match.group(1))
        return None

    def parse_response(self, data: dict[str, Any], params: ModelRequestParameters) -> ModelResponse:
        """The response in a `GenerateContentResponse`.

        Raises:
            ModelAPIError: if the prompt was blocked, so there is no candidate.
        """
        candidates = as_list(data.get('candidates'))
        if not candidates:
            raise ModelAPIError(self.model_name, f'No candidates in the response: {data.get("promptFeedback", data)}')
        candidate = as_dict(candidates[0])
        parts: list[ModelResponsePart] = grounding_parts(candidate, provider_name=self.system)
        parts += candidate_parts(as_list(as_dict(candidate.get('content')).get('parts')), provider_name=self.system)
        raw_finish = candidate.get('finishReason')
        return ModelResponse(
            parts=parts,
            usage=gemini_usage(as_dict(data.get('usageMetadata'))),
            model_name=str(data.get('modelVersion') or self.model_name),
            provider_name=self.system,
            # Pydantic AI reports the SDK client's base URL, which always ends with a slash.
            provider_url=f'{self.base_url}/',
            provider_response_id=data.get('responseId'),
            finish_reason=gemini_finish_reason(raw_finish, parts),
            provider_details={'finish_reason': raw_finish} if raw_finish else None,
        )

    def stream_response(self, events: AsyncIterator[JSONEvent], params: ModelRequestParameters) -> StreamedResponse:
        """A response reading `GenerateContentResponse` chunks."""
        return GoogleStreamedResponse(
            params, events, model_name=self.model_name, provider_name=self.system, provider_url=f'{self.base_url}/'
        )


class GoogleStreamedResponse(HTTPStreamedResponse):
    """Part events from a stream of `GenerateContentResponse` chunks.

    Gemini streams text and thoughts in pieces and function calls whole. Consecutive pieces of one kind make
    one part; a signature goes to the thinking part before the piece that carried it, as in a whole response.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._kind: str | None = None
        self._count = 0
        self._thinking_vendor: Hashable | None = None
        self._thinking_signed = False
        self._last_code_call: NativeToolCallPart | None = None

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        async for event in self._events:
            data = as_dict(event.data)
            self.provider_response_id = data.get('responseId') or self.provider_response_id
            self._model_name = str(data.get('modelVersion') or self._model_name)
            if data.get('usageMetadata'):
                self._usage = gemini_usage(as_dict(data['usageMetadata']))
            for candidate in [as_dict(c) for c in as_list(data.get('candidates'))[:1]]:
                for part in grounding_parts(candidate, provider_name=self.provider_name or 'google-gla'):
                    yield self._parts_manager.handle_part(vendor_part_id=self._vendor('native', fresh=True), part=part)
                for raw in as_list(as_dict(candidate.get('content')).get('parts')):
                    for part_event in self._part(as_dict(raw)):
                        if part_event is not None:
                            yield part_event
                raw_finish = candidate.get('finishReason')
                if raw_finish:
                    self.finish_reason = gemini_finish_reason(raw_finish, self._parts_manager.get_parts())
                    self.provider_details = {'finish_reason': raw_finish}

    def _part(self, part: dict[str, Any]) -> list[ModelResponseStreamEvent | None]:
        signature = part.get('thoughtSignature') if isinstance(part.get('thoughtSignature'), str) else None
        text = part.get('text')
        if part.get('thought'):
            vendor = self._vendor('thought')
            if vendor != self._thinking_vendor:
                self._thinking_vendor, self._thinking_signed = vendor, False
            self._thinking_signed = self._thinking_signed or bool(signature)
            return [self._thinking(vendor, str(text or ''), signature=signature)]
        events: list[ModelResponseStreamEvent | None] = []
        if signature:
            if self._thinking_vendor is None or self._thinking_signed:
                self._thinking_vendor = self._vendor('thought', fresh=True)
            events.append(self._thinking(self._thinking_vendor, signature=signature))
            self._thinking_signed = True
        if isinstance(text, str):
            events.append(self._text(self._vendor('text'), text))
            return events
        item = candidate_part(part, self._last_code_call, self.provider_name or '')
        if isinstance(item, NativeToolCallPart):
            self._last_code_call = item
        if item is not None:
            events.append(self._parts_manager.handle_part(vendor_part_id=self._vendor('other', fresh=True), part=item))
        return events

    def _vendor(self, kind: str, *, fresh: bool = False) -> Hashable:
        """The vendor id for a piece of `kind`: the current part's while the kind repeats, else a new one."""
        if fresh or kind != self._kind:
            self._count += 1
            self._kind = kind
        return (kind, self._count)


def _declaration(tool_def: ToolDefinition) -> dict[str, Any]:
    return drop_none(
        {
            'name': tool_def.name,
            'description': tool_def.description,
            'parametersJsonSchema': tool_def.parameters_json_schema,
            # Present only when the tool opts in (see `agent.models._return_schemas`).
            'responseJsonSchema': tool_def.return_schema,
        }
    )


def _generation_config(
    settings: ModelSettings, params: ModelRequestParameters, thinking: dict[str, Any] | None
) -> dict[str, Any]:
    output = params.output_object
    # Gemini refuses a JSON response type alongside tools, so prompted output then relies on the instructions.
    has_tools = bool(params.function_tools or params.output_tools or params.native_tools)
    json_output = output is not None and (
        params.output_mode == 'native' or (params.output_mode == 'prompted' and not has_tools)
    )
    config: dict[str, Any] = {
        'temperature': settings.get('temperature'),
        'topP': settings.get('top_p'),
        'maxOutputTokens': settings.get('max_tokens'),
        'stopSequences': settings.get('stop_sequences'),
        'seed': settings.get('seed'),
        'presencePenalty': settings.get('presence_penalty'),
        'frequencyPenalty': settings.get('frequency_penalty'),
        'responseMimeType': 'application/json' if json_output else None,
        'responseJsonSchema': output.json_schema if output is not None and params.output_mode == 'native' else None,
        'thinkingConfig': _wire_thinking_config(thinking) if thinking else None,
    }
    return drop_none(config)


def _wire_thinking_config(config: dict[str, Any]) -> dict[str, Any]:
    """The SDK-spelled thinking config as the REST API spells it: camel-case names (`thinking_budget` ->
    `thinkingBudget`) and the level in lower case, as the API's documentation writes it (`'HIGH'` -> `'high'`)."""
    wire: dict[str, Any] = {}
    for key, value in config.items():
        head, *rest = key.split('_')
        name = head + ''.join(word.capitalize() for word in rest)
        wire[name] = value.lower() if name == 'thinkingLevel' and isinstance(value, str) else value
    return wire
