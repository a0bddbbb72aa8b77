"""`WebFetch` judges an IPv4 address carried inside an IPv6 one by the IPv4 rules, whatever the form.

Each form is a way to reach an IPv4 host through an IPv6 address: 6to4 (`2002:AABB:CCDD::/48` embeds
`AA.BB.CC.DD`), Teredo (`2001:0::/32`: the server in bits 32-63, the client inverted in the last 32 bits),
NAT64 (`64:ff9b::/96` and the local-use `64:ff9b:1::/48`, IPv4 in the last 32 bits), IPv4-mapped and
IPv4-compatible (`::ffff:a.b.c.d`, `::a.b.c.d`). Refusals happen before any connection is made.
"""

from __future__ import annotations

import ipaddress

import httpx2
import pytest

from agent import Agent
from agent.capabilities import WebFetch
from agent.capabilities._fetch import FetchPolicy, FetchRefused, _checked_address, fetch_url
from agent.messages import ModelRequest, RetryPromptPart, ToolCallPart
from tests.capabilities.catalog._models import Script


@pytest.mark.parametrize(
    ('url', 'reason'),
    [
        ('http://[2002:7f00:1::]/', r'2002:7f00:1:: is a 6to4 address embedding 127\.0\.0\.1, a loopback address'),
        ('http://[2002:a9fe:a9fe::1]/', r'a 6to4 address embedding 169\.254\.169\.254, a link-local address'),
        ('http://[2002:a00:1::]/', r'a 6to4 address embedding 10\.0\.0\.1, a private address'),
        # Teredo with a private server (10.0.0.1) and a public client (8.8.8.8, inverted: f7f7:f7f7).
        ('http://[2001:0:a00:1::f7f7:f7f7]/', r'a Teredo address embedding 10\.0\.0\.1, a private address'),
        # Teredo with a public server (65.54.227.120) and a loopback client (127.0.0.1, inverted: 80ff:fffe).
        ('http://[2001:0:4136:e378::80ff:fffe]/', r'a Teredo address embedding 127\.0\.0\.1, a loopback address'),
        ('http://[64:ff9b::7f00:1]/', r'64:ff9b::7f00:1 is a NAT64 address embedding 127\.0\.0\.1, a loopback address'),
        ('http://[64:ff9b::a9fe:a9fe]/', r'a NAT64 address embedding 169\.254\.169\.254, a link-local address'),
        ('http://[64:ff9b:1::c0a8:1]/', r'a local-use NAT64 address embedding 192\.168\.0\.1, a private address'),
        ('http://[::7f00:1]/', r'::7f00:1 is an IPv4-compatible address embedding 127\.0\.0\.1, a loopback address'),
        ('http://[::a00:1]/', r'an IPv4-compatible address embedding 10\.0\.0\.1, a private address'),
        ('http://[::ffff:10.0.0.1]/', r'is a private address'),
    ],
)
async def test_an_ipv6_address_embedding_a_non_public_ipv4_is_refused(url: str, reason: str) -> None:
    with pytest.raises(FetchRefused, match=reason):
        await fetch_url(url, FetchPolicy(timeout=2))


@pytest.mark.parametrize(
    'url',
    [
        'http://[2002:808:808::1]/',  # 6to4 of 8.8.8.8
        'http://[64:ff9b::808:808]/',  # the well-known NAT64 prefix: how an IPv6-only network reaches 8.8.8.8
        'http://[::ffff:8.8.8.8]/',
    ],
)
async def test_an_ipv6_address_embedding_a_public_ipv4_passes_the_address_check(url: str) -> None:
    address = await _checked_address(httpx2.URL(url), FetchPolicy())
    assert ipaddress.ip_address(address) == ipaddress.ip_address(httpx2.URL(url).host)


async def test_a_local_use_nat64_prefix_must_be_allowed_and_still_only_reaches_public_ipv4() -> None:
    # The local-use prefix is a network's own translator, not a public route: refused unless listed.
    with pytest.raises(FetchRefused, match=r'64:ff9b:1::808:808 is a reserved address'):
        await fetch_url('http://[64:ff9b:1::808:808]/', FetchPolicy(timeout=2))
    listed = FetchPolicy(allowed_networks=['64:ff9b:1::/48'])
    assert await _checked_address(httpx2.URL('http://[64:ff9b:1::808:808]/'), listed) == '64:ff9b:1::808:808'
    with pytest.raises(FetchRefused, match=r'embedding 127\.0\.0\.1, a loopback address'):
        await _checked_address(httpx2.URL('http://[64:ff9b:1::7f00:1]/'), listed)


def test_the_model_is_told_why_a_6to4_form_of_loopback_was_refused() -> None:
    script = Script([[ToolCallPart('web_fetch', {'url': 'http://[2002:7f00:1::]/'}, 'f1')], 'ok'])
    result = Agent(script.model(), capabilities=[WebFetch()]).run_sync('read the local admin page')
    (retry,) = [
        p
        for m in result.all_messages()
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, RetryPromptPart)
    ]
    assert retry.content == (
        'Refused to fetch http://[2002:7f00:1::]/: 2002:7f00:1:: is a 6to4 address embedding 127.0.0.1, a loopback '
        'address, which may not be fetched; allow it explicitly with allowed_networks.'
    )
