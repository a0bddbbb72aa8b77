"""`python -m deploy.codec_server`: the codec endpoint for the Temporal Web UI and CLI, run on its own.

It shows compressed and encrypted payloads as plain JSON; what it does and its limits are in
`workflows._codec_server`, whose public names are here too. `agents codec ARGS` is the same command.

```bash
python -m deploy.codec_server --port 8081        # then set the UI's codec endpoint to http://localhost:8081
```
"""

from __future__ import annotations

from workflows._codec_server import (
    DEFAULT_ALLOWED_ORIGINS,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_INFLATED_PAYLOAD_BYTES,
    DEFAULT_MAX_INFLATED_REQUEST_BYTES,
    TOKEN_ENV_VAR,
    CodecError,
    CodecServer,
    PayloadTooLarge,
    decode_payloads,
    encode_payloads,
    main,
)

__all__ = (
    'DEFAULT_ALLOWED_ORIGINS',
    'DEFAULT_MAX_BODY_BYTES',
    'DEFAULT_MAX_INFLATED_PAYLOAD_BYTES',
    'DEFAULT_MAX_INFLATED_REQUEST_BYTES',
    'TOKEN_ENV_VAR',
    'CodecError',
    'CodecServer',
    'PayloadTooLarge',
    'decode_payloads',
    'encode_payloads',
    'main',
)

if __name__ == '__main__':
    main()
