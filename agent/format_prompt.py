"""`format_as_xml`: Python data as XML for a prompt; models read nested examples more reliably as XML than JSON.

```python
from agent.format_prompt import format_as_xml

print(format_as_xml({'name': 'Ada', 'languages': ['en', 'fr']}, root_tag='user'))
# <user>
#   <name>Ada</name>
#   <languages>
#     <item>en</item>
#     <item>fr</item>
#   </languages>
# </user>
```

Mappings become one element per key, sequences one element per item (named `item_tag`, or the class name of a
dataclass or pydantic model), and scalars their text. With `include_field_info`, the `title` and `description` of
a pydantic `Field` (or a dataclass field's `metadata`) become attributes of the field's element: on every
occurrence, or only the first with `'once'`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, time, timedelta
from decimal import Decimal
from enum import Enum
from typing import Any, Literal, cast
from xml.etree import ElementTree

import pydantic
from pydantic.fields import ComputedFieldInfo, FieldInfo
from pydantic_core import PydanticSerializationError

__all__ = ('format_as_xml',)

_FIELD_ATTRIBUTES = ('title', 'description')


def format_as_xml(
    obj: Any,
    root_tag: str | None = None,
    item_tag: str = 'item',
    none_str: str = 'null',
    indent: str | None = '  ',
    include_field_info: Literal['once'] | bool = False,
) -> str:
    """Format `obj` as XML.

    Supports `str`, `bytes`, `bool`, numbers, `Decimal`, dates and times, `timedelta`, `UUID`, `Enum`, mappings,
    iterables, dataclasses and pydantic models.

    Args:
        obj: The data to format.
        root_tag: The tag wrapping the whole document; `None` leaves it out (top-level elements are joined by
            newlines).
        item_tag: The tag of each item of an iterable (a dataclass or model item is named after its class).
        none_str: The text written for `None`.
        indent: The indentation per level; `None` writes everything on one line.
        include_field_info: Write fields' `title` and `description` as attributes: `True` on every element of
            the field, `'once'` only on the first.

    Returns:
        The XML text.

    Raises:
        TypeError: for a value of an unsupported type, or a mapping key that is not a `str` or `int`.
    """
    root = _XmlBuilder(item_tag, none_str, include_field_info).element(obj, root_tag, None)
    if root_tag is None and root.text is None:
        children = list(root)
        for child in children:
            if indent is not None:
                ElementTree.indent(child, space=indent)
        return ('' if indent is None else '\n').join(
            ElementTree.tostring(child, encoding='unicode') for child in children
        )
    if indent is not None:
        ElementTree.indent(root, space=indent)
    return ElementTree.tostring(root, encoding='unicode')


class _XmlBuilder:
    """Builds the element tree; remembers which fields already had their attributes written (for `'once'`)."""

    def __init__(self, item_tag: str, none_str: str, include_field_info: Literal['once'] | bool) -> None:
        self._item_tag = item_tag
        self._none_str = none_str
        self._include_field_info = include_field_info
        self._described: set[tuple[type, str]] = set()

    def element(
        self, value: Any, tag: str | None, field: tuple[type, str, dict[str, str]] | None, raw: Any = None
    ) -> ElementTree.Element:
        """The element for `value`: named `tag`, else after its class (dataclass, model), else `item_tag`.

        `raw` is the original object when `value` is its JSON form (inside a pydantic model's dump), so list items
        that were models or dataclasses are still named after their class.
        """
        element = ElementTree.Element(tag or _class_name(raw) or self._item_tag)
        self._describe(element, field)
        text = self._scalar_text(value)
        if text is not None:
            element.text = text
        elif isinstance(value, Mapping):
            for key, item in cast(Mapping[Any, Any], value).items():
                if not isinstance(key, str | int):
                    raise TypeError(f'Unsupported key type for XML formatting: {type(key)}; use str or int keys.')
                element.append(self.element(item, str(key), _field_of(raw, key), _raw_child(raw, key)))
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            element.tag = tag or type(value).__name__
            for f in dataclasses.fields(value):
                element.append(self.element(getattr(value, f.name), f.name, _field_of(value, f.name)))
        elif isinstance(value, pydantic.BaseModel):
            element.tag = tag or type(value).__name__
            self._model_children(element, value)
        elif isinstance(value, Iterable):
            for index, item in enumerate(cast(Iterable[Any], value)):
                element.append(self.element(item, None, None, _raw_child(raw, index)))
        else:
            raise TypeError(f'Unsupported type for XML formatting: {type(value)}')
        return element

    def _model_children(self, element: ElementTree.Element, model: pydantic.BaseModel) -> None:
        # The model's JSON dump applies its serializers and exclusions; the model itself supplies field info and
        # the class names of nested models and dataclasses.
        try:
            dumped = model.model_dump(mode='json')
        except PydanticSerializationError as e:
            raise TypeError(f'Unsupported type for XML formatting: {e}') from e
        for name, item in dumped.items():
            element.append(self.element(item, name, _field_of(model, name), getattr(model, name, None)))

    def _describe(self, element: ElementTree.Element, field: tuple[type, str, dict[str, str]] | None) -> None:
        if not self._include_field_info or field is None:
            return
        owner, name, attributes = field
        if self._include_field_info == 'once' and (owner, name) in self._described:
            return
        self._described.add((owner, name))
        for key, value in attributes.items():
            element.set(key, value)

    def _scalar_text(self, value: Any) -> str | None:
        if value is None:
            return self._none_str
        if isinstance(value, Enum):
            return str(cast(Any, value).value) if isinstance(value, str) else str(value)
        if isinstance(value, str):
            return value
        if isinstance(value, bytes | bytearray):
            return bytes(value).decode(errors='ignore')
        if isinstance(value, date | time):
            return value.isoformat()
        if isinstance(value, bool | int | float | Decimal | timedelta) or _is_uuid(value):
            return str(value)
        return None


def _is_uuid(value: Any) -> bool:
    # `agent/` never imports `uuid` (a test keeps random ids out of the deterministic runtime), so a UUID is
    # recognised by its class instead of with `isinstance`.
    return any(cls.__module__ == 'uuid' and cls.__name__ == 'UUID' for cls in type(value).__mro__)


def _raw_child(raw: Any, key: Any) -> Any:
    """The item `key` of the original object `raw` (a mapping, sequence, model or dataclass), if there is one."""
    if isinstance(raw, Mapping):
        return cast(Mapping[Any, Any], raw).get(key)
    if isinstance(key, int):
        if isinstance(raw, list | tuple):
            items = cast(Sequence[Any], raw)
            return items[key] if 0 <= key < len(items) else None
        return None
    if isinstance(key, str) and _class_name(raw) is not None:
        return getattr(raw, key, None)
    return None


def _class_name(raw: Any) -> str | None:
    if isinstance(raw, pydantic.BaseModel) or (dataclasses.is_dataclass(raw) and not isinstance(raw, type)):
        return type(raw).__name__
    return None


def _field_of(owner: Any, name: Any) -> tuple[type, str, dict[str, str]] | None:
    """The field `name` of a model or dataclass instance, with its `title` and `description`."""
    if not isinstance(name, str):
        return None
    if isinstance(owner, pydantic.BaseModel):
        model_type = type(owner)
        info = model_type.model_fields.get(name) or model_type.model_computed_fields.get(name)
        return (model_type, name, _attributes(info)) if info is not None else None
    if dataclasses.is_dataclass(owner) and not isinstance(owner, type):
        for f in dataclasses.fields(owner):
            if f.name == name:
                attributes = {k: str(v) for k, v in f.metadata.items() if k in _FIELD_ATTRIBUTES}
                return (type(owner), name, attributes)
    return None


def _attributes(info: FieldInfo | ComputedFieldInfo) -> dict[str, str]:
    found = {name: getattr(info, name, None) for name in _FIELD_ATTRIBUTES}
    return {name: str(value) for name, value in found.items() if value is not None}
