"""`TestEmbeddingModel`: an embedding model for tests that never leaves the process.

```python
from agent.embeddings import Embedder
from agent.embeddings.test import TestEmbeddingModel

embedder = Embedder('openai:text-embedding-3-small')
model = TestEmbeddingModel()
with embedder.override(model=model):
    result = embedder.embed_query_sync('hello world')
assert result.embeddings == [[1.0] * 8]
```

Every vector is all ones, as in Pydantic AI, so snapshots of results stay stable; usage is the same word-count
estimate the fake chat models report.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent._env import uuid7
from agent.models._usage_estimate import estimate_string_tokens
from agent.usage import RequestUsage

from .base import EmbeddingModel
from .result import EmbeddingResult, EmbedInputType
from .settings import EmbeddingSettings

__all__ = ('TestEmbeddingModel',)


class TestEmbeddingModel(EmbeddingModel):
    """Returns vectors of ones (`dimensions` long, or the `dimensions` setting) and records the settings it got."""

    __test__ = False  # not a pytest test class, despite the name

    def __init__(
        self,
        model_name: str = 'test',
        *,
        provider_name: str = 'test',
        dimensions: int = 8,
        settings: EmbeddingSettings | None = None,
    ) -> None:
        """Create a test model.

        Args:
            model_name: The model name results report.
            provider_name: The provider name results report.
            dimensions: The length of the vectors, unless the `dimensions` setting asks for another.
            settings: Default settings of the model.
        """
        super().__init__(settings=settings)
        self._model_name = model_name
        self._provider_name = provider_name
        self._dimensions = dimensions
        self.last_settings: EmbeddingSettings | None = None
        """The merged settings of the latest `embed` call, for tests to assert on."""

    @property
    def model_name(self) -> str:
        """The model name given at construction."""
        return self._model_name

    @property
    def system(self) -> str:
        """The provider name given at construction."""
        return self._provider_name

    async def embed(
        self, inputs: str | Sequence[str], *, input_type: EmbedInputType, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        """Vectors of ones, one per input."""
        texts, merged = self.prepare_embed(inputs, settings)
        self.last_settings = merged
        dimensions = merged.get('dimensions') or self._dimensions
        return EmbeddingResult(
            [[1.0] * dimensions for _ in texts],
            inputs=texts,
            input_type=input_type,
            model_name=self._model_name,
            provider_name=self._provider_name,
            usage=RequestUsage(input_tokens=sum(estimate_string_tokens(text) for text in texts)),
            provider_response_id=uuid7(),
        )

    async def max_input_tokens(self) -> int | None:
        """1024, a fixed limit tests can rely on."""
        return 1024

    async def count_tokens(self, text: str) -> int:
        """The word-count estimate of `text`."""
        return estimate_string_tokens(text)
