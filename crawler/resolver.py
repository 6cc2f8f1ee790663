"""The crawl's DNS resolver: Scrapy's caching one, and with
``SITESIFT_DENY_PRIVATE`` on, a refusal of non-public addresses.

:class:`~crawler.middlewares.destinations.DestinationGuard` checks a request's
host before it is sent, with a lookup of its own; the connection then looks
the host up again, here. A DNS server that answers with a public address the
first time and a private one the second (DNS rebinding) would get past the
guard alone: checking the very address the connection is about to use closes
that gap. A refused lookup fails the request; :func:`refusal` gives the
failure its reason (recorded as skipped, like the guard's refusals).

Requests that go through the browser (screenshots) are resolved by Chromium
itself and checked by the guard only.
"""

from __future__ import annotations

import ipaddress
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from scrapy.resolver import CachingThreadedResolver
from twisted.internet.defer import Deferred
from twisted.internet.error import DNSLookupError

from crawler.middlewares.destinations import Network, allowed_networks, non_public_kind

_REFUSALS: OrderedDict[str, str] = OrderedDict()  # host -> why, the latest few
_MAX_REFUSALS = 1024


def refusal(host: str) -> str | None:
    """Why the resolver refused ``host`` (its latest refusal), or None."""
    return _REFUSALS.get(host)


class RefusedAddress(DNSLookupError):
    """The host resolved to an address SITESIFT_DENY_PRIVATE refuses."""


class PublicOnlyResolver(CachingThreadedResolver):
    deny_private = False
    allowed: tuple[Network, ...] = ()

    @classmethod
    def from_crawler(cls, crawler: Any, reactor: Any) -> PublicOnlyResolver:
        resolver = super().from_crawler(crawler, reactor)
        resolver.deny_private = crawler.settings.getbool("SITESIFT_DENY_PRIVATE")
        resolver.allowed = allowed_networks(crawler.settings.get("SITESIFT_ALLOW_NETWORKS") or "")
        return resolver

    def getHostByName(self, name: str, timeout: Sequence[int] = ()) -> Deferred[str]:  # noqa: N802 - Twisted's name
        d = super().getHostByName(name, timeout)
        if self.deny_private:
            d.addCallback(self._refuse_non_public, name)
        return d

    def _refuse_non_public(self, address: str, name: str) -> str:
        kind = non_public_kind(ipaddress.ip_address(address), self.allowed)
        if kind:
            why = (f"forbidden destination: {name} resolved to {address} ({kind}) when "
                   "connecting; SITESIFT_DENY_PRIVATE refuses non-public addresses")  # fmt: skip
            _REFUSALS[name] = why
            _REFUSALS.move_to_end(name)
            if len(_REFUSALS) > _MAX_REFUSALS:
                _REFUSALS.popitem(last=False)
            raise RefusedAddress(why)
        return address
