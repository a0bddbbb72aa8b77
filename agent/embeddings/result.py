"""`EmbeddingResult`: the vectors an embedding model returned, with what was embedded and what it cost."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime
from typing import Any, Literal

from agent._env import now_utc
from agent.usage import RequestUsage

__all__ = ('EmbedInputType', 'EmbeddingResult')

EmbedInputType = Literal['query', 'document']
"""What the inputs are for: `'query'` for search queries, `'document'` for the texts searched.

Some models embed the two differently, so a query lands near the documents that answer it.
"""


@dataclass
class EmbeddingResult:
    """The vectors of one embedding request, in the order of its inputs.

    Index it by position (`result[0]`) or by the input text itself (`result['What is AI?']`).
    """

    embeddings: Sequence[Sequence[float]]
    """One vector per input, in input order."""

    _: KW_ONLY

    inputs: Sequence[str]
    """The texts that were embedded."""

    input_type: EmbedInputType
    """Whether the inputs were embedded as queries or as documents."""

    model_name: str
    """The model that produced the vectors, as the provider reported it."""

    provider_name: str
    """The provider that served the request, e.g. `'openai'`."""

    timestamp: datetime = field(default_factory=now_utc)
    """When the request was made."""

    usage: RequestUsage = field(default_factory=RequestUsage)
    """The tokens the request consumed."""

    provider_details: dict[str, Any] | None = None
    """Provider-specific details of the response."""

    provider_response_id: str | None = None
    """The provider's id for the response, when it gives one."""

    def __getitem__(self, item: int | str) -> Sequence[float]:
        """The vector of the input at position `item`, or of the input text `item`.

        Raises:
            IndexError: if the position is out of range.
            ValueError: if the text is not one of the inputs.
        """
        if isinstance(item, str):
            item = list(self.inputs).index(item)
        return self.embeddings[item]
