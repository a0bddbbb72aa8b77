"""`TestModel`: a deterministic scripted model that calls every tool, then answers. No network.

Each request is answered by looking at the conversation:

1. if the last request asks to retry some tool calls, those tools are called again with new arguments;
2. otherwise, if no tool has been called since the last user prompt, every selected function tool is called
   (all in one response) with arguments generated from its JSON schema;
3. otherwise the final output: a call to the first output tool, an object in the requested JSON schema, or
   text: `custom_output_text`, the latest tool results as a JSON object keyed by tool name, or
   `'success (no tool calls)'`.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, Literal, cast

import pydantic_core

from agent._content import BinaryContent
from agent._events import ModelResponseStreamEvent
from agent._parts import (
    FilePart,
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent._run_context import RunContext
from agent._tool_def import ToolDefinition
from agent.exceptions import UserError
from agent.settings import ModelSettings

from . import Model, ModelProfile, ModelRequestParameters, StreamedResponse
from ._test_args import generate_example, generate_tool_args
from ._usage_estimate import estimate_usage

__all__ = ('TestModel', 'TestStreamedResponse')

# A 1x1 transparent PNG: the image `TestModel` returns when only image output is allowed.
_PIXEL_PNG = bytes.fromhex(
    '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489'
    '0000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082'
)


class TestModel(Model):
    """A model that exercises the agent's tools with schema-valid arguments, deterministically.

    Attributes:
        last_model_request_parameters: The (prepared) parameters of the most recent request.
    """

    __test__ = False  # not a pytest test class, despite the name

    def __init__(
        self,
        *,
        call_tools: list[str] | Literal['all'] = 'all',
        custom_output_text: str | None = None,
        custom_output_args: Any | None = None,
        seed: int = 0,
        model_name: str = 'test',
        profile: ModelProfile | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Create a test model.

        Args:
            call_tools: The function tools to call (by name), or `'all'`.
            custom_output_text: Text to answer with, instead of a summary of the tool results.
            custom_output_args: Arguments for the output tool call (or the native/prompted output object).
            seed: Seed for generated tool arguments; different seeds give different values.
            model_name: The model name reported in responses.
            profile: What the model claims to support; JSON schema output is supported by default.
            settings: Default model settings.

        Raises:
            UserError: if both `custom_output_text` and `custom_output_args` are given.
        """
        if custom_output_text is not None and custom_output_args is not None:
            raise UserError('Set either `custom_output_text` or `custom_output_args`, not both')
        super().__init__(
            settings=settings,
            profile=profile or ModelProfile(supports_json_schema_output=True, supports_json_object_output=True),
        )
        self.call_tools = call_tools
        self.custom_output_text = custom_output_text
        self.custom_output_args = custom_output_args
        self.seed = seed
        self._model_name = model_name
        self.last_model_request_parameters: ModelRequestParameters | None = None

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Answer the conversation according to the script described in the module docstring."""
        _, params = self.prepare_request(model_settings, model_request_parameters)
        self.last_model_request_parameters = params
        parts = self._respond(messages, params)
        return ModelResponse(
            parts=parts,
            usage=estimate_usage(messages, parts),
            model_name=self.model_name,
            provider_name=self.system,
            finish_reason='tool_call' if any(isinstance(p, ToolCallPart) for p in parts) else 'stop',
        )

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        """Stream the same answer `request` gives: text word by word, tool calls as whole parts."""
        response = await self.request(messages, model_settings, model_request_parameters)
        params = self.last_model_request_parameters or model_request_parameters
        yield TestStreamedResponse(params, response)

    @property
    def model_name(self) -> str:
        """The model name reported in responses."""
        return self._model_name

    @property
    def system(self) -> str:
        """Always `'test'`."""
        return 'test'

    def _respond(self, messages: Sequence[ModelMessage], params: ModelRequestParameters) -> list[ModelResponsePart]:
        last = messages[-1] if messages else None
        last_parts: Sequence[ModelRequestPart] = last.parts if isinstance(last, ModelRequest) else []
        tool_defs = params.tool_defs
        retries = [p for p in last_parts if isinstance(p, RetryPromptPart) and p.tool_name in tool_defs]
        if retries:
            seed = self.seed + _retry_rounds(messages)
            return [self._call(tool_defs[p.tool_name], params, seed) for p in retries if p.tool_name]
        if isinstance(last, ModelRequest) and not any(
            isinstance(p, ToolReturnPart | RetryPromptPart) for p in last_parts
        ):
            selected = [t for t in params.function_tools if self.call_tools == 'all' or t.name in self.call_tools]
            if selected:
                return [self._call(tool_def, params, self.seed) for tool_def in selected]
        return [self._final_output(messages, params)]

    def _call(self, tool_def: ToolDefinition, params: ModelRequestParameters, seed: int) -> ToolCallPart:
        is_output = any(t.name == tool_def.name for t in params.output_tools)
        if not is_output or self.custom_output_args is None:
            return ToolCallPart(tool_def.name, generate_tool_args(tool_def.parameters_json_schema, seed=seed))
        value: Any = pydantic_core.to_jsonable_python(self.custom_output_args)
        if tool_def.outer_typed_dict_key:
            value = {tool_def.outer_typed_dict_key: value}
        # Arguments that are not an object are sent as JSON text, for the output tool's validation to judge.
        args = cast(dict[str, Any], value) if isinstance(value, dict) else pydantic_core.to_json(value).decode()
        return ToolCallPart(tool_def.name, args)

    def _final_output(self, messages: Sequence[ModelMessage], params: ModelRequestParameters) -> ModelResponsePart:
        if params.output_mode in ('native', 'prompted') and params.output_object is not None:
            value: Any = self.custom_output_args
            if value is None:
                value = generate_example(params.output_object.json_schema, seed=self.seed)
            return TextPart(pydantic_core.to_json(value).decode())
        if params.output_tools and (self.custom_output_args is not None or not params.allow_text_output):
            return self._call(params.output_tools[0], params, self.seed)
        if params.allow_image_output and not params.allow_text_output:
            return FilePart(BinaryContent(_PIXEL_PNG, media_type='image/png'))
        if self.custom_output_text is not None:
            return TextPart(self.custom_output_text)
        output_names = {t.name for t in params.output_tools}
        results = _latest_tool_results(messages, output_names)
        if results:
            return TextPart(pydantic_core.to_json(results, fallback=repr).decode())
        return TextPart('success (no tool calls)')


def _segment(messages: Sequence[ModelMessage]) -> Sequence[ModelMessage]:
    """The messages since the last user prompt: the current run's exchange of tool calls and results."""
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if isinstance(message, ModelRequest) and any(isinstance(p, UserPromptPart) for p in message.parts):
            return messages[i:]
    return messages


def _retry_rounds(messages: Sequence[ModelMessage]) -> int:
    """How many requests in the current segment asked for retries (so each retry gets fresh arguments)."""
    return sum(
        1
        for message in _segment(messages)
        if isinstance(message, ModelRequest) and any(isinstance(p, RetryPromptPart) for p in message.parts)
    )


def _latest_tool_results(messages: Sequence[ModelMessage], output_tool_names: set[str]) -> dict[str, Any]:
    """The latest result of each function tool in the current segment, by tool name."""
    results: dict[str, Any] = {}
    for message in _segment(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, ToolReturnPart) and part.tool_name not in output_tool_names:
                    results[part.tool_name] = part.content
    return results


_WORD_CHUNK = re.compile(r'\s*\S+\s*')


class TestStreamedResponse(StreamedResponse):
    """Streams a complete `TestModel` response: text in word-sized chunks, other parts whole."""

    __test__ = False

    def __init__(self, model_request_parameters: ModelRequestParameters, response: ModelResponse) -> None:
        """Create a stream replaying `response`."""
        super().__init__(
            model_request_parameters,
            model_name=response.model_name or 'test',
            provider_name=response.provider_name,
            timestamp=response.timestamp,
        )
        self._response = response

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        for index, part in enumerate(self._response.parts):
            if isinstance(part, TextPart) and part.content:
                for chunk in _WORD_CHUNK.findall(part.content):
                    event = self._parts_manager.handle_text_delta(vendor_part_id=index, content=chunk)
                    if event is not None:
                        yield event
            else:
                yield self._parts_manager.handle_part(vendor_part_id=index, part=part)
        self._usage = self._response.usage
        self.finish_reason = self._response.finish_reason
