"""`TestModel`: a deterministic scripted model that calls every tool, then answers. No network.

It answers as Pydantic AI's `TestModel` does, so ported snapshot tests see the same messages:

1. on the first request of a conversation (no response in the history yet), every selected function tool is
   called, all in one response, with arguments generated from its JSON schema (see `_test_args`) and the
   call id `pyd_ai_tool_call_id__<tool name>`;
2. when the last request asks to retry tool calls, those tools are called again with the same arguments
   (a function tool's retried call gets a fresh id);
3. otherwise the final output: `custom_output_text`; or a call to an output tool (`custom_output_args`, or
   generated arguments, when text is not allowed); or text: the JSON object of every tool result in the
   history keyed by tool name, or `'success (no tool calls)'`.

Usage is estimated from the word count of the whole conversation (see `_usage_estimate`).

A request that sends native tools fails with a `UserError` once its parameters are recorded in
`last_model_request_parameters`, so a test can check which native tools a run would send.

Beyond Pydantic AI, native and prompted structured output are answered with JSON text for the output schema,
and image-only output with a one-pixel PNG.
"""

from __future__ import annotations

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
)
from agent._run_context import RunContext
from agent._tool_def import ToolDefinition
from agent.builtin_tools import SUPPORTED_NATIVE_TOOLS, ToolSearchTool
from agent.exceptions import UserError
from agent.settings import ModelSettings
from agent.usage import RequestUsage

from . import Model, ModelProfile, ModelRequestParameters, StreamedResponse
from ._test_args import generate_example, generate_tool_args
from ._usage_estimate import estimate_string_tokens, estimate_usage

__all__ = ('TestModel', 'TestStreamedResponse')

# A 1x1 transparent PNG: the image `TestModel` returns when only image output is allowed.
_PIXEL_PNG = bytes.fromhex(
    '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489'
    '0000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082'
)


def _refuse_native_tools(params: ModelRequestParameters) -> None:
    if params.native_tools:
        raise UserError('TestModel does not support built-in tools')


def _call_id(tool_name: str) -> str:
    return f'pyd_ai_tool_call_id__{tool_name}'


class TestModel(Model):
    """A model that exercises the agent's tools with schema-valid arguments, deterministically.

    Attributes:
        call_tools: The function tools to call (by name), or `'all'`.
        custom_output_text: Text to answer with, instead of a summary of the tool results.
        custom_output_args: Arguments for the output tool call (or the native/prompted output object).
        seed: Seed for generated tool arguments.
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
            profile: What the model claims to support; by default JSON schema and image output and every native
                tool but tool search (a request that sends native tools then fails: this model cannot run them).
            settings: Default model settings.

        Raises:
            UserError: if both `custom_output_text` and `custom_output_args` are given.
        """
        if custom_output_text is not None and custom_output_args is not None:
            raise UserError('Set either `custom_output_text` or `custom_output_args`, not both')
        super().__init__(
            settings=settings,
            profile=profile
            or ModelProfile(
                supports_json_schema_output=True,
                supports_json_object_output=True,
                supports_image_output=True,  # image-only output is answered with a one-pixel PNG
                # As in Pydantic AI, every native tool is accepted (so a test can see what would be sent) and the
                # request then fails; tool search is left out, so the local `search_tools` stands in for it.
                supported_native_tools=SUPPORTED_NATIVE_TOOLS - {ToolSearchTool},
            ),
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
        _refuse_native_tools(params)
        response = ModelResponse(parts=self._respond(messages, params), model_name=self.model_name)
        response.usage = estimate_usage([*messages, response])
        return response

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        """Stream the same answer `request` gives: text word by word, tool calls as whole parts."""
        _, params = self.prepare_request(model_settings, model_request_parameters)
        self.last_model_request_parameters = params
        _refuse_native_tools(params)
        response = ModelResponse(parts=self._respond(messages, params), model_name=self.model_name)
        yield TestStreamedResponse(params, response, messages=messages, provider_name=self.system)

    @property
    def model_name(self) -> str:
        """The model name reported in responses."""
        return self._model_name

    @property
    def system(self) -> str:
        """Always `'test'`."""
        return 'test'

    def gen_tool_args(self, tool_def: ToolDefinition) -> Any:
        """The arguments this model sends when it calls `tool_def`."""
        return generate_tool_args(tool_def.parameters_json_schema, seed=self.seed)

    def _tools_to_call(self, params: ModelRequestParameters) -> list[ToolDefinition]:
        if self.call_tools == 'all':
            return list(params.function_tools)
        by_name = {t.name: t for t in params.function_tools}
        unknown = [name for name in self.call_tools if name not in by_name]
        if unknown:
            raise UserError(f'TestModel was configured to call unknown tool(s): {", ".join(unknown)}')
        return [by_name[name] for name in self.call_tools]

    def _respond(self, messages: Sequence[ModelMessage], params: ModelRequestParameters) -> list[ModelResponsePart]:
        tools = self._tools_to_call(params)
        if tools and not any(isinstance(m, ModelResponse) for m in messages):
            return [ToolCallPart(t.name, self.gen_tool_args(t), _call_id(t.name)) for t in tools]
        last = messages[-1] if messages else None
        last_parts: Sequence[ModelRequestPart] = last.parts if isinstance(last, ModelRequest) else []
        retry_names = {p.tool_name for p in last_parts if isinstance(p, RetryPromptPart)}
        retried = [t for t in tools if t.name in retry_names]
        retried_outputs = [t for t in params.output_tools if t.name in retry_names]
        if retried or retried_outputs:
            parts: list[ModelResponsePart] = [ToolCallPart(t.name, self.gen_tool_args(t)) for t in retried]
            parts += [self._output_call(t) for t in retried_outputs]
            return parts
        return [self._final_output(messages, params)]

    def _output_call(self, tool_def: ToolDefinition) -> ToolCallPart:
        if self.custom_output_args is None:
            return ToolCallPart(tool_def.name, self.gen_tool_args(tool_def), _call_id(tool_def.name))
        value: Any = pydantic_core.to_jsonable_python(self.custom_output_args)
        if tool_def.outer_typed_dict_key:
            value = {tool_def.outer_typed_dict_key: value}
        # Arguments that are not an object are sent as JSON text, for the output tool's validation to judge.
        args = cast(dict[str, Any], value) if isinstance(value, dict) else pydantic_core.to_json(value).decode()
        return ToolCallPart(tool_def.name, args, _call_id(tool_def.name))

    def _final_output(self, messages: Sequence[ModelMessage], params: ModelRequestParameters) -> ModelResponsePart:
        if self.custom_output_text is not None:
            if params.output_mode == 'tool':
                raise UserError('Plain response not allowed, but `custom_output_text` is set.')
            return TextPart(self.custom_output_text)
        if params.output_mode in ('native', 'prompted') and params.output_object is not None:
            value: Any = self.custom_output_args
            if value is None:
                value = generate_example(params.output_object.json_schema, seed=self.seed)
            return TextPart(pydantic_core.to_json(value).decode())
        output_tools = params.output_tools
        if output_tools and (self.custom_output_args is not None or not params.allow_text_output):
            return self._output_call(output_tools[self.seed % len(output_tools)])
        if self.custom_output_args is not None:
            raise UserError('No output tools provided, but `custom_output_args` is set.')
        if params.allow_image_output and not params.allow_text_output:
            return FilePart(BinaryContent(_PIXEL_PNG, media_type='image/png'))
        results: dict[str, Any] = {}
        for message in messages:
            if isinstance(message, ModelRequest):
                for part in message.parts:
                    if isinstance(part, ToolReturnPart):
                        results[part.tool_name] = part.content
        if results:
            # No fallback: a result that cannot be serialized fails here, as it would on the way to a real model.
            return TextPart(pydantic_core.to_json(results).decode())
        return TextPart('success (no tool calls)')


class TestStreamedResponse(StreamedResponse):
    """Streams a complete `TestModel` response: text in word-sized chunks, other parts whole.

    Usage starts at the estimate for the conversation sent and grows with each word streamed.
    """

    __test__ = False

    def __init__(
        self,
        model_request_parameters: ModelRequestParameters,
        response: ModelResponse,
        *,
        messages: Sequence[ModelMessage] = (),
        provider_name: str | None = 'test',
    ) -> None:
        """Create a stream replaying `response`, the answer to `messages`."""
        super().__init__(
            model_request_parameters,
            model_name=response.model_name or 'test',
            provider_name=provider_name,
            timestamp=response.timestamp,
        )
        self._response = response
        self._usage = estimate_usage(messages)

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        for index, part in enumerate(self._response.parts):
            if isinstance(part, TextPart):
                # The part opens empty and every word arrives as a delta, as Pydantic AI's TestModel streams it.
                yield self._parts_manager.handle_part(vendor_part_id=index, part=TextPart(''))
                for chunk in _chunks(part.content):
                    self._usage += RequestUsage(output_tokens=estimate_string_tokens(chunk))
                    if chunk:
                        for event in self._parts_manager.handle_text_delta(vendor_part_id=index, content=chunk):
                            yield event
            elif isinstance(part, ToolCallPart):
                yield self._parts_manager.handle_tool_call_part(
                    vendor_part_id=index, tool_name=part.tool_name, args=part.args, tool_call_id=part.tool_call_id
                )
            else:
                yield self._parts_manager.handle_part(vendor_part_id=index, part=part)


def _chunks(text: str) -> list[str]:
    """Words with their following space; a single longer word is sent in two halves."""
    *words, last = text.split(' ')
    chunks = [f'{word} ' for word in words] + [last]
    if len(chunks) == 1 and len(text) > 2:
        return [text[: len(text) // 2], text[len(text) // 2 :]]
    return chunks
