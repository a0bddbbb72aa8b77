"""Token and request accounting, and the limits enforced on a run."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Annotated, Any

import pydantic
from typing_extensions import deprecated

from .exceptions import UsageLimitExceeded

__all__ = ('RequestUsage', 'RunUsage', 'UsageLimits')

_TOKEN_FIELDS = (
    'input_tokens',
    'output_tokens',
    'cache_read_tokens',
    'cache_write_tokens',
    'reasoning_tokens',
    'input_audio_tokens',
    'cache_audio_read_tokens',
    'output_audio_tokens',
)

# Counts repeated under `gen_ai.usage.details.` in `opentelemetry_attributes()`.
_DETAIL_ATTRIBUTES = (
    'cache_write_tokens',
    'cache_read_tokens',
    'input_audio_tokens',
    'cache_audio_read_tokens',
    'output_audio_tokens',
)


def _details_or_empty(value: Any) -> Any:
    # Older stored histories may carry `"details": null`.
    return {} if value is None else value


@dataclass
class _TokenCounts:
    # The old names `request_tokens`/`response_tokens` are still read, so histories stored under them load.
    input_tokens: Annotated[
        int, pydantic.Field(validation_alias=pydantic.AliasChoices('input_tokens', 'request_tokens'))
    ] = 0
    """Tokens sent to the model (including cached ones)."""
    output_tokens: Annotated[
        int, pydantic.Field(validation_alias=pydantic.AliasChoices('output_tokens', 'response_tokens'))
    ] = 0
    """Tokens produced by the model (including reasoning tokens)."""
    cache_read_tokens: int = 0
    """Input tokens served from the provider's prompt cache."""
    cache_write_tokens: int = 0
    """Input tokens written to the provider's prompt cache."""
    reasoning_tokens: int = 0
    """Output tokens spent on reasoning/thinking."""
    details: Annotated[dict[str, int], pydantic.BeforeValidator(_details_or_empty)] = field(
        default_factory=dict[str, int]
    )
    """Provider-specific counters."""
    # Declared after `details` so positional construction keeps its meaning.
    input_audio_tokens: int = 0
    """Audio input tokens (part of `input_tokens`)."""
    cache_audio_read_tokens: int = 0
    """Audio input tokens served from the provider's prompt cache (part of `cache_read_tokens`)."""
    output_audio_tokens: int = 0
    """Audio output tokens (part of `output_tokens`)."""

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    def has_values(self) -> bool:
        """Whether anything has been counted."""
        return any(getattr(self, f.name) for f in fields(self))

    def opentelemetry_attributes(self) -> dict[str, int]:
        """The non-zero counts as OpenTelemetry GenAI attributes (`gen_ai.usage.*`).

        Cache tokens get their semantic-convention names and are repeated under `details.` (as older
        dashboards read them there), as are the audio counts.
        """
        attributes: dict[str, int] = {}
        if self.input_tokens:
            attributes['gen_ai.usage.input_tokens'] = self.input_tokens
        if self.output_tokens:
            attributes['gen_ai.usage.output_tokens'] = self.output_tokens
        if self.cache_write_tokens:
            attributes['gen_ai.usage.cache_creation.input_tokens'] = self.cache_write_tokens
        if self.cache_read_tokens:
            attributes['gen_ai.usage.cache_read.input_tokens'] = self.cache_read_tokens
        details = dict(self.details)
        for name in _DETAIL_ATTRIBUTES:
            if value := getattr(self, name):
                details[name] = value
        attributes.update({f'gen_ai.usage.details.{key}': value for key, value in details.items() if value})
        return attributes

    def _add_tokens(self, other: _TokenCounts) -> None:
        for name in _TOKEN_FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for key, value in other.details.items():
            # Some providers report a detail as null; it counts as nothing rather than failing the addition.
            if value is not None:  # pyright: ignore[reportUnnecessaryComparison]
                self.details[key] = self.details.get(key, 0) + value


@dataclass
class RequestUsage(_TokenCounts):
    """Usage reported for a single model request."""

    @property
    def requests(self) -> int:
        """Always 1: this is the usage of one request."""
        return 1

    def incr(self, usage: RequestUsage) -> None:
        """Add another request's tokens in place (e.g. usage reported in pieces while a response streams)."""
        self._add_tokens(usage)

    def __add__(self, other: RequestUsage) -> RequestUsage:
        result = RequestUsage()
        result._add_tokens(self)
        result._add_tokens(other)
        return result


@dataclass
class RunUsage(_TokenCounts):
    """Usage accumulated over a run (or several runs, when passed on with `usage=`)."""

    requests: int = 0
    """Model requests made."""
    tool_calls: int = 0
    """Function tool calls executed."""

    def incr(self, usage: RequestUsage | RunUsage) -> None:
        """Add another usage in place (a request's usage counts as one request if it is a `RequestUsage`)."""
        self._add_tokens(usage)
        if isinstance(usage, RunUsage):
            self.requests += usage.requests
            self.tool_calls += usage.tool_calls

    def __add__(self, other: RunUsage | RequestUsage) -> RunUsage:
        result = RunUsage()
        result.incr(self)
        result.incr(other)
        return result


@dataclass(init=False)
class UsageLimits:
    """Limits on requests, tool calls and tokens for a run; exceeding one raises `UsageLimitExceeded`.

    `request_tokens_limit` and `response_tokens_limit`, the old names of `input_tokens_limit` and
    `output_tokens_limit`, are still accepted (a limit given under its new name wins) and read.
    """

    request_limit: int | None = 50
    """Maximum model requests per run (`None` for no limit)."""
    tool_calls_limit: int | None = None
    """Maximum successful function tool calls per run."""
    input_tokens_limit: int | None = None
    """Maximum input tokens per run."""
    output_tokens_limit: int | None = None
    """Maximum output tokens per run."""
    total_tokens_limit: int | None = None
    """Maximum input plus output tokens per run."""

    def __init__(
        self,
        request_limit: int | None = 50,
        tool_calls_limit: int | None = None,
        input_tokens_limit: int | None = None,
        output_tokens_limit: int | None = None,
        total_tokens_limit: int | None = None,
        *,
        request_tokens_limit: int | None = None,
        response_tokens_limit: int | None = None,
    ) -> None:
        self.request_limit = request_limit
        self.tool_calls_limit = tool_calls_limit
        self.input_tokens_limit = input_tokens_limit if input_tokens_limit is not None else request_tokens_limit
        self.output_tokens_limit = output_tokens_limit if output_tokens_limit is not None else response_tokens_limit
        self.total_tokens_limit = total_tokens_limit

    @property
    @deprecated('`request_tokens_limit` is deprecated, use `input_tokens_limit` instead')
    def request_tokens_limit(self) -> int | None:
        """The old name of `input_tokens_limit`."""
        return self.input_tokens_limit

    @property
    @deprecated('`response_tokens_limit` is deprecated, use `output_tokens_limit` instead')
    def response_tokens_limit(self) -> int | None:
        """The old name of `output_tokens_limit`."""
        return self.output_tokens_limit

    def has_token_limits(self) -> bool:
        """Whether any token limit is set."""
        return any(
            limit is not None for limit in (self.input_tokens_limit, self.output_tokens_limit, self.total_tokens_limit)
        )

    def check_before_request(self, usage: RunUsage) -> None:
        """Raise if making one more request would exceed `request_limit`."""
        if self.request_limit is not None and usage.requests >= self.request_limit:
            raise UsageLimitExceeded(
                f'The next request would exceed the request_limit of {self.request_limit} '
                f'({usage.requests} requests made so far)'
            )

    def check_tokens(self, usage: RunUsage) -> None:
        """Raise if the usage so far exceeds a token limit."""
        for limit, used, name in (
            (self.input_tokens_limit, usage.input_tokens, 'input_tokens_limit'),
            (self.output_tokens_limit, usage.output_tokens, 'output_tokens_limit'),
            (self.total_tokens_limit, usage.total_tokens, 'total_tokens_limit'),
        ):
            if limit is not None and used > limit:
                raise UsageLimitExceeded(f'Exceeded the {name} of {limit} ({name.removesuffix("_limit")}={used})')

    def check_before_tool_call(self, usage: RunUsage, pending_calls: int = 1) -> None:
        """Raise if running `pending_calls` more tool calls would exceed `tool_calls_limit`."""
        if self.tool_calls_limit is not None and usage.tool_calls + pending_calls > self.tool_calls_limit:
            raise UsageLimitExceeded(
                f'The next tool call(s) would exceed the tool_calls_limit of {self.tool_calls_limit} '
                f'(tool_calls={usage.tool_calls + pending_calls}).'
            )
