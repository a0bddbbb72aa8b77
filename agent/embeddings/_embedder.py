"""`Embedder`: the front door to embedding models, the way `Agent` is to chat models.

```python
from agent.embeddings import Embedder
from agent.embeddings.test import TestEmbeddingModel

embedder = Embedder(TestEmbeddingModel(), settings={'dimensions': 4})
result = embedder.embed_documents_sync(['Paris is in France.', 'Rome is in Italy.'])
assert result['Rome is in Italy.'] == [1.0, 1.0, 1.0, 1.0]
```

A model name is resolved on first use (unless `defer_model_check=False`), so an embedder can be built at import
time before the API key is set. `override(model=...)` swaps the model for a block of code, through a `ContextVar`
so concurrent tasks outside the block keep the real one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Generator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, ClassVar, TypeVar

from agent._override import UNSET
from agent.exceptions import UserError

from ._infer import KnownEmbeddingModelName, infer_embedding_model
from .base import EmbeddingModel
from .result import EmbeddingResult, EmbedInputType
from .settings import EmbeddingSettings, merge_embedding_settings

__all__ = ('Embedder',)

_T = TypeVar('_T')


class Embedder:
    """Embeds texts with a model: queries with `embed_query`, the texts searched with `embed_documents`."""

    _instrument_default: ClassVar[Any] = False

    def __init__(
        self,
        model: EmbeddingModel | KnownEmbeddingModelName | str,
        *,
        settings: EmbeddingSettings | None = None,
        defer_model_check: bool = True,
        instrument: Any = None,
    ) -> None:
        """Create an embedder.

        Args:
            model: The model, or its name (`'openai:text-embedding-3-small'`).
            settings: Defaults for every call; a call's own settings win.
            defer_model_check: Resolve a model name on first use (the default) rather than now.
            instrument: Accepted for compatibility with Pydantic AI; this runtime emits no OpenTelemetry spans.

        Raises:
            UserError: with `defer_model_check=False`, if the name cannot be resolved or its API key is not set.
        """
        self._model: EmbeddingModel | str = model if defer_model_check else infer_embedding_model(model)
        self._settings = settings
        self.instrument: Any = instrument
        """Instrumentation options, kept for compatibility (no effect here)."""
        self._override_model: ContextVar[EmbeddingModel | None] = ContextVar('_override_model', default=None)

    @staticmethod
    def instrument_all(instrument: Any = True) -> None:
        """Set the instrumentation default of all embedders (kept for compatibility; no effect here)."""
        Embedder._instrument_default = instrument

    @property
    def model(self) -> EmbeddingModel | KnownEmbeddingModelName | str:
        """The model, or its name while it has not been resolved yet."""
        return self._model

    @contextmanager
    def override(self, *, model: EmbeddingModel | KnownEmbeddingModelName | str = UNSET) -> Generator[None]:
        """Use another model inside the `with` block, typically a `TestEmbeddingModel` in tests.

        Args:
            model: The model to use instead, or its name.

        Raises:
            UserError: if a model name cannot be resolved.
        """
        token = None if model is UNSET else self._override_model.set(infer_embedding_model(model))
        try:
            yield
        finally:
            if token is not None:
                self._override_model.reset(token)

    async def embed_query(
        self, query: str | Sequence[str], *, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        """Embed one search query or several.

        Args:
            query: The query text, or texts.
            settings: Settings for this call, over the embedder's.
        """
        return await self.embed(query, input_type='query', settings=settings)

    async def embed_documents(
        self, documents: str | Sequence[str], *, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        """Embed one document or several, to be searched later.

        Args:
            documents: The document text, or texts.
            settings: Settings for this call, over the embedder's.
        """
        return await self.embed(documents, input_type='document', settings=settings)

    async def embed(
        self, inputs: str | Sequence[str], *, input_type: EmbedInputType, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        """Embed texts as queries or documents (`embed_query`/`embed_documents` say which for you).

        Args:
            inputs: One text or several.
            input_type: `'query'` or `'document'`.
            settings: Settings for this call, over the embedder's.

        Raises:
            UserError: if the model name cannot be resolved or its API key is not set.
            ModelHTTPError: when the provider answers with an error status.
            ModelAPIError: when the request fails otherwise.
        """
        model = self._get_model()
        merged = merge_embedding_settings(self._settings, settings)
        return await model.embed(inputs, input_type=input_type, settings=merged)

    async def max_input_tokens(self) -> int | None:
        """The most tokens one input may have, or `None` when the model does not say."""
        return await self._get_model().max_input_tokens()

    async def count_tokens(self, text: str) -> int:
        """The number of tokens the model sees in `text`.

        Raises:
            NotImplementedError: if the model cannot count tokens.
            UserError: if the model's tokenizer is unavailable.
        """
        return await self._get_model().count_tokens(text)

    def embed_query_sync(
        self, query: str | Sequence[str], *, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        """`embed_query`, run in a fresh event loop."""
        return _run_sync(lambda: self.embed_query(query, settings=settings))

    def embed_documents_sync(
        self, documents: str | Sequence[str], *, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        """`embed_documents`, run in a fresh event loop."""
        return _run_sync(lambda: self.embed_documents(documents, settings=settings))

    def embed_sync(
        self, inputs: str | Sequence[str], *, input_type: EmbedInputType, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        """`embed`, run in a fresh event loop."""
        return _run_sync(lambda: self.embed(inputs, input_type=input_type, settings=settings))

    def max_input_tokens_sync(self) -> int | None:
        """`max_input_tokens`, run in a fresh event loop."""
        return _run_sync(self.max_input_tokens)

    def count_tokens_sync(self, text: str) -> int:
        """`count_tokens`, run in a fresh event loop."""
        return _run_sync(lambda: self.count_tokens(text))

    def _get_model(self) -> EmbeddingModel:
        if (override := self._override_model.get()) is not None:
            return override
        # Resolved once and kept, so the provider (and its key) is built on first use only.
        model = self._model = infer_embedding_model(self._model)
        return model


def _run_sync(make: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
    # The coroutine is only created once we know it can run, so a refused call leaves no un-awaited coroutine.
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    raise UserError('The `*_sync` methods cannot be called from a running event loop; await the async method.')
