"""`WebFetch`: the native tool where supported; otherwise a local fetch that refuses what a model must not reach.

Every fetch here goes to a server the test starts on the loopback interface, or is refused before any
connection is made.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from agent import Agent, UserError
from agent.builtin_tools import WebFetchTool
from agent.capabilities import WebFetch
from agent.capabilities._fetch import FetchFailed, FetchPolicy, FetchRefused, fetch_url
from agent.messages import ModelRequest, RetryPromptPart, ToolCallPart, ToolReturnPart

from ._models import Script
from ._web_server import web_server

LOOPBACK = FetchPolicy(allowed_networks=['127.0.0.1/32'])


@pytest.mark.parametrize(
    ('url', 'reason'),
    [
        ('http://127.0.0.1:9/', r'127\.0\.0\.1 is a loopback address'),
        ('http://localhost:9/', r'localhost \(which resolves to (127\.0\.0\.1|::1)\) is a loopback address'),
        ('http://169.254.169.254/latest/meta-data/', r'169\.254\.169\.254 is a link-local address'),
        ('http://10.0.0.1/', r'10\.0\.0\.1 is a private address'),
        ('http://[::1]:9/', r'::1 is a loopback address'),
        ('http://[::ffff:127.0.0.1]:9/', r'is a loopback address'),
        ('http://0.0.0.0:9/', r'0\.0\.0\.0 is an unspecified address'),
        ('file:///etc/passwd', r"the 'file' scheme is not allowed; allowed: http, https"),
        ('ftp://example.com/', r"the 'ftp' scheme is not allowed"),
    ],
)
async def test_non_public_addresses_and_other_schemes_are_refused_before_connecting(url: str, reason: str) -> None:
    with pytest.raises(FetchRefused, match=reason):
        await fetch_url(url)


@pytest.mark.parametrize(
    'target', ['http://127.0.0.1:9/admin', 'http://169.254.169.254/latest/meta-data/', 'file:///etc/passwd']
)
async def test_redirects_to_refused_urls_are_refused(target: str) -> None:
    # The server is on another loopback address, allowed on its own, so that 127.0.0.1 stays refused.
    with web_server('127.0.0.2') as server:
        with pytest.raises(FetchRefused):
            await fetch_url(
                f'{server.base_url}/redirect?to={quote(target)}', FetchPolicy(allowed_networks=['127.0.0.2'])
            )
        assert server.requested == [f'/redirect?to={quote(target)}']


async def test_a_loopback_server_is_fetched_only_when_explicitly_allowed_and_html_becomes_markdown() -> None:
    with web_server() as server:
        with pytest.raises(FetchRefused, match='loopback'):
            await fetch_url(f'{server.base_url}/page')
        assert server.requested == []
        page = await fetch_url(f'{server.base_url}/redirect?to=/page', LOOPBACK)
    assert page.url == f'{server.base_url}/page'
    assert (page.status_code, page.content_type, page.truncated) == (200, 'text/html', False)
    assert page.text == (f'# Welcome\n\nServed from **this machine**. See [the docs]({server.base_url}/docs).')


async def test_domain_allow_and_block_lists_are_enforced_locally() -> None:
    with pytest.raises(FetchRefused, match=r"the domain 'evil.com' is not among the allowed domains \['example.com'\]"):
        await fetch_url('https://evil.com/', FetchPolicy(allowed_domains=['example.com']))
    with pytest.raises(FetchRefused, match=r"the domain 'ads.example.com' is blocked"):
        await fetch_url('https://ads.example.com/', FetchPolicy(blocked_domains=['example.com']))
    with web_server() as server:
        policy = FetchPolicy(allowed_domains=['127.0.0.1'], allowed_networks=['127.0.0.1/32'])
        page = await fetch_url(f'{server.base_url}/notes.txt', policy)
    assert (page.content_type, page.text) == ('text/plain', 'plain notes')


async def test_bodies_are_cut_at_the_size_cap_and_slow_servers_at_the_time_cap() -> None:
    with web_server() as server:
        big = await fetch_url(f'{server.base_url}/big', FetchPolicy(allowed_networks=['127.0.0.1/32'], max_bytes=100))
        assert big.truncated
        assert big.text == 'x' * (100 - len('<html><body><p>'))
        with pytest.raises(FetchFailed, match=r'timed out after 0\.3 seconds'):
            await fetch_url(f'{server.base_url}/hang', FetchPolicy(allowed_networks=['127.0.0.1/32'], timeout=0.3))


async def test_too_many_redirects_fail() -> None:
    with web_server() as server:
        loop = f'{server.base_url}/redirect?to={quote("/redirect?to=/page")}'
        with pytest.raises(FetchFailed, match='more than 1 redirects'):
            await fetch_url(loop, FetchPolicy(allowed_networks=['127.0.0.1/32'], max_redirects=1))


def test_the_agent_fetches_through_the_local_tool_when_the_model_has_no_native_fetch() -> None:
    with web_server() as server:
        script = Script([[ToolCallPart('web_fetch', {'url': f'{server.base_url}/page'}, 'f1')], 'summarized'])
        agent = Agent(script.model(), capabilities=[WebFetch(allowed_networks=['127.0.0.1/32'])])
        result = agent.run_sync('summarize the page')
    assert result.output == 'summarized'
    (returned,) = [
        p
        for m in result.all_messages()
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    ]
    assert returned.content == (
        f'URL: {server.base_url}/page\n\n'
        f'# Welcome\n\nServed from **this machine**. See [the docs]({server.base_url}/docs).'
    )
    assert script.offered[0].function_tools == ['web_fetch']


def test_a_refused_fetch_is_reported_to_the_model_as_a_retry_prompt() -> None:
    script = Script([[ToolCallPart('web_fetch', {'url': 'http://169.254.169.254/latest/meta-data/'}, 'f1')], 'ok'])
    result = Agent(script.model(), capabilities=[WebFetch()]).run_sync('read the metadata')
    (retry,) = [
        p
        for m in result.all_messages()
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, RetryPromptPart)
    ]
    assert retry.content == (
        'Refused to fetch http://169.254.169.254/latest/meta-data/: 169.254.169.254 is a link-local address, which '
        'may not be fetched; allow it explicitly with allowed_networks.'
    )


def test_max_content_tokens_truncates_local_results() -> None:
    with web_server() as server:
        script = Script([[ToolCallPart('web_fetch', {'url': f'{server.base_url}/big'}, 'f1')], 'ok'])
        agent = Agent(script.model(), capabilities=[WebFetch(allowed_networks=['127.0.0.1/32'], max_content_tokens=10)])
        result = agent.run_sync('read')
    (returned,) = [
        p
        for m in result.all_messages()
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    ]
    assert returned.content == f'URL: {server.base_url}/big\n\n{"x" * 40}\n\n[content truncated]'


def test_models_with_native_fetch_get_the_native_tool_with_the_same_constraints() -> None:
    script = Script(['ok'], native={'web_fetch'})
    Agent(script.model(), capabilities=[WebFetch(allowed_domains=['example.com'], max_uses=2)]).run_sync('x')
    assert script.offered[0].native_tools == [WebFetchTool(allowed_domains=['example.com'], max_uses=2)]
    assert script.offered[0].function_tools == []


def test_max_uses_needs_the_native_tool_and_bad_networks_fail_early() -> None:
    with pytest.raises(UserError, match=r'WebFetch\(max_uses\) needs the native .web_fetch. tool'):
        Agent(Script(['ok']).model(), capabilities=[WebFetch(max_uses=2)]).run_sync('x')
    with pytest.raises(UserError, match=r"'localhost' is not a network"):
        WebFetch(allowed_networks=['localhost'])


def test_web_fetch_loads_from_a_spec() -> None:
    agent = Agent.from_spec(
        {'model': 'test', 'capabilities': [{'WebFetch': {'allowed_domains': ['example.com'], 'timeout': 5}}]}
    )
    assert agent.capabilities == [WebFetch(allowed_domains=['example.com'], timeout=5)]
    with pytest.raises(UserError, match=r"Failed to instantiate capability 'WebFetch': timeout: Input should be"):
        Agent.from_spec({'model': 'test', 'capabilities': [{'WebFetch': {'timeout': 'soon'}}]})
    with pytest.raises(UserError, match=r"Failed to instantiate capability 'WebFetch': .*allowed_domain"):
        Agent.from_spec({'model': 'test', 'capabilities': [{'WebFetch': {'allowed_domain': ['example.com']}}]})
