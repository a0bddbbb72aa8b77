"""`EmbeddingSettings`: the options of an embedding request, and how layers of them combine.

Settings come from three places, each overriding the one before: the model (`EmbeddingModel(settings=...)`),
the embedder (`Embedder(settings=...)`) and the call (`embed_query(..., settings=...)`).
"""

from __future__ import annotations

from typing_extensions import TypedDict

__all__ = ('EmbeddingSettings', 'merge_embedding_settings')


class EmbeddingSettings(TypedDict, total=False):
    """Options of an embedding request; a model ignores those its API has no counterpart for.

    Provider-specific settings (`OpenAIEmbeddingSettings`, ...) extend this with keys prefixed by the provider's
    name, so one dict can carry settings for several models.
    """

    dimensions: int
    """How many dimensions the returned vectors have (for models that can shorten their vectors)."""

    truncate: bool
    """Whether an input longer than the model's context is cut to fit instead of failing the request."""

    extra_headers: dict[str, str]
    """Headers added to the HTTP request."""

    extra_body: object
    """A JSON object whose keys are merged over the top level of the request body."""


def merge_embedding_settings(
    base: EmbeddingSettings | None, overrides: EmbeddingSettings | None
) -> EmbeddingSettings | None:
    """`base` with the keys of `overrides` replacing its own (a shallow merge); `None` when both are empty.

    Args:
        base: The settings in force, e.g. the embedder's.
        overrides: The settings that win, e.g. the call's.
    """
    if base and overrides:
        return base | overrides
    return base or overrides
