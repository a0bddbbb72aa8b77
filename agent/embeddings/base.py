"""`EmbeddingModel`: the interface an embedding provider implements.

A subclass names itself (`model_name`, `system`) and implements `embed`, starting with `prepare_embed` so a
single string and the model's default settings are handled the same way everywhere. Token limits and
counting are optional: the defaults say "unknown" and "unsupported".
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from .result import EmbeddingResult, EmbedInputType
from .settings import EmbeddingSettings, merge_embedding_settings

__all__ = ('EmbeddingModel',)


class EmbeddingModel(ABC):
    """Turns texts into vectors; subclass it to add a provider (see `agent.embeddings.openai`)."""

    _settings: EmbeddingSettings | None = None

    def __init__(self, *, settings: EmbeddingSettings | None = None) -> None:
        """Create a model.

        Args:
            settings: Defaults for every request to this model; the embedder's and the call's settings win.
        """
        self._settings = settings

    @property
    def settings(self) -> EmbeddingSettings | None:
        """The model's default settings."""
        return self._settings

    @property
    def base_url(self) -> str | None:
        """The URL of the provider's API, when the model has one."""
        return None

    @property
    @abstractmethod
    def model_name(self) -> str:
        """The provider's name for the model."""
        raise NotImplementedError

    @property
    @abstractmethod
    def system(self) -> str:
        """The provider serving the model, e.g. `'openai'`."""
        raise NotImplementedError

    @abstractmethod
    async def embed(
        self, inputs: str | Sequence[str], *, input_type: EmbedInputType, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        """Embed `inputs`: one vector per text, in order.

        Args:
            inputs: One text or several.
            input_type: Whether the texts are search queries or documents.
            settings: Settings for this request, over the model's defaults.
        """
        raise NotImplementedError

    def prepare_embed(
        self, inputs: str | Sequence[str], settings: EmbeddingSettings | None = None
    ) -> tuple[list[str], EmbeddingSettings]:
        """The inputs as a list and the settings merged over the model's defaults; call it first in `embed`."""
        texts = [inputs] if isinstance(inputs, str) else list(inputs)
        return texts, merge_embedding_settings(self._settings, settings) or EmbeddingSettings()

    async def max_input_tokens(self) -> int | None:
        """The most tokens one input may have, or `None` when unknown."""
        return None

    async def count_tokens(self, text: str) -> int:
        """The number of tokens the model sees in `text`.

        Raises:
            NotImplementedError: if the model cannot count tokens.
        """
        raise NotImplementedError(f'{type(self).__name__} cannot count tokens.')
