"""The model interface: how an agent sends a conversation to a language model and gets a response back.

An agent reaches a model only through `Model.request` / `Model.request_stream`, exchanging plain data
(`ModelMessage`s, `ModelSettings`, `ModelRequestParameters`, `ModelResponse`), so the call can be moved into
a durable activity without changing the agent.

`TestModel` (`agent.models.test`) and `FunctionModel` (`agent.models.function`) are fake models for tests.
Tests can forbid real model requests with `ALLOW_MODEL_REQUESTS = False` (network models call
`check_allow_model_requests()` before sending anything):

```python
from agent import models

models.ALLOW_MODEL_REQUESTS = False
```
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager

from agent._model_request_context import ModelRequestContext
from agent._parts_manager import ModelResponsePartsManager

from ._http_client import (
    DEFAULT_HTTP_TIMEOUT,
    cached_async_http_client,  # pyright: ignore[reportDeprecated]  # still exported
    create_async_http_client,
)
from ._infer import KnownModelName, infer_model, register_model_provider
from ._model import Model
from ._request_parameters import (
    ModelProfile,
    ModelRequestParameters,
    OutputMode,
    OutputObjectDefinition,
    StructuredOutputMode,
)
from ._return_schemas import prepare_return_schemas
from ._streamed import StreamedResponse

__all__ = (
    'ALLOW_MODEL_REQUESTS',
    'DEFAULT_HTTP_TIMEOUT',
    'KnownModelName',
    'Model',
    'ModelProfile',
    'ModelRequestContext',
    'ModelRequestParameters',
    'ModelResponsePartsManager',
    'OutputMode',
    'OutputObjectDefinition',
    'StreamedResponse',
    'StructuredOutputMode',
    'cached_async_http_client',
    'check_allow_model_requests',
    'create_async_http_client',
    'infer_model',
    'override_allow_model_requests',
    'register_model_provider',
)

_prepare_return_schemas = prepare_return_schemas  # the private name Pydantic AI's tests import it by

ALLOW_MODEL_REQUESTS = True
"""Whether models that reach a provider may send requests; set to `False` in tests to catch accidental calls."""


def check_allow_model_requests() -> None:
    """Raise if model requests are disabled; network models call this before every request.

    Raises:
        RuntimeError: if `ALLOW_MODEL_REQUESTS` is `False`.
    """
    if not ALLOW_MODEL_REQUESTS:
        raise RuntimeError('Model requests are not allowed, since ALLOW_MODEL_REQUESTS is False')


@contextmanager
def override_allow_model_requests(allow: bool) -> Generator[None]:
    """Set `ALLOW_MODEL_REQUESTS` for the duration of a `with` block."""
    global ALLOW_MODEL_REQUESTS
    previous = ALLOW_MODEL_REQUESTS
    ALLOW_MODEL_REQUESTS = allow  # pyright: ignore[reportConstantRedefinition]
    try:
        yield
    finally:
        ALLOW_MODEL_REQUESTS = previous  # pyright: ignore[reportConstantRedefinition]
