"""Refuse destinations that are not on the public internet.

For users who crawl site lists they do not control from a server: with
``SITESIFT_DENY_PRIVATE`` on, a request (a start URL, a link, a redirect hop,
robots.txt) whose host is or resolves to a loopback, private, link-local,
multicast, reserved or unspecified address is refused before any connection
is made, and recorded as skipped with the address in its reason. Off by
default, since crawling one's own intranet is a legitimate use.

The host is resolved here and again by the connection itself; the crawl's
resolver (crawler/resolver.py) checks that second answer too, so a DNS server
that answers differently the second time (DNS rebinding) is caught there.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections import OrderedDict
from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Request
from scrapy.utils.httpobj import urlparse_cached

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_CACHE_SIZE = 1024  # hosts remembered; a crawl's hosts are its sites plus redirect targets


class ForbiddenDestination(IgnoreRequest):
    """The request's host is not a public internet address."""


def allowed_networks(text: str) -> tuple[Network, ...]:
    """``SITESIFT_ALLOW_NETWORKS``: comma-separated addresses or networks
    ("10.1.0.0/16, 192.168.1.5"); ValueError names a bad one."""
    networks = []
    for part in (p.strip() for p in text.split(",")):
        if part:
            try:
                networks.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                raise ValueError(f"{part!r} is not an address or network") from None
    return tuple(networks)


def non_public_kind(address: Address, allowed: tuple[Network, ...] = ()) -> str | None:
    """Why ``address`` is not a public one ("loopback", "private", ...), or
    None: a public address, or one of the ``allowed`` networks."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    if any(address in network for network in allowed):
        return None
    # Most specific first: Python counts link-local and unspecified as private too.
    for kind in ("loopback", "link_local", "unspecified", "multicast", "reserved", "private"):
        if getattr(address, f"is_{kind}"):
            return kind.replace("_", "-")
    return None if address.is_global else "not global"


class DestinationGuard:
    """Downloader middleware: the first to see a request, the last word on where it goes."""

    def __init__(self, allowed: tuple[Network, ...] = ()) -> None:
        self.allowed = allowed
        self._resolved: OrderedDict[str, list[Address]] = OrderedDict()

    @classmethod
    def from_settings(cls, settings: Any) -> DestinationGuard | None:  # noqa: ANN401
        """The guard the settings ask for, or None when SITESIFT_DENY_PRIVATE is off."""
        if not settings.getbool("SITESIFT_DENY_PRIVATE"):
            return None
        return cls(allowed_networks(settings.get("SITESIFT_ALLOW_NETWORKS") or ""))

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DestinationGuard:
        guard = cls.from_settings(crawler.settings)
        if guard is None:
            raise NotConfigured
        return guard

    async def process_request(self, request: Request) -> None:
        why = await self.refusal(urlparse_cached(request).hostname or "")
        if why:
            raise ForbiddenDestination(why)
        return None

    async def refusal(self, host: str) -> str | None:
        """Why a request to ``host`` is refused, or None when it may go."""
        for address in await self._addresses(host):
            kind = non_public_kind(address, self.allowed)
            if kind:
                return (f"forbidden destination: {host} is {address} ({kind}); "
                        "SITESIFT_DENY_PRIVATE refuses non-public addresses")  # fmt: skip
        return None

    async def _addresses(self, host: str) -> list[Address]:
        try:
            return [ipaddress.ip_address(host)]
        except ValueError:
            pass
        if host in self._resolved:
            self._resolved.move_to_end(host)
            return self._resolved[host]
        try:
            loop = asyncio.get_running_loop()
            infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except OSError:
            return []  # unresolvable: the download fails with a DNS error, as it should
        addresses = [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]
        self._resolved[host] = addresses
        if len(self._resolved) > _CACHE_SIZE:
            self._resolved.popitem(last=False)
        return addresses
