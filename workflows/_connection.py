"""Where a client connects, the way Temporal's own tools decide it.

The `temporal` CLI and every Temporal SDK read a connection from the same places: a profile of the CLI's config
file (`temporal config set ...`; `TEMPORAL_CONFIG_FILE` says where it is, `TEMPORAL_PROFILE` which profile), then
environment variables over it (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS_*`).
`temporalio.envconfig` does that reading; this module only lays explicit settings (command-line flags, arguments)
over its result, so `agents ...`, `AgentClient.connect()` and a worker agree on where a namespace lives. Temporal
Cloud then works by configuration alone: an API key turns TLS on, a client certificate and key give mTLS.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from temporalio.envconfig import ClientConfigProfile, ClientConfigTLS, ClientConnectConfig

__all__ = ('DEFAULT_ADDRESS', 'DEFAULT_NAMESPACE', 'connect_config')

DEFAULT_ADDRESS = 'localhost:7233'
"""Where a client connects when nothing configures an address: a local dev server's default port."""
DEFAULT_NAMESPACE = 'default'
"""The namespace a client uses when nothing configures one."""


def connect_config(
    *,
    address: str | None = None,
    namespace: str | None = None,
    api_key: str | None = None,
    tls_cert: str | Path | None = None,
    tls_key: str | Path | None = None,
    profile: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> ClientConnectConfig:
    """The keyword arguments of `Client.connect` from Temporal's environment configuration, `None`s left to it.

    Args:
        address: The frontend's `host:port`, over `TEMPORAL_ADDRESS` (default `localhost:7233`).
        namespace: Over `TEMPORAL_NAMESPACE` (default `default`).
        api_key: Over `TEMPORAL_API_KEY`; turns TLS on unless the configuration disables it.
        tls_cert: A client certificate file for mTLS, over `TEMPORAL_TLS_CLIENT_CERT_PATH`.
        tls_key: Its private key file, over `TEMPORAL_TLS_CLIENT_KEY_PATH`.
        profile: The profile of the `temporal` CLI's config file, over `TEMPORAL_PROFILE`.
        environ: The environment to read instead of the process's (tests).

    Raises:
        ValueError: if only one of `tls_cert` and `tls_key` is given.
        OSError: if a certificate or key file cannot be read.
        RuntimeError: if the config file or a `TEMPORAL_*` variable is malformed (the SDK's error).
    """
    if (tls_cert is None) != (tls_key is None):
        raise ValueError('A client certificate needs its key (and the key its certificate): give both.')
    loaded = ClientConfigProfile.load(profile, override_env_vars=environ)
    changes: dict[str, Any] = {}
    if address:
        changes['address'] = address
    if namespace:
        changes['namespace'] = namespace
    if api_key:
        changes['api_key'] = api_key
    if tls_cert is not None and tls_key is not None:
        # The server's CA and name stay as configured; only the client's identity is replaced.
        tls = loaded.tls or ClientConfigTLS()
        changes['tls'] = dataclasses.replace(
            tls, disabled=False, client_cert=Path(tls_cert), client_private_key=Path(tls_key)
        )
    config = dataclasses.replace(loaded, **changes).to_client_connect_config()
    config.setdefault('target_host', DEFAULT_ADDRESS)
    config.setdefault('namespace', DEFAULT_NAMESPACE)
    return config
