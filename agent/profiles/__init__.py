"""Model profiles: what a model supports, which shapes the requests sent to it (`Model(profile=...)`)."""

from collections.abc import Callable
from typing import TypeAlias

from agent._json_schema import InlineDefsJsonSchemaTransformer, JsonSchemaTransformer
from agent.models import ModelProfile

__all__ = (
    'DEFAULT_PROFILE',
    'InlineDefsJsonSchemaTransformer',
    'JsonSchemaTransformer',
    'ModelProfile',
    'ModelProfileSpec',
)

ModelProfileSpec: TypeAlias = ModelProfile | Callable[[str], ModelProfile | None]
"""A profile, or a function that picks one from the model name (Pydantic AI's `profile=` type; the models here
take a `ModelProfile`)."""

DEFAULT_PROFILE = ModelProfile()
"""The profile of a model nothing more is known about: function tools, structured output through a tool."""
