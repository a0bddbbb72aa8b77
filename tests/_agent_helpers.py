"""Scripted models, response builders and an output type shared by the tests of real agent runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pydantic

from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from agent.models.function import AgentInfo, FunctionModel

Step = ModelResponse | Callable[[list[ModelMessage], AgentInfo], ModelResponse]


def scripted(*steps: Step) -> FunctionModel:
    """A model that answers each request with the next scripted response (or the response a step function builds)."""
    remaining = list(steps)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert remaining, 'the model was asked more often than the test scripted'
        step = remaining.pop(0)
        return step(messages, info) if callable(step) else step

    return FunctionModel(respond)


def call(tool_name: str, args: str | dict[str, Any] | None = None, call_id: str | None = None) -> ModelResponse:
    part = ToolCallPart(tool_name, args) if call_id is None else ToolCallPart(tool_name, args, call_id)
    return ModelResponse(parts=[part])


def calls(*parts: ToolCallPart) -> ModelResponse:
    return ModelResponse(parts=list(parts))


def text(content: str) -> ModelResponse:
    return ModelResponse(parts=[TextPart(content)])


def request_parts(messages: list[ModelMessage]) -> list[Any]:
    return [part for m in messages if isinstance(m, ModelRequest) for part in m.parts]


def parts_of(messages: list[ModelMessage], kind: type) -> list[Any]:
    return [part for part in request_parts(messages) if isinstance(part, kind)]


class City(pydantic.BaseModel):
    """A city and its population."""

    name: str
    population: int
