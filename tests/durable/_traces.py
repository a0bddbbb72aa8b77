"""Spans as the tracing tests read them, whether caught in memory or written to a file by another process."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan

GENAI_PREFIXES = ('invoke_agent ', 'chat ', 'execute_tool ')


@dataclass(frozen=True)
class SeenSpan:
    name: str
    span_id: int
    parent_id: int | None
    trace_id: int
    error: bool
    attributes: dict[str, Any] = field(hash=False, compare=False)

    @classmethod
    def from_sdk(cls, span: ReadableSpan) -> SeenSpan:
        assert span.context is not None
        return cls(
            span.name,
            span.context.span_id,
            span.parent.span_id if span.parent else None,
            span.context.trace_id,
            span.status.status_code.name == 'ERROR',
            dict(span.attributes or {}),
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeenSpan:
        parent = data.get('parent_id')
        return cls(
            data['name'],
            int(data['context']['span_id'], 16),
            int(parent, 16) if parent else None,
            int(data['context']['trace_id'], 16),
            data['status']['status_code'] == 'ERROR',
            data.get('attributes') or {},
        )


def read_json_lines(path: Path) -> list[SeenSpan]:
    if not path.exists():
        return []
    return [SeenSpan.from_json(json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


class Trace:
    """The spans of one run, with the questions the tests ask of them."""

    def __init__(self, spans: Iterable[SeenSpan]) -> None:
        self.spans = list(spans)
        self.by_id = {span.span_id: span for span in self.spans}

    def named(self, prefix: str) -> list[SeenSpan]:
        return [span for span in self.spans if span.name.startswith(prefix)]

    def one(self, prefix: str) -> SeenSpan:
        found = self.named(prefix)
        assert len(found) == 1, f'expected one {prefix!r} span, got {sorted(s.name for s in self.spans)}'
        return found[0]

    def parent(self, span: SeenSpan) -> SeenSpan | None:
        return self.by_id.get(span.parent_id) if span.parent_id is not None else None

    def ancestors(self, span: SeenSpan) -> list[str]:
        """The names of a span's ancestors, nearest first (all must have been exported)."""
        names: list[str] = []
        current = self.parent(span)
        while current is not None:
            names.append(current.name)
            current = self.parent(current)
        return names

    def genai_parent(self, span: SeenSpan) -> str | None:
        """The nearest GenAI ancestor's name (Temporal's own spans skipped)."""
        return next((name for name in self.ancestors(span) if name.startswith(GENAI_PREFIXES)), None)

    def genai_counts(self) -> Counter[str]:
        return Counter(span.name for span in self.spans if span.name.startswith(GENAI_PREFIXES))

    def assert_each_span_once(self) -> None:
        ids = Counter(span.span_id for span in self.spans)
        assert [i for i, n in ids.items() if n > 1] == [], 'a span was exported more than once'
        assert len({span.trace_id for span in self.spans}) == 1, 'the spans are not one trace'
