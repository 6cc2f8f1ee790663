"""``scrapy crawl site``, the in-repo form of ``sitesift crawl``, with its
checks up front: a missing site list, a bad ``-s`` value or database URL
is one line and exit status 2, not Scrapy's bootstrap traceback."""

from __future__ import annotations

import argparse

from scrapy.commands.crawl import Command as ScrapyCrawl
from scrapy.exceptions import UsageError

from crawler.cli import check_crawl_settings, check_database, check_site_list
from crawler.cli_data import CLIError
from crawler.spiders.site import SiteSpider


class Command(ScrapyCrawl):
    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if args and args[0] == SiteSpider.name:
            self.check_site_crawl(opts.spargs.get("sites"))
        super().run(args, opts)

    def check_site_crawl(self, sites: str | None) -> None:
        if not sites:
            raise UsageError("no site list: pass -a sites=FILE (one start URL per line)",
                             print_help=False)  # fmt: skip
        try:
            check_site_list(sites)
            check_crawl_settings(self.settings)
            check_database(self.settings, open_it=True)
        except CLIError as exc:
            raise UsageError(str(exc), print_help=False) from None
