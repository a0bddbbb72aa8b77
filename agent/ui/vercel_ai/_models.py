"""The pydantic base shared by the Vercel AI request and response models."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

__all__ = ('CamelBaseModel', 'JSONValue', 'ProviderMetadata')

JSONValue = Any
"""Any JSON value (the wire's recursive JSON type, kept loose on purpose)."""

ProviderMetadata = dict[str, dict[str, JSONValue]]
"""Provider metadata: provider name -> arbitrary JSON object."""


class CamelBaseModel(BaseModel):
    """A wire model: snake_case in Python, camelCase on the wire.

    Unknown fields are ignored rather than rejected: a newer AI SDK may add display-only fields to parts,
    and a chat must not break because of them. Every field that carries meaning is declared and validated.
    """

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra='ignore')
