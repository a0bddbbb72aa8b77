"""Payload encryption on request: AES-GCM with key ids, so keys can rotate without losing old histories.

With keys configured, every payload the SDK sends to the server (a run's input and result, the activities'
inputs and results, which carry the prompt, model responses, tool arguments and tool results, signals, updates,
queries and user metadata) is encrypted by the client or worker that writes it, and only processes holding the
key can read it. Failure messages and stack traces are moved into an encrypted payload too (the SDK's
encoded failure attributes), since a tool's error can quote its arguments. What the server still sees in the
clear: workflow and activity ids and type names, task queues, timings, and search attributes (which must stay
readable to be searched).

The codec runs after the payload converter, so a large activity payload is compressed (`json/zlib`) and then
encrypted: ciphertext does not compress. An encrypted payload has the encoding `binary/encrypted` and names its
key in the metadata (`encryption-key-id`); its data is a random 12-byte nonce followed by the AES-GCM
ciphertext and tag of the whole inner payload (metadata and data), with the key id as associated data, so a
payload relabelled with another key id fails to decrypt instead of being read with the wrong key.

Keys come from the environment, or are passed in code (`EncryptionCodec({'k2': key})`):

- `AGENT_ENCRYPTION_KEYS`: `id:base64key` entries separated by commas, the first the current key;
- or `AGENT_ENCRYPTION_KEYS_FILE`: the path of a file holding the same entries, one a line (`#` starts a
  comment), e.g. a mounted secret.

Keys are 16, 24 or 32 random bytes (32 recommended: AES-256). To rotate, add a new key after the current one
on every process, then move it first: new payloads use the new key, and histories written with any listed key
still decode. Remove an old key only once no open run or retained history needs it. Payloads of other encodings
pass through decoding unchanged, so runs started before encryption was turned on keep working.

A payload whose key a process does not hold is refused with a `DecryptionError` that names the key id it needs
and the ones the process has ("Missing key id 'k1' ..."); one that was altered fails authentication. A process
without keys refuses encrypted payloads the same way: `with_encryption` gives its client a codec that writes
payloads as they are and recognises the encrypted ones (without it, the payload converter would meet an unknown
encoding, and the workflow fails its run on a payload it cannot decode). On a worker the error is raised while
the SDK decodes the task, before any workflow or activity code: a workflow task fails and the server retries it
until a worker holding the key takes it, so a worker that lacks the key (a rolling deploy, a missing secret) does
not fail the run; an activity attempt fails, and the workflow schedules the activity again until a worker with the
key runs it (see `workflows._missing_keys`). That failure is written in the clear (`EncryptedFailureConverter`): a
worker with other keys would encrypt it with a key the workflow's worker may lack.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from temporalio.api.common.v1 import Payload
from temporalio.api.failure.v1 import Failure
from temporalio.client import Client
from temporalio.converter import (
    DataConverter,
    DefaultFailureConverter,
    DefaultFailureConverterWithEncodedAttributes,
    PayloadCodec,
    PayloadConverter,
)
from temporalio.exceptions import ApplicationError

from activities._transient import MissingOnThisWorker
from agent.exceptions import UserError

from ._data_converter import data_converter

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

__all__ = (
    'ENCRYPTED_ENCODING',
    'KEYS_ENV_VAR',
    'KEYS_FILE_ENV_VAR',
    'KEY_ID_METADATA',
    'DecryptionError',
    'EncryptedFailureConverter',
    'EncryptionCodec',
    'EncryptionKeyError',
    'encrypted_data_converter',
    'with_encryption',
)

ENCRYPTED_ENCODING = 'binary/encrypted'
"""The encoding of an encrypted payload."""
KEY_ID_METADATA = 'encryption-key-id'
"""The metadata entry naming the key an encrypted payload was encrypted with."""
KEYS_ENV_VAR = 'AGENT_ENCRYPTION_KEYS'
"""The environment variable holding the keys: `id:base64key` entries separated by commas, the current one first."""
KEYS_FILE_ENV_VAR = 'AGENT_ENCRYPTION_KEYS_FILE'
"""The environment variable naming a file of keys: `id:base64key` entries, one a line, the current one first."""

_NONCE_BYTES = 12
_KEY_SIZES = (16, 24, 32)
_KEY_ID = re.compile(r'[A-Za-z0-9._-]+')


class EncryptionKeyError(UserError):
    """Encryption keys that cannot be used: malformed, the wrong size, or not readable."""


class DecryptionError(ValueError, MissingOnThisWorker):
    """An encrypted payload that cannot be decrypted: its key is not known, or it was altered.

    Raised in an activity's own code (reading a run's history), it is retried like I/O (`MissingOnThisWorker`):
    another worker may hold the key.
    """


class EncryptionCodec(PayloadCodec):
    """Encrypts payloads with AES-GCM under the current key; decrypts with any known key by the payload's key id.

    Args:
        keys: The keys by id, the current one (which encrypts) first; each 16, 24 or 32 bytes.

    Raises:
        EncryptionKeyError: if there are no keys, a key id is not letters, digits, `.`, `_` or `-`, a key is not
            16, 24 or 32 bytes, or the `cryptography` package is not installed.
    """

    def __init__(self, keys: Mapping[str, bytes]) -> None:
        if not keys:
            raise EncryptionKeyError('Give at least one encryption key.')
        for key_id, key in keys.items():
            if not _KEY_ID.fullmatch(key_id):
                raise EncryptionKeyError(
                    f'Encryption key id {key_id!r} is not valid: use letters, digits, ".", "_" and "-".'
                )
            if len(key) not in _KEY_SIZES:
                raise EncryptionKeyError(
                    f'Encryption key {key_id!r} is {len(key)} bytes: use 32 random bytes (or 16 or 24).'
                )
        self._keys = dict(keys)
        self._ciphers = {key_id: _aesgcm()(key) for key_id, key in self._keys.items()}

    @property
    def current_key_id(self) -> str:
        """The id of the key new payloads are encrypted with."""
        return next(iter(self._keys))

    @property
    def key_ids(self) -> tuple[str, ...]:
        """The ids of every key this codec can decrypt with, the current one first."""
        return tuple(self._keys)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EncryptionCodec | None:
        """The codec for the keys in `AGENT_ENCRYPTION_KEYS` or `AGENT_ENCRYPTION_KEYS_FILE`; `None` if neither is set.

        Args:
            environ: The environment to read (`os.environ` by default).

        Raises:
            EncryptionKeyError: if both variables are set, the file cannot be read, or the keys are malformed.
        """
        environ = os.environ if environ is None else environ
        text, path = environ.get(KEYS_ENV_VAR, '').strip(), environ.get(KEYS_FILE_ENV_VAR, '').strip()
        if text and path:
            raise EncryptionKeyError(f'Set {KEYS_ENV_VAR} or {KEYS_FILE_ENV_VAR}, not both.')
        if path:
            try:
                text = Path(path).read_text()
            except OSError as exc:
                raise EncryptionKeyError(
                    f'Cannot read the encryption keys file {path} (${KEYS_FILE_ENV_VAR}): {exc.strerror or exc}'
                ) from None
            return cls(_parse_keys(text, source=f'{path} (${KEYS_FILE_ENV_VAR})'))
        if text:
            return cls(_parse_keys(text, source=f'${KEYS_ENV_VAR}'))
        return None

    def is_encrypted(self, payload: Payload) -> bool:
        """Whether `payload` is one this codec's format encrypts (whichever key it names)."""
        return _is_encrypted(payload)

    def encrypt(self, payload: Payload) -> Payload:
        """`payload` encrypted with the current key (an already encrypted payload is returned as it is)."""
        if self.is_encrypted(payload):
            return payload
        key_id = self.current_key_id
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._ciphers[key_id].encrypt(nonce, payload.SerializeToString(), key_id.encode())
        return Payload(metadata={'encoding': _ENCRYPTED, KEY_ID_METADATA: key_id.encode()}, data=nonce + sealed)

    def decrypt(self, payload: Payload) -> Payload:
        """`payload` decrypted (a payload of another encoding is returned as it is).

        Raises:
            DecryptionError: if the payload names a key this codec does not know, or does not authenticate
                (it was altered, or encrypted with another key under the same id).
        """
        if not self.is_encrypted(payload):
            return payload
        key_id = _key_id(payload)
        cipher = self._ciphers.get(key_id)
        if cipher is None:
            raise _missing_key(key_id, self.key_ids)
        from cryptography.exceptions import InvalidTag

        nonce, sealed = payload.data[:_NONCE_BYTES], payload.data[_NONCE_BYTES:]
        try:
            inner = cipher.decrypt(nonce, sealed, key_id.encode())
        except (InvalidTag, ValueError):
            raise DecryptionError(
                f'A payload encrypted with key {key_id!r} does not authenticate: it was altered, '
                f'or key {key_id!r} is not the key it was encrypted with.'
            ) from None
        return Payload.FromString(inner)

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        """Encrypt `payloads` with the current key."""
        return [self.encrypt(payload) for payload in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        """Decrypt `payloads`; those of other encodings pass through.

        Raises:
            DecryptionError: for a payload with an unknown key id or that does not authenticate.
        """
        return [self.decrypt(payload) for payload in payloads]

    def __repr__(self) -> str:
        # Never the keys themselves: a repr ends up in logs.
        return f'EncryptionCodec(key_ids={list(self._keys)!r})'


_ENCRYPTED = ENCRYPTED_ENCODING.encode()


def _is_encrypted(payload: Payload) -> bool:
    return payload.metadata.get('encoding') == _ENCRYPTED


def _key_id(payload: Payload) -> str:
    return payload.metadata.get(KEY_ID_METADATA, b'').decode(errors='replace')


def _missing_key(key_id: str, held: Sequence[str]) -> DecryptionError:
    """The error for a payload encrypted with `key_id`, read by a process holding the keys `held` (maybe none)."""
    if held:
        has, fix = f'has keys {", ".join(held)}', f'add key {key_id!r} to {KEYS_ENV_VAR} after the current key'
    else:
        has, fix = 'has no encryption keys', f'set {KEYS_ENV_VAR} (or {KEYS_FILE_ENV_VAR}) with key {key_id!r}'
    return DecryptionError(
        f'Missing key id {key_id!r}: a payload is encrypted with key {key_id!r} and this process {has}; '
        f'{fix} to read it.'
    )


class _KeylessCodec(PayloadCodec):
    """The codec of a process without keys: payloads are written as they are, encrypted ones refused by key id.

    Without a codec, an encrypted payload would reach the payload converter as an unknown encoding; in a workflow
    that is a `PayloadDecodeError`, which fails the run (see `workflows._door`). Refused here, while the SDK decodes
    a task, it fails the workflow task or the activity attempt instead, and a worker holding the key takes it.
    """

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return list(payloads)

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        for payload in payloads:
            if _is_encrypted(payload):
                raise _missing_key(_key_id(payload), ())
        return list(payloads)


def _aesgcm() -> type[AESGCM]:
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        raise EncryptionKeyError(
            "Payload encryption needs the cryptography package: pip install 'durable-agents[encryption]'."
        ) from None
    return AESGCM


def _parse_keys(text: str, *, source: str) -> dict[str, bytes]:
    """The keys of `id:base64key` entries separated by commas or lines (`#` comments skipped), in order."""
    keys: dict[str, bytes] = {}
    lines = (line.split('#', 1)[0] for line in text.splitlines())
    entries = [entry.strip() for line in lines for entry in line.split(',') if entry.strip()]
    if not entries:
        raise EncryptionKeyError(f'{source} holds no encryption keys: give id:base64key entries.')
    for number, entry in enumerate(entries, 1):
        key_id, separator, encoded = entry.partition(':')
        key_id = key_id.strip()
        # The messages name the entry and its key id, never the key.
        if not separator or not key_id:
            raise EncryptionKeyError(f'Entry {number} of {source} is not id:base64key.')
        if key_id in keys:
            raise EncryptionKeyError(f'Key id {key_id!r} appears twice in {source}.')
        try:
            keys[key_id] = base64.b64decode(encoded.strip(), validate=True)
        except binascii.Error:
            raise EncryptionKeyError(f'The key of {key_id!r} in {source} is not valid base64.') from None
    return keys


class EncryptedFailureConverter(DefaultFailureConverterWithEncodedAttributes):
    """Moves failure messages and stack traces into encrypted payloads, except an activity's missing-key failure.

    An activity attempt on a worker without the run's key fails, before any activity code, with the SDK's "Failed
    decoding arguments" caused by a `DecryptionError`. A worker holding other keys would encrypt that failure with
    its own key, which the workflow's worker may not hold: the activity's result would then be one more payload the
    run cannot read, and the run would be stuck. It holds key ids only (which every encrypted payload names in the
    clear) and the SDK's decoding frames, so it is written as it is, for the workflow to read and schedule the
    activity again (see `workflows._missing_keys`).
    """

    def to_failure(self, exception: BaseException, payload_converter: PayloadConverter, failure: Failure) -> None:
        """Write `exception` to `failure`, in the clear for a missing key, else with its text encrypted."""
        missing_key = isinstance(exception.__cause__, DecryptionError)
        if missing_key and isinstance(exception, ApplicationError) and exception.message == _DECODING_FAILED:
            _PLAIN_FAILURES.to_failure(exception, payload_converter, failure)
        else:
            super().to_failure(exception, payload_converter, failure)


_DECODING_FAILED = 'Failed decoding arguments'  # the SDK's failure for an activity input it could not decode
_PLAIN_FAILURES = DefaultFailureConverter()


def encrypted_data_converter(codec: EncryptionCodec, converter: DataConverter = data_converter) -> DataConverter:
    """`converter` with `codec` encrypting its payloads, and failure messages moved into encrypted payloads.

    A failure converter of the caller's own is kept; the SDK's default one is swapped for
    `EncryptedFailureConverter`, its variant that encodes messages and stack traces.
    """
    failure_converter_class = converter.failure_converter_class
    if failure_converter_class is DefaultFailureConverter:
        failure_converter_class = EncryptedFailureConverter
    return dataclasses.replace(converter, payload_codec=codec, failure_converter_class=failure_converter_class)


def with_encryption(client: Client, codec: EncryptionCodec | None = None) -> Client:
    """`client`, or a client on the same connection that encrypts payloads (or, without keys, refuses encrypted ones).

    With `codec`, that codec is used. Without it, the keys configured in the environment are (see `from_env`),
    unless `client` already has a payload codec of its own. With no keys configured, the client writes payloads
    as they are and refuses encrypted ones with a `DecryptionError` naming the key id they need, so a worker
    without keys leaves encrypted runs to the workers that have the key instead of failing them.

    Raises:
        EncryptionKeyError: if the keys in the environment are malformed or cannot be read.
    """
    current = client.data_converter
    if codec is None:
        if current.payload_codec is not None:
            return client
        codec = EncryptionCodec.from_env()
    elif current.payload_codec is codec:
        return client
    config = client.config()
    if codec is None:
        config['data_converter'] = dataclasses.replace(current, payload_codec=_KeylessCodec())
    else:
        config['data_converter'] = encrypted_data_converter(codec, current)
    return Client(**config)
