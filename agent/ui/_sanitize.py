"""What a UI adapter removes from client-submitted messages before they reach the agent.

A frontend sends the whole conversation with every run, so every message in it is untrusted input. Rules, in
the order they are applied (caller-supplied `message_history` is trusted server-side persistence and never
goes through here):

- R1: the tool call ids resolved by the run's `DeferredToolResults` (approvals and calls) are collected.
- R2: with `manage_system_prompt='server'`, every `SystemPromptPart` of every request is removed.
- R3: in user prompts with non-string content, a `FileUrl` whose (lower-cased) scheme is non-empty and not in
  `allowed_file_url_schemes` is removed; a URL without a scheme is kept, and no other content is touched.
- R4: a request left without parts is dropped; the others are rebuilt with `dataclasses.replace`.
- R5: only when the last message is a response, its tool calls (function or native) whose id R1 did not
  collect are removed: a call at the end of a client's history matches no paused run, so it must not run.
- R6: a last response emptied by R5 is dropped.
- R7: every other message passes through unchanged.

Each rule that removed something produces one warning per call (W1 system prompts, W2 URL schemes, W3 tool
calls); `UIAdapter.sanitize_messages` issues them so they point at its caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from urllib.parse import urlparse

from agent._content import FileUrl, UserContent
from agent._parts import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponsePart,
    SystemPromptPart,
    UserPromptPart,
)
from agent._tool_parts import BaseToolCallPart
from agent.tools import DeferredToolResults

__all__ = (
    'SanitizeReport',
    'filter_user_content',
    'resolved_tool_call_ids',
    'sanitize',
    'sanitize_last_response_parts',
    'sanitize_request_parts',
)


@dataclass
class SanitizeReport:
    """The sanitized messages and what was removed from them."""

    messages: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """The messages that remain, in order."""
    stripped_system_prompt: bool = False
    """Whether any `SystemPromptPart` was removed (R2)."""
    disallowed_schemes: set[str] = field(default_factory=set[str])
    """The URL schemes of the file URLs that were removed (R3)."""
    dangling_tool_names: list[str] = field(default_factory=list[str])
    """The names of the unresolved trailing tool calls that were removed (R5), one per call."""

    def warnings(self, allowed_file_url_schemes: frozenset[str]) -> list[str]:
        """The warning texts for what was removed (W1, W2, W3 in that order), none when nothing was."""
        texts: list[str] = []
        if self.stripped_system_prompt:
            texts.append(
                "The system prompt(s) sent by the client were removed: with `manage_system_prompt='server'` "
                "(the default) the agent's own system prompt is used. Pass `manage_system_prompt='client'` if "
                'the frontend should provide the system prompt.'
            )
        if self.disallowed_schemes:
            texts.append(
                f'File URLs sent by the client with the scheme(s) {sorted(self.disallowed_schemes)!r} were removed: '
                f'only the schemes in `allowed_file_url_schemes` ({sorted(allowed_file_url_schemes)!r}) are '
                "accepted. A model provider fetches non-HTTP URLs such as `s3://` or `gs://` with the server's own "
                'cloud identity (its IAM role or service account), so a client able to send them could read '
                'anything that identity can. Only if the frontend is trusted, add the scheme to '
                '`allowed_file_url_schemes` on the adapter.'
            )
        if self.dangling_tool_names:
            texts.append(
                f'The history sent by the client ended with tool call(s) {sorted(set(self.dangling_tool_names))!r} '
                'that have no result, and they were removed: tool calls come from the model on the server, so '
                'unanswered calls at the end of a client history belong to no paused run. To resume a run that '
                'is waiting for tool results or approvals, pass the matching `deferred_tool_results` to the run '
                'method.'
            )
        return texts


def resolved_tool_call_ids(deferred_tool_results: DeferredToolResults | None) -> set[str]:
    """R1: the ids of the tool calls answered by `deferred_tool_results` (approvals and calls)."""
    if deferred_tool_results is None:
        return set()
    return {*deferred_tool_results.approvals, *deferred_tool_results.calls}


def sanitize(
    messages: Sequence[ModelMessage],
    *,
    strip_system_prompt: bool,
    allowed_file_url_schemes: frozenset[str],
    deferred_tool_results: DeferredToolResults | None = None,
) -> SanitizeReport:
    """Apply rules R1-R7 to client-submitted messages.

    Args:
        messages: The messages decoded from the frontend's run input.
        strip_system_prompt: Remove system prompts (R2), i.e. the server owns the system prompt.
        allowed_file_url_schemes: The URL schemes accepted for file URLs (R3).
        deferred_tool_results: The results the run resumes with; trailing tool calls they answer are kept (R5).

    Returns:
        The remaining messages and what was removed.
    """
    resolved = resolved_tool_call_ids(deferred_tool_results)
    report = SanitizeReport()
    last_index = len(messages) - 1
    for index, message in enumerate(messages):
        if isinstance(message, ModelRequest):
            parts, stripped = sanitize_request_parts(
                message.parts,
                strip_system_prompt=strip_system_prompt,
                allowed_file_url_schemes=allowed_file_url_schemes,
                disallowed_schemes=report.disallowed_schemes,
            )
            report.stripped_system_prompt = report.stripped_system_prompt or stripped
            if parts:  # R4: never leave a request without parts in the history
                report.messages.append(replace(message, parts=parts))
        elif index == last_index:  # a response, since it is not a request
            parts = sanitize_last_response_parts(
                message.parts, resolved_tool_call_ids=resolved, dangling_names=report.dangling_tool_names
            )
            if parts:  # R6
                report.messages.append(replace(message, parts=parts))
        else:  # R7
            report.messages.append(message)
    return report


def sanitize_request_parts(
    parts: Sequence[ModelRequestPart],
    *,
    strip_system_prompt: bool,
    allowed_file_url_schemes: frozenset[str],
    disallowed_schemes: set[str],
) -> tuple[list[ModelRequestPart], bool]:
    """R2 and R3 on one request's parts.

    Args:
        parts: The request's parts.
        strip_system_prompt: Remove `SystemPromptPart`s.
        allowed_file_url_schemes: The URL schemes accepted for file URLs.
        disallowed_schemes: Updated in place with the schemes of removed file URLs.

    Returns:
        The kept parts and whether a system prompt was removed.
    """
    kept: list[ModelRequestPart] = []
    stripped = False
    for part in parts:
        if strip_system_prompt and isinstance(part, SystemPromptPart):
            stripped = True
        elif isinstance(part, UserPromptPart) and not isinstance(part.content, str):
            content = filter_user_content(part.content, allowed_file_url_schemes, disallowed_schemes)
            kept.append(replace(part, content=content))
        else:
            kept.append(part)
    return kept, stripped


def filter_user_content(
    content: Sequence[UserContent], allowed_file_url_schemes: frozenset[str], disallowed_schemes: set[str]
) -> list[UserContent]:
    """R3 on a user prompt's items: drop the file URLs with a scheme that is not allowed.

    A URL without a scheme (a relative reference) is kept: it names nothing a provider could fetch with
    the server's identity.

    Args:
        content: The user prompt's items.
        allowed_file_url_schemes: The URL schemes accepted.
        disallowed_schemes: Updated in place with the schemes of removed file URLs.

    Returns:
        The kept items, in order.
    """
    kept: list[UserContent] = []
    for item in content:
        if isinstance(item, FileUrl):
            scheme = urlparse(item.url).scheme.lower()
            if scheme and scheme not in allowed_file_url_schemes:
                disallowed_schemes.add(scheme)
                continue
        kept.append(item)
    return kept


def sanitize_last_response_parts(
    parts: Sequence[ModelResponsePart], *, resolved_tool_call_ids: set[str], dangling_names: list[str]
) -> list[ModelResponsePart]:
    """R5 on the parts of a history's last response: drop the tool calls no deferred result answers.

    Args:
        parts: The response's parts.
        resolved_tool_call_ids: The ids answered by the run's deferred tool results.
        dangling_names: Appended with the tool name of every removed call.

    Returns:
        The kept parts, in order.
    """
    kept: list[ModelResponsePart] = []
    for part in parts:
        if isinstance(part, BaseToolCallPart) and part.tool_call_id not in resolved_tool_call_ids:
            dangling_names.append(part.tool_name)
            continue
        kept.append(part)
    return kept
