"""The encryption codec: AES-GCM payloads with key ids, keys from the environment or a file, after compression."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.converter import DefaultFailureConverterWithEncodedAttributes

from activities._types import CallToolOutput
from workflows import DecryptionError, EncryptionCodec, EncryptionKeyError, data_converter, encrypted_data_converter
from workflows._data_converter import COMPRESSED_ENCODING, SharedPydanticPayloadConverter
from workflows._encryption import (
    ENCRYPTED_ENCODING,
    KEY_ID_METADATA,
    KEYS_ENV_VAR,
    KEYS_FILE_ENV_VAR,
    EncryptedFailureConverter,
)

KEY_A, KEY_B = os.urandom(32), os.urandom(32)
SECRET = b'"the launch code is 0000"'


def plain(data: bytes = SECRET) -> Payload:
    return Payload(metadata={'encoding': b'json/plain'}, data=data)


def b64(key: bytes) -> str:
    return base64.b64encode(key).decode()


def test_a_payload_is_encrypted_under_the_current_key_and_decrypts_to_the_same_payload() -> None:
    codec = EncryptionCodec({'a': KEY_A})
    encrypted = codec.encrypt(plain())
    assert encrypted.metadata['encoding'] == ENCRYPTED_ENCODING.encode()
    assert encrypted.metadata[KEY_ID_METADATA] == b'a'
    assert b'launch code' not in encrypted.SerializeToString()
    assert b'json/plain' not in encrypted.SerializeToString()  # the inner metadata is encrypted too
    assert codec.decrypt(encrypted) == plain()
    # A fresh nonce each time: the same payload never encrypts to the same bytes.
    assert codec.encrypt(plain()).data != encrypted.data


async def test_the_codec_interface_encodes_and_decodes_every_payload() -> None:
    codec = EncryptionCodec({'a': KEY_A})
    payloads = [plain(b'"one"'), plain(b'"two"')]
    encoded = await codec.encode(payloads)
    assert all(codec.is_encrypted(p) for p in encoded)
    assert await codec.decode(encoded) == payloads


def test_after_rotation_new_payloads_use_the_new_key_and_old_ones_still_decode() -> None:
    old = EncryptionCodec({'a': KEY_A}).encrypt(plain())
    rotated = EncryptionCodec({'b': KEY_B, 'a': KEY_A})
    assert rotated.current_key_id == 'b'
    assert rotated.decrypt(old) == plain()
    assert rotated.encrypt(plain()).metadata[KEY_ID_METADATA] == b'b'


def test_an_unknown_key_id_fails_naming_the_id_and_the_keys_held() -> None:
    encrypted = EncryptionCodec({'a': KEY_A}).encrypt(plain())
    with pytest.raises(DecryptionError) as raised:
        EncryptionCodec({'b': KEY_B, 'c': KEY_A}).decrypt(encrypted)
    assert str(raised.value) == (
        "Missing key id 'a': a payload is encrypted with key 'a' and this process has keys b, c; "
        "add key 'a' to AGENT_ENCRYPTION_KEYS after the current key to read it."
    )


def test_tampered_ciphertext_fails_authentication_clearly() -> None:
    codec = EncryptionCodec({'a': KEY_A})
    encrypted = codec.encrypt(plain())
    flipped = bytearray(encrypted.data)
    flipped[-20] ^= 1
    tampered = Payload(metadata=dict(encrypted.metadata), data=bytes(flipped))
    with pytest.raises(DecryptionError, match="encrypted with key 'a' does not authenticate: it was altered"):
        codec.decrypt(tampered)
    truncated = Payload(metadata=dict(encrypted.metadata), data=encrypted.data[:8])
    with pytest.raises(DecryptionError, match='does not authenticate'):
        codec.decrypt(truncated)


def test_a_payload_relabelled_with_another_key_id_does_not_decrypt() -> None:
    # The key id is authenticated data: swapping it cannot make another key's payload pass for this one's.
    codec = EncryptionCodec({'a': KEY_A, 'b': KEY_A})
    encrypted = codec.encrypt(plain())
    relabelled = Payload(metadata={**encrypted.metadata, KEY_ID_METADATA: b'b'}, data=encrypted.data)
    with pytest.raises(DecryptionError, match="key 'b' does not authenticate"):
        codec.decrypt(relabelled)


def test_payloads_of_other_encodings_pass_through_both_ways_once() -> None:
    codec = EncryptionCodec({'a': KEY_A})
    assert codec.decrypt(plain()) == plain()  # written before encryption was turned on
    encrypted = codec.encrypt(plain())
    assert codec.encrypt(encrypted) == encrypted  # never encrypted twice


def test_large_activity_payloads_are_compressed_then_encrypted() -> None:
    converter = encrypted_data_converter(EncryptionCodec({'a': KEY_A}))
    assert converter.payload_converter_class is SharedPydanticPayloadConverter
    assert converter.failure_converter_class is EncryptedFailureConverter
    assert issubclass(EncryptedFailureConverter, DefaultFailureConverterWithEncodedAttributes)
    text = ' '.join(f'word{i % 97} of a long tool result' for i in range(200))
    [stored] = data_converter.payload_converter.to_payloads([CallToolOutput(result=text)])
    assert stored.metadata['encoding'] == COMPRESSED_ENCODING.encode()
    codec = converter.payload_codec
    assert isinstance(codec, EncryptionCodec)
    [encrypted] = [codec.encrypt(stored)]
    inner = codec.decrypt(encrypted)
    assert inner.metadata['encoding'] == COMPRESSED_ENCODING.encode()
    assert len(encrypted.data) < len(text) / 3  # compressed first: ciphertext would not deflate
    assert converter.payload_converter.from_payloads([inner], [CallToolOutput]) == [CallToolOutput(result=text)]


async def test_the_data_converter_round_trips_values_through_encryption() -> None:
    converter = encrypted_data_converter(EncryptionCodec({'a': KEY_A}))
    value = CallToolOutput(result={'city': 'Lisbon'})
    [encoded] = await converter.encode([value])
    assert b'Lisbon' not in encoded.SerializeToString()
    assert await converter.decode([encoded], [CallToolOutput]) == [value]


def test_keys_come_from_the_environment_with_the_first_current() -> None:
    codec = EncryptionCodec.from_env({KEYS_ENV_VAR: f' b:{b64(KEY_B)} , a:{b64(KEY_A)} '})
    assert codec is not None
    assert codec.key_ids == ('b', 'a')
    assert codec.current_key_id == 'b'
    assert EncryptionCodec.from_env({}) is None


def test_keys_come_from_a_file_one_a_line_with_comments(tmp_path: Path) -> None:
    keys = tmp_path / 'keys'
    keys.write_text(f'# rotated 2026-01\nb:{b64(KEY_B)}\n\na:{b64(KEY_A)}  # until the old runs age out\n')
    codec = EncryptionCodec.from_env({KEYS_FILE_ENV_VAR: str(keys)})
    assert codec is not None
    assert codec.key_ids == ('b', 'a')
    assert codec.decrypt(EncryptionCodec({'a': KEY_A}).encrypt(plain())) == plain()


@pytest.mark.parametrize(
    ('environ', 'message'),
    [
        ({KEYS_ENV_VAR: 'a'}, rf'Entry 1 of \${KEYS_ENV_VAR} is not id:base64key'),
        ({KEYS_ENV_VAR: f'a:{b64(KEY_A)},b:not base64!'}, r"The key of 'b' in \$AGENT_ENCRYPTION_KEYS is not valid"),
        ({KEYS_ENV_VAR: f'a:{b64(KEY_A)},a:{b64(KEY_B)}'}, "Key id 'a' appears twice"),
        ({KEYS_ENV_VAR: f'a:{b64(b"short")}'}, "Encryption key 'a' is 5 bytes: use 32 random bytes"),
        ({KEYS_ENV_VAR: f'a b:{b64(KEY_A)}'}, "Encryption key id 'a b' is not valid"),
        ({KEYS_ENV_VAR: ' , '}, 'holds no encryption keys'),
        ({KEYS_ENV_VAR: f'a:{b64(KEY_A)}', KEYS_FILE_ENV_VAR: '/keys'}, 'not both'),
        ({KEYS_FILE_ENV_VAR: '/no/such/keys'}, 'Cannot read the encryption keys file /no/such/keys'),
    ],
)
def test_malformed_keys_are_a_clear_error_that_never_shows_a_key(environ: dict[str, str], message: str) -> None:
    with pytest.raises(EncryptionKeyError, match=message) as raised:
        EncryptionCodec.from_env(environ)
    assert b64(KEY_A) not in str(raised.value)
    assert b64(KEY_B) not in str(raised.value)


def test_the_repr_names_key_ids_only() -> None:
    assert repr(EncryptionCodec({'a': KEY_A, 'b': KEY_B})) == "EncryptionCodec(key_ids=['a', 'b'])"
