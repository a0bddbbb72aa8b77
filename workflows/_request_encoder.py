"""Builds model-request activity inputs that name what the worker already has (see `activities._message_store`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from activities._message_store import message_hash_and_size, parameters_hash, prefix_key
from activities._types import ActivityRunContext, ModelRequestInput, ModelRequestOutput
from agent._model_request_context import ModelRequestContext
from agent._parts import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart
from agent._run_context import RunContext

__all__ = ('RequestEncoder',)


class RequestEncoder:
    """One run's view of what the workers were sent; turns each model request into a small activity input.

    State lives only as long as the workflow run (replay rebuilds it identically, as activity inputs are not
    compared on replay, only the commands).
    """

    def __init__(self) -> None:
        self._sent: set[str] = set()
        self._keys: dict[int, tuple[ModelMessage, str, int]] = {}
        self._last_keys: list[str] = []
        self._last_prefix: str | None = None
        self._parameters_key: str | None = None
        # Tool results by identity: the object the tool activity returned, and the key its worker kept it under.
        self._contents: dict[int, tuple[Any, str]] = {}
        self._pending: tuple[list[str], list[str], str | None, str] = ([], [], None, '')

    def message_key(self, message: ModelMessage) -> str:
        """The message's hash (computed once per message object)."""
        return self._known(message)[1]

    def message_bytes(self, messages: list[ModelMessage]) -> int:
        """Bytes of the messages' JSON."""
        return sum(self._known(message)[2] for message in messages)

    def _known(self, message: ModelMessage) -> tuple[ModelMessage, str, int]:
        cached = self._keys.get(id(message))
        if cached is None or cached[0] is not message:
            cached = (message, *message_hash_and_size(message))
            self._keys[id(message)] = cached
        return cached

    def assume_sent(self, messages: list[ModelMessage]) -> None:
        """Messages the workers got another way (pages of a handed-over conversation): named, never inlined.

        A worker without them rebuilds them from the run's history, where the pages are activity results.
        """
        self._sent.update(self.message_key(message) for message in messages)

    def tool_result(self, result: Any, key: str | None) -> None:
        """Note a tool activity's result and the key its worker kept it under."""
        if key is not None and not isinstance(result, (int, float, bool)) and result is not None:
            self._contents[id(result)] = (result, key)

    def encode(self, ctx: RunContext[Any], rc: ModelRequestContext, model: str | None) -> ModelRequestInput:
        """The input for this request, referencing every message, result and parameter set sent before."""
        keys = [self.message_key(m) for m in rc.messages]
        previous = self._last_keys
        if previous and keys[: len(previous)] == previous:
            # The usual case: the conversation only grew, so name the old part by its prefix key.
            added, history, prefix = keys[len(previous) :], [], self._last_prefix
        else:
            added, history, prefix = keys, keys, None
        by_key = dict(zip(keys, rc.messages, strict=True))
        inline_keys = [k for k in dict.fromkeys(added) if k not in self._sent]
        messages: list[ModelMessage] = []
        contents: dict[str, str] = {}
        for index, key in enumerate(inline_keys):
            message, left_out = self._without_known_contents(by_key[key])
            messages.append(message)
            contents.update({f'{index}.{part}': content for part, content in left_out.items()})
        parameters = rc.model_request_parameters
        parameters_key = parameters_hash(parameters)
        settings = rc.model_settings
        inp = ModelRequestInput(
            ctx=replace(ActivityRunContext.from_run_context(ctx), model_settings=None),
            messages=messages,
            message_keys=inline_keys,
            added=added if prefix is not None else None,
            history=history,
            prefix=prefix,
            parameters=None if self._worker_has_parameters(parameters_key) else parameters,
            parameters_key=parameters_key,
            contents=contents,
            model_settings=dict(settings) if settings is not None else None,
            model=model,
        )
        self._pending = (keys, added, prefix, parameters_key)
        return inp

    def in_full(self, inp: ModelRequestInput, rc: ModelRequestContext) -> ModelRequestInput:
        """`inp` with everything in it, for a worker that lacked something it named."""
        keys = [self.message_key(m) for m in rc.messages]
        everything = dict(zip(keys, rc.messages, strict=True))
        return replace(
            inp,
            messages=list(everything.values()),
            message_keys=list(everything),
            added=None,
            history=keys,
            prefix=None,
            contents={},
            parameters=rc.model_request_parameters,
        )

    def received(self, output: ModelRequestOutput, *, in_full: bool) -> ModelResponse:
        """Record that the request reached a worker, and what the worker now keeps."""
        keys, added, prefix, parameters_key = self._pending
        if in_full:
            added, prefix = keys, None
        self._sent.update(keys)
        self._last_prefix = prefix_key(prefix, added)
        self._last_keys = keys
        self._parameters_key = parameters_key
        response = output.response
        assert response is not None
        if output.response_key is not None:
            # The worker kept the response under the hash it will have in the next request (run ids stamped).
            self._sent.add(output.response_key)
        return response

    def _worker_has_parameters(self, key: str) -> bool:
        # Sent earlier in this workflow run, so a worker without them finds them in the run's history. (Naming
        # parameters another run sent would leave a worker that lost them nothing to rebuild them from but a
        # request in full, which for a long conversation does not fit in a payload.)
        return key == self._parameters_key

    def _without_known_contents(self, message: ModelMessage) -> tuple[ModelMessage, dict[int, str]]:
        if not isinstance(message, ModelRequest) or not self._contents:
            return message, {}
        left_out: dict[int, str] = {}
        parts = list(message.parts)
        for index, part in enumerate(parts):
            if not isinstance(part, ToolReturnPart):
                continue
            known = self._contents.get(id(part.content))
            if known is None or known[0] is not part.content:
                continue
            left_out[index] = known[1]
            parts[index] = replace(part, content=None)
        if not left_out:
            return message, {}
        return replace(message, parts=parts), left_out
