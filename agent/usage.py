"""Token and request accounting, and the limits enforced on a run."""

from __future__ import annotations

from dataclasses import dataclass, field

from .exceptions import UsageLimitExceeded

__all__ = ('RequestUsage', 'RunUsage', 'UsageLimits')

_TOKEN_FIELDS = ('input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens')


@dataclass
class _TokenCounts:
    input_tokens: int = 0
    """Tokens sent to the model (including cached ones)."""
    output_tokens: int = 0
    """Tokens produced by the model (including reasoning tokens)."""
    cache_read_tokens: int = 0
    """Input tokens served from the provider's prompt cache."""
    cache_write_tokens: int = 0
    """Input tokens written to the provider's prompt cache."""
    reasoning_tokens: int = 0
    """Output tokens spent on reasoning/thinking."""
    details: dict[str, int] = field(default_factory=dict[str, int])
    """Provider-specific counters."""

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    def _add_tokens(self, other: _TokenCounts) -> None:
        for name in _TOKEN_FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for key, value in other.details.items():
            self.details[key] = self.details.get(key, 0) + value


@dataclass
class RequestUsage(_TokenCounts):
    """Usage reported for a single model request."""

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

    def has_values(self) -> bool:
        """Whether anything has been counted."""
        return bool(self.requests or self.tool_calls or self.total_tokens or self.details)


@dataclass
class UsageLimits:
    """Limits on requests, tool calls and tokens for a run; exceeding one raises `UsageLimitExceeded`."""

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
                f'(tool_calls={usage.tool_calls}, pending={pending_calls})'
            )
