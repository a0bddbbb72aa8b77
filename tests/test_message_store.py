"""The worker's store of tool results: what each model request that names a result gets back."""

from __future__ import annotations

from enum import StrEnum

from activities._message_store import WorkerStore


class Level(StrEnum):
    LOUD = 'loud ' * 100


def test_string_results_are_shared_by_the_requests_that_name_them_and_others_are_decoded_for_each() -> None:
    store = WorkerStore()
    text = 'a line of a large document\n' * 20_000
    text_key = store.add_content(text)
    rows_key = store.add_content({'rows': list(range(100))})
    enum_key = store.add_content(Level.LOUD)
    assert text_key is not None
    assert rows_key is not None
    assert enum_key is not None

    # A long conversation's requests each put back every large result it carries: a string is not decoded again.
    first, second = store.content(text_key), store.content(text_key)
    assert first == text
    assert first is second
    # Anything else is decoded per request, so what one request changes never reaches the next.
    rows = store.content(rows_key)
    assert isinstance(rows, dict)
    rows['rows'].clear()
    assert store.content(rows_key) == {'rows': list(range(100))}
    # A string enum comes back as the plain string the workflow decodes from the result's JSON.
    loud = store.content(enum_key)
    assert type(loud) is str
    assert loud == 'loud ' * 100
