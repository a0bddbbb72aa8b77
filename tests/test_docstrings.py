import pytest
from typing_extensions import TypedDict

from agent._docstrings import ParsedDocstring, parse_docstring

GOOGLE = """Fetch rows from the table.

    Rows are returned in primary key order.

    Args:
        table: The table name.
        limit (int, optional): At most this many rows;
            zero means no limit.
        *columns: Columns to select.
        **filters: Equality filters.

    Returns:
        list[dict]: The rows.

    Raises:
        KeyError: If the table doesn't exist.
    """

NUMPY = """Fetch rows from the table.

    Rows are returned in primary key order.

    Parameters
    ----------
    table : str
        The table name.
    limit : int, optional
        At most this many rows;
        zero means no limit.
    x, y : float
        Coordinates.
    *columns
        Columns to select.

    Returns
    -------
    list of dict
        The rows.
    """

SPHINX = """Fetch rows from the table.

    Rows are returned in primary key order.

    :param table: The table name.
    :type table: str
    :param int limit: At most this many rows;
        zero means no limit.
    :param *columns: Columns to select.
    :returns: The rows.
    :rtype: list[dict]
    """


def test_google_sections_are_parsed():
    assert parse_docstring(GOOGLE, format='google') == ParsedDocstring(
        description='Fetch rows from the table.\n\nRows are returned in primary key order.',
        params={
            'table': 'The table name.',
            'limit': 'At most this many rows;\nzero means no limit.',
            'columns': 'Columns to select.',
            'filters': 'Equality filters.',
        },
        returns='The rows.',
        returns_type='list[dict]',
    )


def test_numpy_sections_are_parsed():
    assert parse_docstring(NUMPY, format='numpy') == ParsedDocstring(
        description='Fetch rows from the table.\n\nRows are returned in primary key order.',
        params={
            'table': 'The table name.',
            'limit': 'At most this many rows;\nzero means no limit.',
            'x': 'Coordinates.',
            'y': 'Coordinates.',
            'columns': 'Columns to select.',
        },
        returns='The rows.',
        returns_type='list of dict',
    )


def test_sphinx_fields_are_parsed():
    assert parse_docstring(SPHINX, format='sphinx') == ParsedDocstring(
        description='Fetch rows from the table.\n\nRows are returned in primary key order.',
        params={
            'table': 'The table name.',
            'limit': 'At most this many rows;\nzero means no limit.',
            'columns': 'Columns to select.',
        },
        returns='The rows.',
        returns_type='list[dict]',
    )


@pytest.mark.parametrize('doc', [GOOGLE, NUMPY, SPHINX])
def test_auto_detection_picks_the_right_style(doc: str):
    parsed = parse_docstring(doc)
    assert parsed == parse_docstring(doc, format='numpy' if doc is NUMPY else 'sphinx' if doc is SPHINX else 'google')
    assert parsed.params['table'] == 'The table name.'


def test_missing_or_blank_docstrings_give_nothing():
    assert parse_docstring(None) == ParsedDocstring(description=None)
    assert parse_docstring('   \n  ') == ParsedDocstring(description=None)


def test_a_docstring_with_only_sections_has_no_description():
    parsed = parse_docstring('Args:\n    a: The a.\n')
    assert parsed.description is None
    assert parsed.params == {'a': 'The a.'}


def test_a_summary_only_docstring_is_all_description():
    assert parse_docstring('  Just a summary.  ') == ParsedDocstring(description='Just a summary.')


def test_sentences_that_start_with_a_section_word_stay_in_the_description():
    parsed = parse_docstring('Do it.\n\nNote: this is inline.\nExample: also inline.')
    assert parsed.description == 'Do it.\n\nNote: this is inline.\nExample: also inline.'


def test_google_returns_on_the_header_line_and_without_a_type():
    assert parse_docstring('Sum.\n\nReturns: the total.').returns == 'the total.'
    assert parse_docstring('Sum.\n\nReturns:\n    The total\n    of all.').returns == 'The total\nof all.'
    assert parse_docstring('Sum.\n\nReturns:\n    int | None: The total.').returns == 'The total.'


def test_google_description_may_start_on_the_next_line():
    parsed = parse_docstring('Do it.\n\nArgs:\n    a:\n        The a,\n        indented.\n')
    assert parsed.params == {'a': 'The a,\nindented.'}


def test_other_sections_end_the_description_without_adding_params():
    parsed = parse_docstring('Do it.\n\nExamples:\n    >>> do_it(a=1)\n\nArgs:\n    a: The a.\n')
    assert parsed.description == 'Do it.'
    assert parsed.params == {'a': 'The a.'}


def test_numpy_returns_fall_back_to_the_type_line():
    parsed = parse_docstring('Sum.\n\nReturns\n-------\nint\n')
    assert parsed.returns == 'int'


def test_sphinx_text_after_the_field_list_is_not_part_of_a_field():
    parsed = parse_docstring('Do it.\n\n:param a: The a.\n\nTrailing paragraph.\n')
    assert parsed.params == {'a': 'The a.'}


def test_param_names_steer_auto_detection_to_the_style_that_documents_them():
    # The underlined `Returns` makes this look like NumPy style, but the parameters are in Google style.
    doc = 'Do it.\n\nArgs:\n    a: The a.\n\nReturns\n-------\nint\n'
    assert parse_docstring(doc).params == {}
    assert parse_docstring(doc, param_names=['a']).params == {'a': 'The a.'}
    assert parse_docstring(doc, param_names=['b']).params == {}


def test_a_tool_docstring_without_a_summary_gives_an_empty_description_and_no_docstring_none():
    from agent._function_schema import function_schema

    def sections_only(city: str) -> str:
        """
        Args:
            city: Where.
        """
        return city

    def undocumented(city: str) -> str:
        return city

    described = function_schema(sections_only)
    assert described.description == ''
    assert described.json_schema['properties']['city']['description'] == 'Where.'
    assert function_schema(undocumented).description is None


class Box(TypedDict):
    width: int
    """Across, in centimetres."""
    height: int


def test_attribute_docstrings_describe_fields_of_a_single_object_parameter_and_of_nested_types():
    from agent._function_schema import function_schema

    def measure(box: Box) -> int:
        return box['width']

    def measure_both(first: Box, second: Box) -> int:
        return first['width']

    properties = function_schema(measure).json_schema['properties']
    assert properties['width'] == {'type': 'integer', 'description': 'Across, in centimetres.'}
    assert properties['height'] == {'type': 'integer'}
    nested = function_schema(measure_both).json_schema['$defs']['Box']['properties']
    assert nested['width']['description'] == 'Across, in centimetres.'


def test_only_tools_whose_parameters_hold_a_dataclass_or_typed_dict_read_source_for_attribute_docstrings(
    monkeypatch: pytest.MonkeyPatch,
):
    """Reading attribute docstrings parses source files; a tool of plain parameters (most tools) must not pay
    for that, and must not race other threads' parsing on CPython 3.11 when toolsets are built in threads."""
    import inspect

    from agent._function_schema import function_schema

    read: list[object] = []
    getsourcelines = inspect.getsourcelines

    def counting(obj: object) -> object:
        read.append(obj)
        return getsourcelines(obj)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(inspect, 'getsourcelines', counting)

    def add(a: int, b: list[str], c: dict[str, float] | None = None) -> int:
        return a

    def measure(first: Box, second: list[Box]) -> int:
        return first['width']

    function_schema(add)
    assert read == []
    nested = function_schema(measure).json_schema['$defs']['Box']['properties']
    assert nested['width']['description'] == 'Across, in centimetres.'
    assert read
