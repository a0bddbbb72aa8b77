"""Scripted models for the catalog tests: they answer from a script and record what each request offered."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent import BinaryContent
from agent.messages import (
    FilePart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
    TextPart,
    UserPromptPart,
)
from agent.models import ModelProfile
from agent.models.function import AgentInfo, FunctionModel
from agent.usage import RequestUsage


@dataclass
class Offered:
    """What one request offered the model."""

    function_tools: list[str]
    native_tools: list[Any]
    messages: list[ModelMessage] = field(default_factory=list[ModelMessage])

    @property
    def native_kinds(self) -> list[str]:
        return [tool.kind for tool in self.native_tools]


@dataclass
class Script:
    """Answers the n-th request with the n-th entry (text or parts); records every request in `offered`."""

    steps: Sequence[str | list[ModelResponsePart]]
    native: Iterable[str] = ()
    offered: list[Offered] = field(default_factory=list[Offered])

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        params = info.model_request_parameters
        self.offered.append(Offered([t.name for t in info.function_tools], list(params.native_tools), list(messages)))
        step = self.steps[min(len(self.offered), len(self.steps)) - 1]
        return ModelResponse(parts=[TextPart(step)] if isinstance(step, str) else list(step))

    def model(self) -> FunctionModel:
        return FunctionModel(self.respond, profile=ModelProfile(supported_native_tools=frozenset(self.native)))


PNG = BinaryContent(b'\x89PNG fake image', media_type='image/png')


def image_model(requests: list[tuple[str, list[Any]]], *, with_image: bool = True) -> FunctionModel:
    """A model with native image generation: it draws what the prompt says."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        first = messages[0]
        assert isinstance(first, ModelRequest)
        assert isinstance(first.parts[0], UserPromptPart)
        requests.append((str(first.parts[0].content), list(info.model_request_parameters.native_tools)))
        parts: list[Any] = [TextPart('A red circle.')]
        if with_image:
            parts.append(FilePart(PNG))
        return ModelResponse(parts=parts, usage=RequestUsage(input_tokens=7, output_tokens=100))

    profile = ModelProfile(supports_image_output=True, supported_native_tools=frozenset({'image_generation'}))
    return FunctionModel(respond, profile=profile)
