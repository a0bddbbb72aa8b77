"""Registering the custom search attributes agent runs record (`deploy.search_attributes`)."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest
from temporalio.client import Client
from temporalio.common import SearchAttributeKey

from deploy.search_attributes import SEARCH_ATTRIBUTES, SearchAttributeConflict, main, register_search_attributes

pytestmark = pytest.mark.asyncio(loop_scope='session')


async def _custom_attributes(client: Client) -> dict[str, int]:
    listed = await client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace=client.namespace)
    )
    return dict(listed.custom_attributes)


async def test_registering_adds_missing_attributes_once(client: Client):
    key = SearchAttributeKey.for_keyword(f'Test{uuid.uuid4().hex[:12]}')
    assert await register_search_attributes(client, attributes=[key]) == [key.name]
    assert (await _custom_attributes(client))[key.name] == IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
    assert await register_search_attributes(client, attributes=[key]) == []


async def test_an_attribute_registered_under_another_type_is_refused_with_what_to_do(client: Client):
    name = f'Test{uuid.uuid4().hex[:12]}'
    await register_search_attributes(client, attributes=[SearchAttributeKey.for_keyword(name)])
    with pytest.raises(
        SearchAttributeConflict, match=f'has search attribute {name} as Keyword, but runs record it as Int'
    ):
        await register_search_attributes(client, attributes=[SearchAttributeKey.for_int(name)])


async def test_command_registers_the_runs_attributes_on_the_namespace(
    client: Client, capsys: pytest.CaptureFixture[str]
):
    address = client.service_client.config.target_host
    assert await asyncio.to_thread(main, ['--address', address]) == 0
    registered = await _custom_attributes(client)
    assert {key.name: registered.get(key.name) for key in SEARCH_ATTRIBUTES} == {
        'AgentName': IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
        'AgentState': IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
        'PendingApprovals': IndexedValueType.INDEXED_VALUE_TYPE_INT,
        'AgentOwner': IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
        'AgentVersion': IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
    }
    # A second run (the one-shot service restarted) finds them and says so.
    assert await asyncio.to_thread(main, ['--address', address]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("Namespace 'default' already has the search attributes")


async def test_command_reports_an_unreachable_server_in_one_line(capsys: pytest.CaptureFixture[str]):
    assert await asyncio.to_thread(main, ['--address', '127.0.0.1:1']) == 1
    err = capsys.readouterr().err
    assert err.startswith('Could not register the search attributes: ')
    assert err.count('\n') == 1
