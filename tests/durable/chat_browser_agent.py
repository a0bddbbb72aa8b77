"""The agent of the durable browser tests, run by worker subprocesses (`python -m worker --agents ...`).

Its answers depend on the prompt:

- after a tool result: `Deleted: <result>`, or `Not deleted, because: <denial message>` when denied;
- a prompt mentioning "delete": calls `delete_file`, which needs approval;
- a prompt with a word `gate-<name>`: streams `You said: <prompt>` word by word, and after the first word waits
  until the file `<name>` exists in `$CHAT_GATES` (so the test sees the answer mid-stream for as long as it needs);
- any other prompt: the same, without waiting.

Each word after the first comes `WORD_DELAY` seconds after the previous one, so the text streams in visibly.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart
from agent.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

WORD_DELAY = 0.02
_GATE_POLL = 0.05


def _last_prompt(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    return part.content
    return ''


async def _gate(prompt: str) -> None:
    for word in prompt.split():
        if word.startswith('gate-'):
            gate = Path(os.environ['CHAT_GATES']) / word
            while not gate.exists():  # noqa: ASYNC110 (another process makes the file: there is no event to await)
                await asyncio.sleep(_GATE_POLL)


async def _stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    last = messages[-1]
    returns = [p for p in last.parts if isinstance(p, ToolReturnPart)] if isinstance(last, ModelRequest) else []
    if returns:
        result = returns[0]
        prefix = 'Not deleted, because' if result.outcome == 'denied' else 'Deleted'
        yield f'{prefix}: {result.model_response_str()}'
        return
    prompt = _last_prompt(messages)
    if 'delete' in prompt:
        yield {0: DeltaToolCall(name='delete_file', json_args='{"path": "/tmp/report.txt"}', tool_call_id='del1')}
        return
    for i, word in enumerate(f'You said: {prompt}'.split(' ')):
        if i:
            await asyncio.sleep(WORD_DELAY)
            yield f' {word}'
        else:
            yield word
            await _gate(prompt)


assistant: Agent[None, str] = Agent(FunctionModel(stream_function=_stream), name='assistant')


@assistant.tool_plain(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    return f'{path} is gone'
