"""Token counts read from a Chat Completions `usage` object."""

from __future__ import annotations

from agent.models._openai_chat_messages import chat_usage
from agent.usage import RequestUsage


def test_audio_tokens_of_prompt_and_completion_go_to_their_own_fields():
    usage = chat_usage(
        {
            'prompt_tokens': 40,
            'completion_tokens': 30,
            'prompt_tokens_details': {'cached_tokens': 8, 'audio_tokens': 12},
            'completion_tokens_details': {'reasoning_tokens': 0, 'audio_tokens': 20, 'accepted_prediction_tokens': 2},
        }
    )

    assert usage == RequestUsage(
        input_tokens=40,
        output_tokens=30,
        cache_read_tokens=8,
        input_audio_tokens=12,
        output_audio_tokens=20,
        details={'accepted_prediction_tokens': 2},
    )
