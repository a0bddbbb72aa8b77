"""What a UI adapter removes from client-submitted messages before they reach the agent.

A frontend sends the whole conversation with every run, so every message in it is untrusted input. Rules, in
the order they are applied (caller-supplied `message_history` is trusted server-side persistence and never
goes through here):

- R1: the tool call ids resolved by the run's `DeferredToolResults` (approvals and calls) are collected.
- R2: with `manage_system_prompt='server'`, every `SystemPromptPart` of every request is removed.
- R3: file references in user prompts and in tool results (function or native, nested in lists and dicts at
  any depth) are checked against the `FileRules`: a `FileUrl` whose (lower-cased) scheme is non-empty and not
  allowed is removed (a URL without a scheme is kept); a `FileUrl` whose `force_download` is neither `False`
  nor allowed gets `force_download=False`; an `UploadedFile` is removed unless file data is preserved.
  Nothing else is touched.
- R4: a request left without parts is dropped; the others are rebuilt with `dataclasses.replace`.
- R5: when the history (after R4) ends with a response, its tool calls (function or native) whose id R1 did
  not collect are removed: a call at the end of a client's history matches no paused run, so it must not run.
- R6: a last response emptied by R5 is dropped, and R5 applies again to the response that is now last.
- R7: every other message passes through with only R3 applied.

Each rule that removed or changed something produces one warning per call (system prompts, URL schemes,
`force_download` values, uploaded files, tool calls); `UIAdapter.sanitize_messages` issues them so they point
at its caller.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast
from urllib.parse import urlparse

from agent._content import FileUrl, ForceDownloadMode, UploadedFile, UserContent
from agent._parts import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    SystemPromptPart,
    UserPromptPart,
)
from agent._tool_parts import BaseToolCallPart, BaseToolReturnPart
from agent.tools import DeferredToolResults

__all__ = (
    'DEFAULT_FILE_URL_SCHEMES',
    'FileRules',
    'SanitizeReport',
    'filter_user_content',
    'resolved_tool_call_ids',
    'sanitize',
    'sanitize_last_response_parts',
    'sanitize_request_parts',
)

DEFAULT_FILE_URL_SCHEMES = frozenset({'http', 'https'})
"""The file URL schemes a client may send by default (`UIAdapter.allowed_file_url_schemes`)."""

_REMOVED = object()
"""Marks a nested item R3 removed."""


@dataclass(frozen=True)
class FileRules:
    """Which file references a client may send (R3)."""

    allowed_schemes: frozenset[str] = DEFAULT_FILE_URL_SCHEMES
    """The URL schemes accepted for file URLs."""
    allowed_force_download: frozenset[ForceDownloadMode] = frozenset()
    """The `force_download` values accepted besides `False`."""
    keep_uploaded_files: bool = False
    """Whether `UploadedFile` references are kept."""


@dataclass
class SanitizeReport:
    """The sanitized messages and what was removed from them."""

    messages: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """The messages that remain, in order."""
    stripped_system_prompt: bool = False
    """Whether any `SystemPromptPart` was removed (R2)."""
    disallowed_schemes: set[str] = field(default_factory=set[str])
    """The URL schemes of the file URLs that were removed (R3)."""
    reset_force_download: set[ForceDownloadMode] = field(default_factory=set[ForceDownloadMode])
    """The `force_download` values that were reset to `False` (R3)."""
    dropped_upload_providers: set[str] = field(default_factory=set[str])
    """The providers of the uploaded files that were removed (R3)."""
    dangling_tool_names: list[str] = field(default_factory=list[str])
    """The names of the unresolved trailing tool calls that were removed (R5), one per call."""

    def warnings(self, rules: FileRules | frozenset[str] = DEFAULT_FILE_URL_SCHEMES) -> list[str]:
        """The warning texts for what was removed or changed, in rule order; none when nothing was."""
        if not isinstance(rules, FileRules):
            rules = FileRules(allowed_schemes=rules)
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
                f'only the schemes in `allowed_file_url_schemes` ({sorted(rules.allowed_schemes)!r}) are '
                "accepted. A model provider fetches non-HTTP URLs such as `s3://` or `gs://` with the server's own "
                'cloud identity (its IAM role or service account), so a client able to send them could read '
                'anything that identity can. Only if the frontend is trusted, add the scheme to '
                '`allowed_file_url_schemes` on the adapter.'
            )
        if self.reset_force_download:
            texts.append(
                f'File URLs sent by the client with the `force_download` value(s) '
                f'{sorted(self.reset_force_download, key=repr)!r} were reset to `False`: only the values in '
                f'`allowed_file_url_force_download` ({sorted(rules.allowed_force_download, key=repr)!r}) are '
                "accepted. `True` has the server fetch the file itself and `'allow-local'` lets that fetch reach "
                'loopback and private addresses, so a client could probe internal services. Only if the frontend '
                'is trusted, add the value to `allowed_file_url_force_download` on the adapter (or set it on a '
                'trusted `message_history`).'
            )
        if self.dropped_upload_providers:
            texts.append(
                f'The uploaded file(s) for provider(s) {sorted(self.dropped_upload_providers)!r} sent by the client '
                'were removed, because `preserve_file_data` is `False` (the default): the provider reads an '
                "uploaded file with the server's own credentials, so a client naming arbitrary file ids could "
                'read what those credentials can. Only if the frontend is trusted, set `preserve_file_data=True` '
                'on the adapter (or pass the files on a trusted `message_history`).'
            )
        if self.dangling_tool_names:
            texts.append(
                f'The history sent by the client ended with unresolved tool call(s) '
                f'{sorted(set(self.dangling_tool_names))!r}, which were removed: tool calls come from the model '
                'on the server, so unanswered calls at the end of a client history belong to no paused run. To '
                'resume a run that is waiting for tool results or approvals, pass the matching '
                '`deferred_tool_results` to the run method.'
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
    allowed_file_url_schemes: frozenset[str] = DEFAULT_FILE_URL_SCHEMES,
    deferred_tool_results: DeferredToolResults | None = None,
    file_rules: FileRules | None = None,
) -> SanitizeReport:
    """Apply rules R1-R7 to client-submitted messages.

    Args:
        messages: The messages decoded from the frontend's run input.
        strip_system_prompt: Remove system prompts (R2), i.e. the server owns the system prompt.
        allowed_file_url_schemes: The URL schemes accepted for file URLs, when no `file_rules` are given.
        deferred_tool_results: The results the run resumes with; trailing tool calls they answer are kept (R5).
        file_rules: Which file references are accepted (R3).

    Returns:
        The remaining messages and what was removed.
    """
    rules = file_rules or FileRules(allowed_schemes=allowed_file_url_schemes)
    report = SanitizeReport()
    for message in messages:
        if isinstance(message, ModelRequest):
            parts, stripped = sanitize_request_parts(
                message.parts, strip_system_prompt=strip_system_prompt, rules=rules, report=report
            )
            report.stripped_system_prompt = report.stripped_system_prompt or stripped
            if parts:  # R4: never leave a request without parts in the history
                report.messages.append(replace(message, parts=parts))
        else:
            report.messages.append(_rebuilt(message, [_sanitize_tool_return(p, rules, report) for p in message.parts]))
    _strip_dangling_tail(report, resolved_tool_call_ids(deferred_tool_results))
    return report


def _strip_dangling_tail(report: SanitizeReport, resolved: set[str]) -> None:
    """R5 and R6, on the tail left after R4: a dropped request can bring an earlier response to the end."""
    messages = report.messages
    while messages and isinstance(tail := messages[-1], ModelResponse):
        parts = sanitize_last_response_parts(
            tail.parts, resolved_tool_call_ids=resolved, dangling_names=report.dangling_tool_names
        )
        if len(parts) == len(tail.parts):
            return
        if parts:
            messages[-1] = replace(tail, parts=parts)
            return
        messages.pop()  # R6, and the response before it is now the tail


def _rebuilt(message: ModelResponse, parts: list[ModelResponsePart]) -> ModelResponse:
    unchanged = len(parts) == len(message.parts) and all(a is b for a, b in zip(parts, message.parts, strict=True))
    return message if unchanged else replace(message, parts=parts)


def sanitize_request_parts(
    parts: Sequence[ModelRequestPart],
    *,
    strip_system_prompt: bool,
    rules: FileRules,
    report: SanitizeReport,
) -> tuple[list[ModelRequestPart], bool]:
    """R2 and R3 on one request's parts; `report` is updated with what R3 removed or changed.

    Returns:
        The kept parts and whether a system prompt was removed.
    """
    kept: list[ModelRequestPart] = []
    stripped = False
    for part in parts:
        if strip_system_prompt and isinstance(part, SystemPromptPart):
            stripped = True
        elif isinstance(part, UserPromptPart) and not isinstance(part.content, str):
            kept.append(replace(part, content=filter_user_content(part.content, rules, report)))
        else:
            kept.append(_sanitize_tool_return(part, rules, report))
    return kept, stripped


def filter_user_content(content: Sequence[UserContent], rules: FileRules, report: SanitizeReport) -> list[UserContent]:
    """R3 on a user prompt's items, in order; `report` is updated with what was removed or changed."""
    kept: list[UserContent] = []
    for item in content:
        checked = _check_file(item, rules, report)
        if checked is not _REMOVED:
            kept.append(cast(UserContent, checked))
    return kept


def _sanitize_tool_return(part: Any, rules: FileRules, report: SanitizeReport) -> Any:
    """R3 on the content of a tool result (any other part is returned as it is)."""
    if not isinstance(part, BaseToolReturnPart):
        return part
    content = _check_nested(part.content, rules, report)
    if content is part.content:
        return part
    return replace(part, content=None if content is _REMOVED else content)


def _check_nested(value: Any, rules: FileRules, report: SanitizeReport) -> Any:
    """`value` with R3 applied at every depth; the same object when nothing changed, `_REMOVED` when removed."""
    if isinstance(value, FileUrl | UploadedFile):
        return _check_file(value, rules, report)
    if isinstance(value, list | tuple):
        items = cast(Sequence[Any], value)
        checked = [_check_nested(item, rules, report) for item in items]
        if all(a is b for a, b in zip(checked, items, strict=True)):
            return items
        return type(items)(item for item in checked if item is not _REMOVED)  # pyright: ignore[reportCallIssue]
    if isinstance(value, Mapping):
        mapping = cast(Mapping[Any, Any], value)
        checked_map = {key: _check_nested(item, rules, report) for key, item in mapping.items()}
        if all(checked_map[key] is item for key, item in mapping.items()):
            return mapping
        return {key: item for key, item in checked_map.items() if item is not _REMOVED}
    return value


def _check_file(item: Any, rules: FileRules, report: SanitizeReport) -> Any:
    """R3 on one item: the item, a copy with `force_download=False`, or `_REMOVED`."""
    if isinstance(item, FileUrl):
        scheme = urlparse(item.url).scheme.lower()
        if scheme and scheme not in rules.allowed_schemes:
            report.disallowed_schemes.add(scheme)
            return _REMOVED
        if item.force_download is not False and item.force_download not in rules.allowed_force_download:
            report.reset_force_download.add(item.force_download)
            return replace(item, force_download=False)
    elif isinstance(item, UploadedFile) and not rules.keep_uploaded_files:
        report.dropped_upload_providers.add(item.provider_name)
        return _REMOVED
    return item


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
