"""`ModelRequestContext`: everything one model request needs, bundled so hooks can inspect or replace it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._parts import ModelMessage

if TYPE_CHECKING:
    from .models import Model, ModelRequestParameters
    from .settings import ModelSettings

__all__ = ('ModelRequestContext',)


@dataclass
class ModelRequestContext:
    """The inputs of one model request.

    Model request hooks receive it and may return a changed copy (or mutate it): swap `model` to send
    this one request elsewhere, edit `messages`, `model_settings` or `model_request_parameters`.
    """

    model: Model
    """The model the request goes to."""
    messages: list[ModelMessage]
    """The conversation sent to the model."""
    model_settings: ModelSettings | None
    """The merged model settings for this step."""
    model_request_parameters: ModelRequestParameters
    """Tool definitions and output mode for this request."""
