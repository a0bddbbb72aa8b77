"""Fetching a URL for a model without letting it reach what it should not (server-side request forgery).

A model chooses the URL, so every hop is checked before any connection is made:

- the scheme is `http` or `https` (and in the policy's allow-list): `file://`, `ftp://`, ... are refused;
- the host is in the allowed domains (if any) and not in the blocked ones (subdomains included);
- the host name is resolved here and *every* address it resolves to must be public: loopback, link-local
  (cloud metadata at 169.254.169.254), private, shared, reserved, multicast and unspecified addresses are
  refused unless the policy's `allowed_networks` lists them (e.g. `['127.0.0.1/32']` for a local service);
- an IPv6 address that carries an IPv4 one (IPv4-mapped and -compatible, 6to4, Teredo, NAT64) is refused if
  any IPv4 it carries would be: a relay or translator would deliver the request to that IPv4 host;
- the connection then goes to the checked address itself (with the original `Host` header and TLS server
  name), so a second DNS answer cannot swap in another address, and environment proxies are not used;
- redirects are followed by hand, each new location checked like the first URL.

The whole fetch (DNS included) is bounded by the policy's timeout, and the body is read up to `max_bytes`.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import anyio
import httpx2

from ._html_markdown import html_to_markdown

__all__ = (
    'Downloaded',
    'DownloadedLike',
    'FetchFailed',
    'FetchPolicy',
    'FetchRefused',
    'FetchedPage',
    'download',
    'fetch_url',
    'render',
)

_SCHEMES = frozenset({'http', 'https'})
_TEXT_TYPES = ('text/', 'application/json', 'application/xml', 'application/javascript', 'application/x-yaml')
_HTML_TYPES = ('text/html', 'application/xhtml+xml')
_ACCEPT = 'text/html, text/*;q=0.9, */*;q=0.5'
# IPv6 prefixes whose last 32 bits are an IPv4 address (6to4 and Teredo have properties of `IPv6Address`).
_NAT64 = ipaddress.IPv6Network('64:ff9b::/96')
_LOCAL_NAT64 = ipaddress.IPv6Network('64:ff9b:1::/48')
_IPV4_COMPATIBLE = ipaddress.IPv6Network('::/96')


class FetchRefused(Exception):
    """The URL (or a redirect) is not allowed by the fetch policy."""


class FetchFailed(Exception):
    """The URL is allowed, but fetching it failed (DNS, connection, timeout, too many redirects)."""


@dataclass(frozen=True, kw_only=True)
class FetchPolicy:
    """What a local fetch may reach and how much it may read."""

    allowed_schemes: Sequence[str] = ('http', 'https')
    """Schemes that may be fetched (a subset of `http` and `https`)."""
    allowed_domains: Sequence[str] | None = None
    """If set, the only domains that may be fetched (subdomains included)."""
    blocked_domains: Sequence[str] | None = None
    """Domains that may never be fetched (subdomains included)."""
    allowed_networks: Sequence[str] = ()
    """Non-public networks (CIDR, e.g. `'127.0.0.1/32'`) that may be fetched; public addresses always may."""
    timeout: float = 10.0
    """Seconds the whole fetch may take, redirects and DNS included."""
    max_bytes: int = 1_000_000
    """Bytes of the body to read at most; the rest is cut off."""
    max_redirects: int = 5
    """Redirects to follow at most."""


@dataclass(frozen=True)
class FetchedPage:
    """What a fetch returned."""

    url: str
    """The final URL, after redirects."""
    status_code: int
    """The HTTP status."""
    content_type: str
    """The media type, without parameters."""
    text: str
    """The content: Markdown for HTML, the text itself for other text types, a note for binary content."""
    truncated: bool
    """Whether the body was longer than the policy's `max_bytes`."""


def _normalize_domain(domain: str) -> str:
    return domain.strip().lower().removeprefix('*.').strip('.')


def _matches(host: str, domains: Sequence[str]) -> bool:
    return any(host == d or host.endswith('.' + d) for d in map(_normalize_domain, domains) if d)


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> tuple[str, list[ipaddress.IPv4Address]] | None:
    """The form and the IPv4 addresses of an IPv6 address that carries IPv4 ones (`None` if it carries none)."""
    last_32_bits = ipaddress.IPv4Address(int(ip) & 0xFFFF_FFFF)
    if ip.sixtofour is not None:
        return 'a 6to4', [ip.sixtofour]
    if ip.teredo is not None:
        return 'a Teredo', list(ip.teredo)  # the server, and the client (stored inverted, returned plain)
    if ip in _NAT64:
        return 'a NAT64', [last_32_bits]
    if ip in _LOCAL_NAT64:
        return 'a local-use NAT64', [last_32_bits]
    if ip in _IPV4_COMPATIBLE and int(ip) > 1:  # `::` and `::1` are the unspecified and loopback addresses
        return 'an IPv4-compatible', [last_32_bits]
    return None


def _address_problem(address: str, allowed: Sequence[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> str | None:
    """Why an address may not be fetched, or `None` if it may."""
    ip = ipaddress.ip_address(address.split('%', 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # the IPv4 address itself, written as IPv6: a socket connects to it
    if isinstance(ip, ipaddress.IPv6Address) and (embedded := _embedded_ipv4(ip)) is not None:
        form, carried = embedded
        for ipv4 in carried:
            if (problem := _address_problem(str(ipv4), allowed)) is not None:
                return f'{form} address embedding {ipv4}, {problem}'
        if ip in _NAT64:
            return None  # the well-known prefix reaches exactly the (public) IPv4 it carries
    if any(ip.version == net.version and ip in net for net in allowed):
        return None
    for label, flag in (
        ('a loopback', ip.is_loopback),
        ('a link-local', ip.is_link_local),
        ('an unspecified', ip.is_unspecified),
        ('a multicast', ip.is_multicast),
        ('a private', ip.is_private),
        ('a reserved', ip.is_reserved),
    ):
        if flag:
            return f'{label} address'
    return None if ip.is_global else 'not a public address'


async def _resolve(host: str, port: int) -> list[str]:
    try:
        return [str(ipaddress.ip_address(host))]
    except ValueError:
        pass
    try:
        infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise FetchFailed(f'could not resolve {host!r}: {exc}') from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


async def _checked_address(url: httpx2.URL, policy: FetchPolicy) -> str:
    """The address to connect to for `url`, after every check of the policy."""
    scheme = url.scheme.lower()
    schemes = {s.lower() for s in policy.allowed_schemes} & _SCHEMES
    if scheme not in schemes:
        raise FetchRefused(f'the {scheme or "missing"!r} scheme is not allowed; allowed: {", ".join(sorted(schemes))}')
    host = url.host.lower().rstrip('.')
    if not host:
        raise FetchRefused('the URL has no host')
    if policy.blocked_domains and _matches(host, policy.blocked_domains):
        raise FetchRefused(f'the domain {host!r} is blocked')
    if policy.allowed_domains is not None and not _matches(host, policy.allowed_domains):
        raise FetchRefused(f'the domain {host!r} is not among the allowed domains {list(policy.allowed_domains)}')
    allowed = [ipaddress.ip_network(net, strict=False) for net in policy.allowed_networks]
    port = url.port or (443 if scheme == 'https' else 80)
    addresses = await _resolve(host, port)
    if not addresses:
        raise FetchFailed(f'{host!r} resolved to no address')
    for address in addresses:
        if (problem := _address_problem(address, allowed)) is not None:
            shown = host if host == address else f'{host} (which resolves to {address})'
            raise FetchRefused(
                f'{shown} is {problem}, which may not be fetched; allow it explicitly with allowed_networks'
            )
    return addresses[0]


async def _read_capped(response: httpx2.Response, max_bytes: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            return b''.join(chunks)[:max_bytes], True
    return b''.join(chunks), False


class DownloadedLike(Protocol):
    """What `render` needs of a download: `Downloaded`, or an `httpx.Response` that has been read."""

    @property
    def url(self) -> object: ...
    @property
    def status_code(self) -> int: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    @property
    def content(self) -> bytes: ...
    @property
    def charset_encoding(self) -> str | None: ...


@dataclass(frozen=True)
class Downloaded:
    """A response body read under a fetch policy, before it is turned into text."""

    url: str
    """The final URL, after redirects."""
    status_code: int
    """The HTTP status."""
    headers: Mapping[str, str]
    """The response headers."""
    content: bytes
    """The body, cut off at the policy's `max_bytes`."""
    charset_encoding: str | None
    """The character set the `content-type` header names, if any."""
    truncated: bool
    """Whether the body was longer than the policy's `max_bytes`."""


def render(download: DownloadedLike) -> FetchedPage:
    """The page a download holds: HTML as Markdown, other text as it is, a note for binary content."""
    url, body = str(download.url), download.content
    truncated = bool(getattr(download, 'truncated', False))
    charset = download.charset_encoding or 'utf-8'
    content_type = download.headers.get('content-type', '').split(';', 1)[0].strip().lower()
    if content_type.startswith(_HTML_TYPES) or (not content_type and body.lstrip()[:1] == b'<'):
        text = html_to_markdown(body.decode(charset, errors='replace'), base_url=url)
    elif content_type.startswith(_TEXT_TYPES) or content_type.endswith(('+json', '+xml')):
        text = body.decode(charset, errors='replace')
    else:
        text = f'[{content_type or "binary"} content of {len(body)} bytes, not shown]'
    return FetchedPage(url, download.status_code, content_type, text, truncated)


def _pinned_request(client: httpx2.AsyncClient, url: httpx2.URL, address: str) -> httpx2.Request:
    """A GET of `url` sent to the checked `address`, with the original host name for HTTP and TLS."""
    return client.build_request(
        'GET',
        url.copy_with(host=address),
        headers={'Host': url.netloc.decode('ascii'), 'Accept': _ACCEPT},
        extensions={'sni_hostname': url.raw_host.decode('ascii')} if url.scheme == 'https' else None,
    )


async def download(url: str, policy: FetchPolicy | None = None) -> Downloaded:
    """GET `url`, checking it (and every redirect) against `policy`, and read the body up to its `max_bytes`.

    Raises:
        FetchRefused: if the URL or a redirect is not allowed (scheme, domain or address).
        FetchFailed: if the fetch fails (DNS, connection, HTTP protocol, timeout, too many redirects).
    """
    policy = policy or FetchPolicy()
    try:
        current = httpx2.URL(url)
    except httpx2.InvalidURL as exc:
        raise FetchRefused(f'invalid URL: {exc}') from exc
    try:
        with anyio.fail_after(policy.timeout):
            # trust_env=False: a proxy from the environment would make the connection, defeating the checks.
            async with httpx2.AsyncClient(follow_redirects=False, trust_env=False, timeout=policy.timeout) as client:
                for _ in range(policy.max_redirects + 1):
                    address = await _checked_address(current, policy)
                    request = _pinned_request(client, current, address)
                    response = await client.send(request, stream=True)
                    try:
                        location = response.headers.get('location')
                        if response.is_redirect and location:
                            current = current.join(location)
                            continue
                        body, truncated = await _read_capped(response, policy.max_bytes)
                    finally:
                        await response.aclose()
                    return Downloaded(
                        str(current), response.status_code, response.headers, body, response.charset_encoding, truncated
                    )
    except TimeoutError as exc:
        raise FetchFailed(f'timed out after {policy.timeout} seconds') from exc
    except httpx2.HTTPError as exc:
        raise FetchFailed(f'{type(exc).__name__}: {exc}') from exc
    raise FetchFailed(f'more than {policy.max_redirects} redirects')


async def fetch_url(url: str, policy: FetchPolicy | None = None) -> FetchedPage:
    """Fetch `url` with a GET request, checking it (and every redirect) against `policy`; see `download`."""
    return render(await download(url, policy))
