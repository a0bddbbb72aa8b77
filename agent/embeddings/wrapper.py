"""`WrapperEmbeddingModel`: an embedding model that delegates to another, the base for adding behaviour around one."""

from __future__ import annotations

from collections.abc import Sequence

from .base import EmbeddingModel
from .result import EmbeddingResult, EmbedInputType
from .settings import EmbeddingSettings

__all__ = ('WrapperEmbeddingModel',)


class WrapperEmbeddingModel(EmbeddingModel):
    """Delegates everything to `wrapped`; subclasses override what they change (caching, logging, limits...)."""

    def __init__(self, wrapped: EmbeddingModel | str) -> None:
        """Wrap a model.

        Args:
            wrapped: The model, or a model name resolved with `infer_embedding_model`.
        """
        from ._infer import infer_embedding_model

        super().__init__()
        self.wrapped: EmbeddingModel = infer_embedding_model(wrapped)
        """The model requests are delegated to."""

    @property
    def model_name(self) -> str:
        """The wrapped model's name."""
        return self.wrapped.model_name

    @property
    def system(self) -> str:
        """The wrapped model's provider."""
        return self.wrapped.system

    @property
    def settings(self) -> EmbeddingSettings | None:
        """The wrapped model's default settings."""
        return self.wrapped.settings

    @property
    def base_url(self) -> str | None:
        """The wrapped model's base URL."""
        return self.wrapped.base_url

    async def embed(
        self, inputs: str | Sequence[str], *, input_type: EmbedInputType, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        """Embed with the wrapped model."""
        return await self.wrapped.embed(inputs, input_type=input_type, settings=settings)

    async def max_input_tokens(self) -> int | None:
        """The wrapped model's limit."""
        return await self.wrapped.max_input_tokens()

    async def count_tokens(self, text: str) -> int:
        """The wrapped model's count."""
        return await self.wrapped.count_tokens(text)
