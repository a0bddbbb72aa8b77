"""The data converter every part of the system uses: pydantic JSON, with type adapters built once per process.

The wire format is `temporalio.contrib.pydantic`'s (`json/plain` payloads of pydantic JSON), so clients using
`pydantic_data_converter` interoperate; only payloads between the workflow and its activities may also be
`json/zlib` (the same JSON, deflated) when large. The other difference is the cache: the SDK gives every
workflow instance a converter of its own, so a per-converter cache is empty at the start of every run and each
run rebuilt the pydantic schemas of its input and activity results (tens of ms of CPU per run, and long enough
under a burst of new runs to trip the SDK's deadlock detector). The adapters here are shared by every converter
in the process.
"""

from __future__ import annotations

import dataclasses
import functools
import zlib
from collections.abc import Sequence
from typing import Any

import pydantic
import temporalio.api.common.v1
from pydantic import TypeAdapter
from temporalio.client import Client
from temporalio.contrib.pydantic import PydanticJSONPlainPayloadConverter, PydanticPayloadConverter
from temporalio.converter import (
    CompositePayloadConverter,
    DataConverter,
    DefaultPayloadConverter,
    EncodingPayloadConverter,
    JSONPlainPayloadConverter,
)

from ._compact import compact

__all__ = (
    'COMPRESSED_ENCODING',
    'PayloadDecodeError',
    'SharedPydanticPayloadConverter',
    'data_converter',
    'with_data_converter',
)

_MAX_ADAPTERS = 1024


class PayloadDecodeError(ValueError):
    """A payload decoded without a type hint that is not what its encoding says (e.g. `json/plain` but not JSON).

    Raised only for untyped decoding, which is how `AgentWorkflow` takes what clients send (see `workflows._door`);
    the workflow lists it as a failure exception type, so such a payload fails the run instead of its task.
    """


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
        if type_hint is not None:
            return type_adapter(type_hint).validate_json(payload.data)
        try:
            return type_adapter(Any).validate_json(payload.data)
        except pydantic.ValidationError as exc:
            error = exc.errors(include_url=False)[0]
            raise PayloadDecodeError(f'A json/plain payload is not valid JSON: {error["msg"]}') from None


COMPRESSED_ENCODING = 'json/zlib'
"""The encoding of an activity payload stored zlib-compressed (the JSON of `json/plain`, deflated)."""

COMPRESS_FROM_BYTES = 1024
"""Activity payloads at least this large are stored compressed when that makes them smaller."""

_MIN_SAVING = 0.9  # kept plain unless compression saves at least a tenth


class _CompressedJSONConverter(EncodingPayloadConverter):
    """Activity inputs and results of the runtime's own types, compressed when they are large.

    Model requests and tool results are most of a run's history and are text that deflates to a half or a
    third. Only payloads between the workflow and its activities are compressed; what a run takes and returns,
    and signals, updates and queries, stay plain JSON for any client.
    """

    def __init__(self, plain: _SharedJSONConverter) -> None:
        self._plain = plain

    @property
    def encoding(self) -> str:
        return COMPRESSED_ENCODING

    def to_payload(self, value: Any) -> temporalio.api.common.v1.Payload | None:
        if not (dataclasses.is_dataclass(value) and type(value).__module__.startswith('activities.')):
            return None
        plain = self._plain.to_payload(value)
        if plain is None or len(plain.data) < COMPRESS_FROM_BYTES:
            return plain
        packed = zlib.compress(plain.data, 6)
        if len(packed) > len(plain.data) * _MIN_SAVING:
            return plain
        return temporalio.api.common.v1.Payload(metadata={'encoding': COMPRESSED_ENCODING.encode()}, data=packed)

    def from_payload(self, payload: temporalio.api.common.v1.Payload, type_hint: type | None = None) -> Any:
        try:
            data = zlib.decompress(payload.data)
        except zlib.error as exc:
            raise RuntimeError(f'A {COMPRESSED_ENCODING} payload is not valid zlib data: {exc}') from exc
        return type_adapter(Any if type_hint is None else type_hint).validate_json(data)


@functools.cache
def _encoding_converters() -> tuple[EncodingPayloadConverter, ...]:
    """The encodings of `SharedPydanticPayloadConverter`, in the order they are tried (built once per process)."""
    json_converter = _SharedJSONConverter()
    converters: list[EncodingPayloadConverter] = []
    for converter in DefaultPayloadConverter.default_encoding_payload_converters:
        if isinstance(converter, JSONPlainPayloadConverter):
            # Tried first for every value, it takes only the runtime's activity payloads.
            converters.insert(0, _CompressedJSONConverter(json_converter))
            converters.append(json_converter)
        else:
            converters.append(converter)
    return tuple(converters)


class SharedPydanticPayloadConverter(CompositePayloadConverter):
    """`PydanticPayloadConverter`'s encodings, with pydantic type adapters shared process-wide.

    Plus one encoding of its own, `json/zlib`, for large activity payloads (see `COMPRESS_FROM_BYTES`).
    """

    def __init__(self) -> None:
        # The SDK builds a converter for every activation it decodes and every completion it encodes (a data converter
        # per workflow task, each making its payload converter), so the stateless encoding converters are built once.
        super().__init__(*_encoding_converters())

    def from_payloads(
        self, payloads: Sequence[temporalio.api.common.v1.Payload], type_hints: list[type] | None = None
    ) -> list[Any]:
        """Decode `payloads`; untyped ones that cannot be decoded at all raise `PayloadDecodeError`."""
        try:
            return super().from_payloads(payloads, type_hints)
        except (KeyError, RuntimeError) as exc:
            if type_hints:
                raise
            # An unknown encoding (KeyError) or a converter's own failure (wrapped in RuntimeError by the SDK).
            reason = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc.__cause__ or exc)
            raise PayloadDecodeError(f'A payload could not be decoded: {reason}') from None


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
