"""Turning an embedding model name like `'openai:text-embedding-3-small'` into an `EmbeddingModel`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from typing_extensions import TypeAliasType

from agent.exceptions import UserError
from agent.providers import Provider, infer_provider

from .base import EmbeddingModel

__all__ = ('KnownEmbeddingModelName', 'infer_embedding_model')

KnownEmbeddingModelName = TypeAliasType(
    'KnownEmbeddingModelName',
    Literal[
        'openai:text-embedding-ada-002',
        'openai:text-embedding-3-small',
        'openai:text-embedding-3-large',
    ],
)
"""The embedding model names known to work with `Embedder(...)`; other `'<provider>:<model>'` names may too."""

_OPENAI_PROVIDERS = ('openai', 'openai-chat', 'openai-responses')
"""Provider names served by `OpenAIEmbeddingModel` (what `infer_provider` builds an `OpenAIProvider` for)."""


def infer_embedding_model(
    model: EmbeddingModel | KnownEmbeddingModelName | str,
    *,
    provider_factory: Callable[[str], Provider[Any]] = infer_provider,
) -> EmbeddingModel:
    """The model for `model`: an `EmbeddingModel` as is, or one built from a `'<provider>:<model>'` name.

    Args:
        model: A model, or its name.
        provider_factory: Builds the provider a name's prefix names; `infer_provider` (keys from the environment)
            by default.

    Raises:
        UserError: if the name has no provider prefix, names a provider without embeddings here, or the
            provider's API key is not set.
    """
    if isinstance(model, EmbeddingModel):
        return model
    provider_name, colon, model_name = model.partition(':')
    if not colon or not provider_name or not model_name:
        raise UserError(
            f'Cannot infer an embedding model from {model!r}: use the "<provider>:<model>" format, '
            f'e.g. "openai:text-embedding-3-small", or pass an EmbeddingModel instance.'
        )
    if provider_name not in _OPENAI_PROVIDERS:
        raise UserError(
            f'Unknown embedding model provider {provider_name!r} in {model!r}: use "openai" (for any '
            f'OpenAI-compatible server, pass `OpenAIEmbeddingModel(..., provider=OpenAIProvider(base_url=...))`).'
        )
    from .openai import OpenAIEmbeddingModel

    return OpenAIEmbeddingModel(model_name, provider=provider_factory(provider_name))
