"""The data converter every part of the system uses: pydantic JSON, with type adapters built once per process.

The wire format is exactly `temporalio.contrib.pydantic`'s (`json/plain` payloads of pydantic JSON), so clients
using `pydantic_data_converter` interoperate. What differs is the cache: the SDK gives every workflow instance a
converter of its own, so a per-converter cache is empty at the start of every run and each run rebuilt the
pydantic schemas of its input and activity results (tens of ms of CPU per run, and long enough under a burst of
new runs to trip the SDK's deadlock detector). The adapters here are shared by every converter in the process.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import temporalio.api.common.v1
from pydantic import TypeAdapter
from temporalio.client import Client
from temporalio.contrib.pydantic import PydanticJSONPlainPayloadConverter, PydanticPayloadConverter
from temporalio.converter import (
    CompositePayloadConverter,
    DataConverter,
    DefaultPayloadConverter,
    JSONPlainPayloadConverter,
)

from ._compact import compact

__all__ = ('SharedPydanticPayloadConverter', 'data_converter', 'with_data_converter')

_MAX_ADAPTERS = 1024


@functools.lru_cache(maxsize=_MAX_ADAPTERS)
def _cached_adapter(type_hint: Any) -> TypeAdapter[Any]:
    return TypeAdapter(type_hint)


def type_adapter(type_hint: Any) -> TypeAdapter[Any]:
    """The process-wide adapter for `type_hint` (built on first use; unhashable hints are not cached)."""
    try:
        hash(type_hint)
    except TypeError:
        return TypeAdapter(type_hint)
    return _cached_adapter(type_hint)


class _SharedJSONConverter(PydanticJSONPlainPayloadConverter):
    def to_payload(self, value: Any) -> temporalio.api.common.v1.Payload | None:
        module = type(value).__module__
        if dataclasses.is_dataclass(value) and module.startswith(('activities.', 'workflows.')):
            # The runtime's own payloads leave out default fields (see workflows._compact); what a run returns
            # keeps its top-level fields, which are the documented contract. Inputs keep only what was set.
            keep = module.startswith('workflows.') and not getattr(type(value), 'optional_fields_omitted', False)
            value = compact(value, keep_top_level=keep)
        return super().to_payload(value)

    def from_payload(self, payload: temporalio.api.common.v1.Payload, type_hint: type | None = None) -> Any:
        return type_adapter(Any if type_hint is None else type_hint).validate_json(payload.data)


class SharedPydanticPayloadConverter(CompositePayloadConverter):
    """`PydanticPayloadConverter`'s encodings, with pydantic type adapters shared process-wide."""

    def __init__(self) -> None:
        json_converter = _SharedJSONConverter()
        super().__init__(
            *(
                json_converter if isinstance(c, JSONPlainPayloadConverter) else c
                for c in DefaultPayloadConverter.default_encoding_payload_converters
            )
        )


data_converter = DataConverter(payload_converter_class=SharedPydanticPayloadConverter)
"""Pydantic JSON payloads (wire-compatible with `temporalio.contrib.pydantic.pydantic_data_converter`)."""

_REPLACEABLE = (DefaultPayloadConverter, PydanticPayloadConverter)


def with_data_converter(client: Client) -> Client:
    """`client`, or a client on the same connection whose payload converter shares type adapters.

    Only the stock payload converters (the SDK's default and the pydantic one) are replaced; a client with a
    payload converter of its own keeps it. Codecs and the failure converter are kept either way.
    """
    current = client.data_converter
    if current.payload_converter_class is SharedPydanticPayloadConverter:
        return client
    if current.payload_converter_class not in _REPLACEABLE:
        return client
    config = client.config()
    config['data_converter'] = dataclasses.replace(current, payload_converter_class=SharedPydanticPayloadConverter)
    return Client(**config)
