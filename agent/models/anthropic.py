"""Anthropic models: `AnthropicModel` over the Messages API.

Model strings: `'anthropic:<model>'`, with the key from `ANTHROPIC_API_KEY`.

`ModelSettings(thinking=...)` turns on extended thinking: adaptive on the newest models (an effort level then sets
`output_config.effort`), a token budget per effort level on the others (`THINKING_BUDGETS`).
`AnthropicModelSettings` adds Anthropic's own settings (`anthropic_thinking`, `anthropic_effort`,
`anthropic_task_budget`). Thinking blocks and their signatures are kept in the history and sent back.
"""

from __future__ import annotations

from ._anthropic import THINKING_BUDGETS, AnthropicModel, AnthropicStreamedResponse
from ._anthropic_settings import AnthropicModelSettings
from ._infer import register_model_provider

__all__ = ('THINKING_BUDGETS', 'AnthropicModel', 'AnthropicModelSettings', 'AnthropicStreamedResponse')

register_model_provider('anthropic', AnthropicModel)
