"""Embeddings: turning texts into vectors for search and retrieval.

```
Embedder                      embed_query / embed_documents / embed, and their *_sync forms
└── EmbeddingModel            agent.embeddings.base
    ├── OpenAIEmbeddingModel  agent.embeddings.openai   'openai:text-embedding-3-small', POST /embeddings
    ├── TestEmbeddingModel    agent.embeddings.test     vectors of ones, for tests
    └── WrapperEmbeddingModel agent.embeddings.wrapper  delegates, the base for adding behaviour
EmbeddingResult               the vectors, with inputs, model, provider, usage and time
EmbeddingSettings             dimensions, truncate, extra_headers, extra_body
```

Embedding calls are ordinary network calls: inside a durable agent, make them from tools (which run as
activities), never from workflow code.
"""

from __future__ import annotations

from ._embedder import Embedder
from ._infer import KnownEmbeddingModelName, infer_embedding_model
from .base import EmbeddingModel
from .result import EmbeddingResult, EmbedInputType
from .settings import EmbeddingSettings, merge_embedding_settings
from .test import TestEmbeddingModel
from .wrapper import WrapperEmbeddingModel

__all__ = (
    'EmbedInputType',
    'Embedder',
    'EmbeddingModel',
    'EmbeddingResult',
    'EmbeddingSettings',
    'KnownEmbeddingModelName',
    'TestEmbeddingModel',
    'WrapperEmbeddingModel',
    'infer_embedding_model',
    'merge_embedding_settings',
)
