"""A tool result's data and files: what a model is sent as the result, and the files a text-only API gets apart."""

from agent.messages import (
    BinaryContent,
    DocumentUrl,
    ImageUrl,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ToolReturnPart,
)

CHART = ImageUrl('https://example.com/chart.png')
PDF = BinaryContent(b'%PDF-1.7', media_type='application/pdf')


def result(content: object) -> ToolReturnPart:
    return ToolReturnPart('report', content, 'call_1')


def test_files_are_the_multimodal_items_of_a_result():
    assert result(CHART).files == [CHART]
    assert result(['summary', CHART, {'rows': 3}, PDF]).files == [CHART, PDF]
    assert result({'chart': 'chart.png'}).files == []


def test_content_items_serialize_data_but_leave_text_and_files_as_they_are():
    part = result(['summary', {'rows': 3}, 7, CHART])

    assert part.content_items() == ['summary', {'rows': 3}, 7, CHART]
    assert part.content_items(mode='str') == ['summary', '{"rows":3}', '7', CHART]
    assert part.content_items(mode='jsonable') == ['summary', {'rows': 3}, 7, CHART]
    assert result({'rows': 3}).content_items(mode='str') == ['{"rows":3}']


def test_the_text_and_object_a_model_is_sent_leave_files_out():
    assert result(['summary', CHART]).model_response_str() == 'summary'
    assert result(['summary', CHART]).model_response_object() == {'return_value': 'summary'}
    assert result([{'rows': 3}, CHART]).model_response_object() == {'rows': 3}
    assert result(['a', 'b', CHART]).model_response_str() == '["a","b"]'
    # A list of one item stays a list when nothing was taken out of it.
    assert result(['only']).model_response_str() == '["only"]'
    assert result(PDF).model_response_str() == ''
    assert result(PDF).model_response_object() == {}


def test_a_text_only_result_refers_to_its_files_sent_after_it():
    text, files = result(['See the chart.', CHART]).model_response_str_and_user_content()
    assert text == f'["See the chart.","See file {CHART.identifier}."]'
    assert files == [f'This is file {CHART.identifier}:', CHART]

    assert result(PDF).model_response_str_and_user_content() == (
        f'See file {PDF.identifier}.',
        [f'This is file {PDF.identifier}:', PDF],
    )
    assert result('plain').model_response_str_and_user_content() == ('plain', [])


def test_files_nested_in_a_result_read_back_from_json_as_files():
    content = {'pages': [{'url': 'https://example.com/a.pdf', 'kind': 'document-url'}], 'meta': {'kind': 'table'}}
    history: list[ModelMessage] = [ModelRequest([result(content)])]

    loaded = ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(history))

    part = loaded[0].parts[0]
    assert isinstance(part, ToolReturnPart)
    assert part.content == {'pages': [DocumentUrl('https://example.com/a.pdf')], 'meta': {'kind': 'table'}}
