"""`format_as_xml`: data as XML for prompts."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from uuid import UUID

import pytest
from pydantic import BaseModel, Field

from agent import format_as_xml


@dataclass
class Pet:
    name: str = field(metadata={'description': 'What the pet answers to'})
    born: date | None = None


class Item(BaseModel):
    sku: str = Field(title='Stock keeping unit')


class Order(BaseModel):
    items: list[Item]
    note: str = 'fragile & <heavy>'


def test_a_mapping_becomes_one_element_per_key_under_the_root_tag() -> None:
    xml = format_as_xml({'name': 'Ada', 'languages': ['en', 'fr']}, root_tag='user')

    assert xml == (
        '<user>\n  <name>Ada</name>\n  <languages>\n    <item>en</item>\n    <item>fr</item>\n  </languages>\n</user>'
    )


def test_without_a_root_tag_top_level_elements_are_joined_by_newlines() -> None:
    assert format_as_xml({'a': 1, 'b': None, 'c': True}) == '<a>1</a>\n<b>null</b>\n<c>True</c>'


def test_list_items_are_named_after_their_dataclass_and_text_is_escaped() -> None:
    xml = format_as_xml([Pet('Rex', date(2020, 5, 1)), Pet('<Tom>')], indent=None)

    assert (
        xml == '<Pet><name>Rex</name><born>2020-05-01</born></Pet><Pet><name>&lt;Tom&gt;</name><born>null</born></Pet>'
    )


def test_field_info_is_written_once_per_field_when_asked() -> None:
    xml = format_as_xml(Order(items=[Item(sku='a'), Item(sku='b')]), indent=None, include_field_info='once')

    assert xml == (
        '<items><Item><sku title="Stock keeping unit">a</sku></Item><Item><sku>b</sku></Item></items>'
        '<note>fragile &amp; &lt;heavy&gt;</note>'
    )


def test_field_info_is_written_on_every_element_when_true() -> None:
    xml = format_as_xml([Pet('Rex'), Pet('Tom')], root_tag='pets', indent=None, include_field_info=True)

    assert xml.count('description="What the pet answers to"') == 2


def test_unsupported_values_raise_type_error() -> None:
    with pytest.raises(TypeError, match='Unsupported type'):
        format_as_xml({'when': object()})


def test_scalars_are_written_as_their_text() -> None:
    values = {'id': UUID(int=1), 'price': Decimal('9.50'), 'wait': timedelta(minutes=5), 'raw': b'bytes'}

    assert format_as_xml(values, root_tag='row', indent=None) == (
        '<row><id>00000000-0000-0000-0000-000000000001</id><price>9.50</price><wait>0:05:00</wait><raw>bytes</raw></row>'
    )
