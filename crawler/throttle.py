"""AutoThrottle that never goes below a site's own floor delay.

Scrapy ignores robots.txt ``Crawl-delay`` and its AutoThrottle would lower any
slot delay to ``DOWNLOAD_DELAY``. The spider puts a site's floor (Crawl-delay,
capped, or the site list's ``delay=``) into ``request.meta["sitesift_delay"]``;
this extension keeps the slot's delay at or above it after every response.
"""

from __future__ import annotations

from scrapy import Request, Spider
from scrapy.extensions.throttle import AutoThrottle
from scrapy.http import Response

META_KEY = "sitesift_delay"


class SiteThrottle(AutoThrottle):
    def _response_downloaded(self, response: Response, request: Request, spider: Spider) -> None:
        super()._response_downloaded(response, request, spider)
        floor = request.meta.get(META_KEY)
        if floor:
            _, slot = self._get_slot(request, spider)
            if slot is not None:
                slot.delay = max(slot.delay, float(floor))
