"""OpenAI models: Chat Completions (`OpenAIChatModel`) and the Responses API (`OpenAIResponsesModel`).

Model strings: `'openai:<model>'` and `'openai-chat:<model>'` use Chat Completions, `'openai-responses:<model>'`
the Responses API. The key comes from `OPENAI_API_KEY`; `OPENAI_BASE_URL` points the same classes at any
OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter, Together, Groq, DeepSeek, ...):

```bash
export OPENAI_BASE_URL=http://localhost:11434/v1   # Ollama; no key needed
```

or in code, with `OpenAIProvider(base_url=..., api_key=...)`:

```python
from agent.models.openai import OpenAIChatModel
from agent.providers.openai import OpenAIProvider

model = OpenAIChatModel('deepseek-chat', provider=OpenAIProvider(base_url='https://api.deepseek.com', api_key='sk-...'))
```
"""

from __future__ import annotations

from ._infer import register_model_provider
from ._openai_chat import OpenAIChatModel, OpenAIChatStreamedResponse
from ._openai_common import OpenAIChatModelSettings, OpenAIModelSettings, OpenAIResponsesModelSettings  # pyright: ignore[reportDeprecated]  (re-exported for old code)
from ._openai_responses import OpenAIResponsesModel, OpenAIResponsesStreamedResponse

__all__ = (
    'OpenAIChatModel',
    'OpenAIChatModelSettings',
    'OpenAIChatStreamedResponse',
    'OpenAIModelSettings',
    'OpenAIResponsesModel',
    'OpenAIResponsesModelSettings',
    'OpenAIResponsesStreamedResponse',
)

register_model_provider('openai', OpenAIChatModel)
register_model_provider('openai-chat', OpenAIChatModel)
register_model_provider('openai-responses', OpenAIResponsesModel)
