"""The benchmark's agents: one scripted model, three tools, every tool returning `payload` bytes.

The model is a `FunctionModel` whose responses depend only on how many responses the conversation already
holds, with fixed tool call ids, so every run makes the same calls in the same order and nothing leaves the
machine. Two scripts:

- `tool_loop`: `lookup(key)`, then `fetch_a()` and `fetch_b()` together, then the final text.
- `long_run`: one tool call per step, cycling through the three tools, for as many steps as the prompt says,
  then the final text.

The chat scenario's agent (`streamed_chat_agent`) has no tools: it streams text whose every delta carries the
time it was made (`stamped_deltas`), so a reader in another process can tell how long each took to reach it.

The module-level agents are importable by `worker.py --agents bench.agents:<name>` (the crash scenario runs
its worker in a subprocess). When `BENCH_COUNTER` names a file, every tool body and model request appends a
line to it, so a run can tell how often each actually ran, across processes.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from agent import Agent
from agent.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from agent.models.function import AgentInfo, FunctionModel
from agent.usage import RequestUsage
from workflows import ActivityOptions, DurableAgent

__all__ = (
    'APPROVAL_CALL_ID',
    'DEFAULT_PAYLOAD',
    'LONG_PAYLOAD',
    'STAMP',
    'TOOL_NAMES',
    'approval_agent',
    'approval_agent_local',
    'build_agent',
    'crash_agent',
    'crash_agent_local',
    'local',
    'long_run',
    'long_run_agent',
    'long_run_output',
    'plain_agent',
    'stamped_deltas',
    'streamed_chat_agent',
    'tool_loop',
    'tool_loop_agent',
    'tool_loop_agent_local',
    'tool_loop_output',
)

DEFAULT_PAYLOAD = int(os.environ.get('BENCH_PAYLOAD', '2000'))
"""Bytes every tool returns unless a scenario says otherwise (`BENCH_PAYLOAD` overrides the 2000)."""
LONG_PAYLOAD = 5000
"""Bytes every tool returns in the long-run scenario."""
TOOL_NAMES = ('lookup', 'fetch_a', 'fetch_b')
"""The three tools every benchmark agent has."""
APPROVAL_CALL_ID = 'lookup-1'
"""The tool call id of the first `lookup` call (the one that waits for approval in the approval agent)."""

Script = Callable[[list[ModelMessage], AgentInfo], ModelResponse]


def _count(line: str) -> None:
    path = os.environ.get('BENCH_COUNTER')
    if path:
        with Path(path).open('a') as counter:
            counter.write(line + '\n')


USAGE = RequestUsage(input_tokens=100, output_tokens=10)
"""What every scripted response reports, as a provider would: without it, `FunctionModel` estimates tokens by
reading the whole conversation on every step, a cost of the fake model (quadratic in S2 and S7), not the runtime."""


def _responses(messages: list[ModelMessage]) -> int:
    return sum(isinstance(m, ModelResponse) for m in messages)


def tool_loop(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """`lookup(key)`, then `fetch_a()` and `fetch_b()` in parallel, then the final text."""
    _count('model')
    step = _responses(messages)
    if step == 0:
        return ModelResponse(parts=[ToolCallPart('lookup', {'key': 'answer'}, APPROVAL_CALL_ID)], usage=USAGE)
    if step == 1:
        calls = [ToolCallPart('fetch_a', {}, 'fetch-a-1'), ToolCallPart('fetch_b', {}, 'fetch-b-1')]
        return ModelResponse(parts=calls, usage=USAGE)
    return ModelResponse(parts=[TextPart(tool_loop_output())], usage=USAGE)


def tool_loop_output() -> str:
    """The final text of a `tool_loop` run."""
    return 'done after 3 tool calls'


def long_run(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """One tool call per step, as many steps as the first prompt says, then the final text."""
    _count('model')
    first = messages[0]
    assert isinstance(first, ModelRequest)
    prompt = next(p for p in first.parts if isinstance(p, UserPromptPart))
    steps = int(str(prompt.content))
    step = _responses(messages)
    if step < steps:
        name = TOOL_NAMES[step % len(TOOL_NAMES)]
        args = {'key': f'k{step}'} if name == 'lookup' else {}
        return ModelResponse(parts=[ToolCallPart(name, args, f'step-{step}')], usage=USAGE)
    return ModelResponse(parts=[TextPart(long_run_output(steps))], usage=USAGE)


def long_run_output(steps: int) -> str:
    """The final text of a `long_run` run of `steps` steps."""
    return f'done after {steps} steps'


_VOCABULARY = (
    'the of and to a in is it that for on was with as be at by this had not are but from or have an they which '
    'one you were her all she there would their we him been has when who will more no if out so said what up its '
    'about into than them can only other new some could time these two may then do first any my now such like '
    'our over man me even most made after also did many before must through back years where much your way well '
    'down should because each just those people how too little state good very make world still own see men work '
    'long get here between both life being under never day same another know while last might us great old year '
    'off come since against go came right used take three'
)
_WORDS = _VOCABULARY.split()


def _body(name: str, payload: int) -> str:
    """Exactly `payload` ASCII characters (so as many bytes) of prose-like text, distinct per tool.

    Common words at Zipf-like frequencies, in sentences, with numbers: it deflates about 2.2 times, like the
    English prose and documentation tools return (a repeated pattern would deflate fifty times and flatter
    the activity payloads the runtime compresses).
    """
    rng = random.Random(name)
    weights = [1 / rank for rank in range(1, len(_WORDS) + 1)]
    text, size = [f'{name}:'], len(name) + 1
    while size < payload:
        words: list[str] = rng.choices(_WORDS, weights, k=rng.randint(6, 18))
        if rng.random() < 0.3:
            words.insert(rng.randrange(len(words)), str(rng.randint(2, 2000)))
        sentence = ' '.join(words).capitalize() + rng.choice('...,;?') + ' '
        text.append(sentence)
        size += len(sentence)
    return ''.join(text)[:payload]


def build_agent(
    name: str,
    script: Script,
    *,
    payload: int = DEFAULT_PAYLOAD,
    approval: bool = False,
    slow_fetch_a: float = 0.0,
) -> Agent[None, str]:
    """An agent with `lookup(key)`, `fetch_a()` and `fetch_b()`, each returning `payload` bytes.

    Args:
        name: The agent's name (the name it is registered under).
        script: The model's script.
        payload: Bytes each tool returns.
        approval: Whether `lookup` requires approval.
        slow_fetch_a: Seconds `fetch_a` sleeps before returning.
    """
    agent = Agent(FunctionModel(script), name=name)
    bodies = {tool: _body(tool, payload) for tool in TOOL_NAMES}

    @agent.tool_plain(requires_approval=approval)
    def lookup(key: str) -> str:
        """Look a key up.

        Args:
            key: The key to look up.
        """
        _count('lookup')
        return bodies['lookup']

    @agent.tool_plain
    async def fetch_a() -> str:
        """Fetch the first source."""
        _count('fetch_a')
        if slow_fetch_a:
            await asyncio.sleep(slow_fetch_a)
        return bodies['fetch_a']

    @agent.tool_plain
    def fetch_b() -> str:
        """Fetch the second source."""
        _count('fetch_b')
        return bodies['fetch_b']

    return agent


tool_loop_agent = build_agent('bench_tool_loop', tool_loop)
"""S1: the tool loop."""
long_run_agent = build_agent('bench_long_run', long_run, payload=LONG_PAYLOAD)
"""S2 and S6: the long run."""
approval_agent = build_agent('bench_approval', tool_loop, approval=True)
"""S3 and S5: the tool loop with `lookup` waiting for approval."""
crash_agent = build_agent('bench_crash', tool_loop, slow_fetch_a=float(os.environ.get('BENCH_SLOW_SECONDS', '2')))
"""S4: the tool loop with a `fetch_a` slow enough to kill its worker in the middle of it."""


def plain_agent(agent: Agent[None, str] | DurableAgent) -> Agent[None, str]:
    """The agent itself, whether given plain or with its durable options."""
    return agent.agent if isinstance(agent, DurableAgent) else agent


def local(agent: Agent[None, str]) -> DurableAgent:
    """`agent` with every model request and tool call as a local activity."""
    options = ActivityOptions(local=True)
    return DurableAgent(agent, model_activity=options, tool_activity=options)


tool_loop_agent_local = local(build_agent('bench_tool_loop_local', tool_loop))
"""S1L: the tool loop in local activities."""
approval_agent_local = local(build_agent('bench_approval_local', tool_loop, approval=True))
"""S3L: the approval run in local activities."""
crash_agent_local = local(
    build_agent('bench_crash_local', tool_loop, slow_fetch_a=float(os.environ.get('BENCH_SLOW_SECONDS', '2')))
)
"""S4L: the crash run in local activities."""


STAMP = re.compile(r'd(\d+)@(\d+\.\d+) ')
"""One delta of `streamed_chat_agent`'s text: its index and the wall-clock time (`time.time()`) it was made."""


def _stamp(index: int) -> str:
    return f'd{index}@{time.time():.6f} '


def stamped_deltas(text: str) -> list[tuple[int, float]]:
    """The `(index, made at)` of every stamped delta in `text`, in order."""
    return [(int(index), float(made)) for index, made in STAMP.findall(text)]


def streamed_chat_agent(deltas: int, interval: float, *, name: str = 'bench_chat') -> Agent[None, str]:
    """An agent whose model answers every prompt with `deltas` stamped text deltas, `interval` seconds apart.

    Streamed (`request_stream`, what a durable run uses when an event stream handler is set) each delta is
    stamped as it is yielded; unstreamed (`request`) the whole text is made after the same pause, stamped when it
    is returned, so both runs take as long and store as much text.
    """

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for index in range(deltas):
            if index:
                await asyncio.sleep(interval)
            yield _stamp(index)

    async def whole(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        await asyncio.sleep(interval * (deltas - 1))
        return ModelResponse(parts=[TextPart(''.join(_stamp(index) for index in range(deltas)))], usage=USAGE)

    return Agent(FunctionModel(whole, stream_function=stream), name=name)
