"""Anthropic models: `AnthropicModel` over the Messages API.

Model strings: `'anthropic:<model>'`, with the key from `ANTHROPIC_API_KEY`.

`ModelSettings(thinking=...)` turns on extended thinking with a token budget per effort level
(`THINKING_BUDGETS`); thinking blocks and their signatures are kept in the history and sent back.
"""

from __future__ import annotations

from ._anthropic import THINKING_BUDGETS, AnthropicModel, AnthropicStreamedResponse
from ._infer import register_model_provider

__all__ = ('THINKING_BUDGETS', 'AnthropicModel', 'AnthropicStreamedResponse')

register_model_provider('anthropic', AnthropicModel)
