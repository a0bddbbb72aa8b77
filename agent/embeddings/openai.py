"""`OpenAIEmbeddingModel`: OpenAI's embeddings API (`POST /embeddings`), or any server that speaks it.

```python
from agent.embeddings import Embedder
from agent.embeddings.openai import OpenAIEmbeddingModel
from agent.providers.openai import OpenAIProvider

embedder = Embedder('openai:text-embedding-3-small')  # key from OPENAI_API_KEY, on first use
local = OpenAIEmbeddingModel('nomic-embed-text', provider=OpenAIProvider(base_url='http://localhost:11434/v1'))
```

Requests go through the provider's HTTP client like the chat models' do, so they fail the same way: a missing
key is a `UserError` naming `OPENAI_API_KEY`, an error status a `ModelHTTPError`, anything else a `ModelAPIError`.
"""

from __future__ import annotations

import base64
import importlib
import struct
from collections.abc import Sequence
from typing import Any, Literal

from agent._threads import run_sync_in_thread
from agent.exceptions import ModelAPIError, UserError
from agent.models import check_allow_model_requests
from agent.models._http import HTTPCall, post_json
from agent.models._openai_common import is_openai_api
from agent.models._wire import as_dict, as_int, as_list
from agent.providers import Provider, infer_provider
from agent.usage import RequestUsage

from .base import EmbeddingModel
from .result import EmbeddingResult, EmbedInputType
from .settings import EmbeddingSettings

__all__ = ('OpenAIEmbeddingModel', 'OpenAIEmbeddingModelName', 'OpenAIEmbeddingSettings')

OpenAIEmbeddingModelName = str | Literal['text-embedding-ada-002', 'text-embedding-3-small', 'text-embedding-3-large']
"""OpenAI's embedding models; any other name is sent as given (compatible servers have their own)."""

OPENAI_MAX_INPUT_TOKENS = 8192
"""The input limit of OpenAI's embedding models."""


class OpenAIEmbeddingSettings(EmbeddingSettings, total=False):
    """Settings of an OpenAI embedding request: the common ones (OpenAI-only keys would start with `openai_`)."""


class OpenAIEmbeddingModel(EmbeddingModel):
    """An embedding model behind OpenAI's embeddings API."""

    def __init__(
        self,
        model_name: OpenAIEmbeddingModelName,
        *,
        provider: Literal['openai'] | str | Provider = 'openai',
        settings: EmbeddingSettings | None = None,
    ) -> None:
        """Create a model.

        Args:
            model_name: The model, e.g. `'text-embedding-3-small'`.
            provider: Where requests go: a provider, or a provider name built from the environment.
            settings: Default settings of every request.

        Raises:
            UserError: if the provider is named and its API key is not set.
        """
        super().__init__(settings=settings)
        self._model_name = model_name
        self._provider = infer_provider(provider) if isinstance(provider, str) else provider

    @property
    def model_name(self) -> str:
        """The model name requests carry."""
        return self._model_name

    @property
    def system(self) -> str:
        """The provider's name, `'openai'` by default."""
        return self._provider.name

    @property
    def base_url(self) -> str:
        """The provider's base URL."""
        return self._provider.base_url

    async def embed(
        self, inputs: str | Sequence[str], *, input_type: EmbedInputType, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        """Send the inputs to `POST /embeddings` and return the vectors in input order.

        OpenAI's embeddings have no query/document distinction, so `input_type` is only reported back.

        Raises:
            ModelHTTPError: when the server answers with an error status.
            ModelAPIError: when the request fails otherwise or the answer is not a list of vectors.
        """
        texts, merged = self.prepare_embed(inputs, settings)
        check_allow_model_requests()
        headers = {**self._provider.auth_headers(), **merged.get('extra_headers', {})}
        call = HTTPCall(url=self._provider.url('embeddings'), body=self._body(texts, merged), headers=headers)
        data = await post_json(self._provider.http_client, call, model_name=self._model_name)
        items = [as_dict(item) for item in as_list(data.get('data'))]
        items.sort(key=lambda item: as_int(item.get('index')))
        vectors = [self._vector(item.get('embedding')) for item in items]
        if len(vectors) != len(texts):
            raise ModelAPIError(self._model_name, f'Expected {len(texts)} embeddings, the response has {len(vectors)}')
        model = data.get('model')
        return EmbeddingResult(
            vectors,
            inputs=texts,
            input_type=input_type,
            model_name=model if isinstance(model, str) and model else self._model_name,
            provider_name=self.system,
            usage=_usage(as_dict(data.get('usage'))),
        )

    def _body(self, texts: list[str], settings: EmbeddingSettings) -> dict[str, Any]:
        body: dict[str, Any] = {'input': texts, 'model': self._model_name}
        if dimensions := settings.get('dimensions'):
            body['dimensions'] = dimensions
        extra = settings.get('extra_body')
        if isinstance(extra, dict):
            body.update(as_dict(extra))
        return body

    def _vector(self, value: object) -> list[float]:
        if isinstance(value, list):
            return [float(x) for x in as_list(value)]
        if isinstance(value, str):
            # `encoding_format: "base64"` (e.g. through `extra_body`) packs the vector as little-endian float32.
            raw = base64.b64decode(value)
            return list(struct.unpack(f'<{len(raw) // 4}f', raw))
        raise ModelAPIError(self._model_name, f'Expected an embedding vector, got {value!r:.200}')

    async def max_input_tokens(self) -> int | None:
        """8192 on OpenAI's own API; unknown (`None`) on compatible servers."""
        return OPENAI_MAX_INPUT_TOKENS if is_openai_api(self._provider) else None

    async def count_tokens(self, text: str) -> int:
        """The tokens of `text` in the model's `tiktoken` encoding.

        Raises:
            UserError: on a compatible server (its tokenizer is unknown), when `tiktoken` is not installed, or when
                `tiktoken` does not know the model.
        """
        if not is_openai_api(self._provider):
            raise UserError('Counting tokens is only supported for models on the OpenAI API itself.')
        try:
            tiktoken: Any = importlib.import_module('tiktoken')
        except ImportError as exc:
            raise UserError('Counting OpenAI tokens needs `tiktoken`: `pip install tiktoken`.') from exc
        try:
            # Loading an encoding can read (or download) a file: keep it off the event loop.
            encoding = await run_sync_in_thread(tiktoken.encoding_for_model, self._model_name)
        except KeyError as exc:
            raise UserError(f'`tiktoken` has no encoding for the model {self._model_name!r}.') from exc
        return len(encoding.encode(text))


def _usage(usage: dict[str, Any]) -> RequestUsage:
    # Compatible servers may leave `usage` out; it then reads as zero tokens.
    details = {
        key: value
        for key, value in usage.items()
        if key not in ('prompt_tokens', 'total_tokens') and isinstance(value, int) and not isinstance(value, bool)
    }
    return RequestUsage(input_tokens=as_int(usage.get('prompt_tokens')), details=details)
