"""boilerpipe (Kohlschütter et al., WSDM 2010) on the shared Document.

Two extractors from the seed: ``extract_article`` (ArticleExtractor, tuned
for news) and ``extract_default`` (DefaultExtractor, the densitometric
classifier). Chinese pages count jieba words (see :class:`Params`).

>>> from extractors.boilerpipe import extract_article
>>> extract_article("<html><body><p>Too short.</p></body></html>").text
''
"""

from __future__ import annotations

from typing import Any

from ..document import Document
from ..result import Result
from .blocks import Label, TextBlock, TextDocument, build_text_document
from .chains import Params, article_chain, default_chain, run

__all__ = [
    "Label",
    "Params",
    "TextBlock",
    "TextDocument",
    "build_text_document",
    "extract_article",
    "extract_default",
]


def extract_article(html: str | bytes | Document, url: str | None = None, **params: Any) -> Result:
    """Main text with boilerpipe's ArticleExtractor (method ``boilerpipe``)."""
    return run(html, url, "boilerpipe", article_chain, params)[0]


def extract_default(html: str | bytes | Document, url: str | None = None, **params: Any) -> Result:
    """Main text with boilerpipe's DefaultExtractor (method ``boilerpipe-default``)."""
    return run(html, url, "boilerpipe-default", default_chain, params)[0]
