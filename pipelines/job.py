"""One page's classification and extraction, as a job for a worker.

Classification and extraction read the same parsed page, and auto reuses
the article methods' runs that classification made (they are kept on the
document): so the two run together, in one call of :func:`analyse`. A
worker process parses the page's HTML again (a tree does not pickle); the
worker thread takes the spider's tree. This module imports no Scrapy, so a
worker process starts in a fraction of a second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from extractors import extract
from extractors.classify import Classification
from extractors.document import Document
from extractors.result import PageType, Result
from pipelines.classify import ClassifyConfig, decide, with_group
from pipelines.extract import given_classification


@dataclass(frozen=True, slots=True)
class PageJob:
    """What a worker needs of a page (all of it pickles)."""

    url: str
    html: str
    fetched_at: str | None
    screenshot: dict[str, Any] | None
    classify: ClassifyConfig | None  # None: no classification
    group_type: PageType | None  # the page's URL group's, when known
    method: str | None  # None: no extraction
    references: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PageAnalysis:
    decision: Classification | None  # the page's own
    page_type: PageType | None  # the decision, or its group's when reused
    result: Result | None
    failures: tuple[tuple[str, str, str], ...]  # (step, exception type, message)


def analyse(job: PageJob, document: Document | None = None) -> PageAnalysis:
    """Classify the page, then extract it, each step on its own: a step that
    fails is reported, and the other still runs."""
    doc = document if document is not None else Document(job.html, url=job.url)
    decision = page_type = result = None
    failures = []
    if job.classify is not None:
        try:
            decision = decide(doc, job.url, job.screenshot)
            page_type = with_group(decision, job.group_type, job.classify)
        except Exception as exc:  # never lose the page over a classification
            failures.append(("classify", type(exc).__name__, str(exc)))
    if job.method is not None:
        kwargs: dict[str, Any] = {
            "reference": list(job.references) or None,
            "fetched_at": job.fetched_at,
        }
        if job.method == "auto" and decision is not None and page_type is not None:
            kwargs["classification"] = given_classification(decision, page_type, job.screenshot)
        try:
            result = extract(doc, job.url, method=job.method, **kwargs)
        except Exception as exc:  # the page is stored without text, never lost
            failures.append(("extract", type(exc).__name__, str(exc)))
    return PageAnalysis(decision, page_type, result, tuple(failures))
