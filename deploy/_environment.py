"""A Temporal client for the deploy tools, from Temporal's environment configuration."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.envconfig import ClientConfig

__all__ = ('connect_from_environment',)


async def connect_from_environment(address: str | None = None, namespace: str | None = None) -> Client:
    """A client from Temporal's environment configuration, with `address` and `namespace` overriding it.

    The configuration is what the `temporal` CLI and the SDKs read: `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`,
    `TEMPORAL_API_KEY`, the TLS variables and `TEMPORAL_PROFILE` in the CLI's config file; a container sets them
    in its environment.

    Raises:
        RuntimeError: if the server cannot be reached (the SDK's error, naming the address).
    """
    config = ClientConfig.load_client_connect_config()
    if address:
        config['target_host'] = address
    if namespace:
        config['namespace'] = namespace
    config.setdefault('target_host', 'localhost:7233')
    return await Client.connect(**config)
