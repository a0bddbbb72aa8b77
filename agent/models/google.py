"""Google models: `GoogleModel` over the Gemini API.

Model strings: `'google:<model>'` and `'google-gla:<model>'`, with the key from `GEMINI_API_KEY` (or
`GOOGLE_API_KEY`).

`ModelSettings(thinking=...)` maps to a thinking budget for Gemini 2.5 (`THINKING_BUDGETS`) and to a thinking
level for Gemini 3 and later (`GoogleModelSettings(google_thinking_config=...)` sets the config itself);
thought signatures are kept in the history and sent back where Gemini wants them.
"""

from __future__ import annotations

from ._google import THINKING_BUDGETS, GoogleModel, GoogleModelSettings, GoogleStreamedResponse
from ._infer import register_model_provider

__all__ = ('THINKING_BUDGETS', 'GoogleModel', 'GoogleModelSettings', 'GoogleStreamedResponse')

register_model_provider('google', GoogleModel)
register_model_provider('google-gla', GoogleModel)
