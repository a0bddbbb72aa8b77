"""Serve agents to the Vercel AI SDK (`useChat`) over its UI message stream protocol (AI SDK v6).

`VercelAIAdapter` turns a chat request into an agent run and `VercelAIEventStream` turns the run's events into
the stream's chunks. The wire models are in `agent.ui.vercel_ai.request_types` (UI messages and the request
body) and `agent.ui.vercel_ai.response_types` (stream chunks).
"""

from ._adapter import VercelAIAdapter
from ._event_stream import VERCEL_AI_DSP_HEADERS, VercelAIEventStream

__all__ = ('VERCEL_AI_DSP_HEADERS', 'VercelAIAdapter', 'VercelAIEventStream')
