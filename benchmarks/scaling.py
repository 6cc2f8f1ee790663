"""Does extraction time grow with the page, or faster? ``extract(html)`` on
generated pages of one shape at growing sizes, beside lxml's bare parse.

    python -m benchmarks.scaling [--sizes 2000,8000,32000] [--shapes para,zh,...] [--out FILE]

A page of many small parts (paragraphs, table rows, list entries) is where a
per-part loop over all the other parts hides: it costs nothing on a news page
and minutes on a 20 MB one. The growth exponent (log of the time ratio over
the log of the size ratio, largest vs smallest) is 1 for linear work and 2
for quadratic. Prints a table and saves it to benchmarks/results/scaling.md.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

from lxml import html as lxml_html

from benchmarks.publish import RESULTS, publish
from extractors import extract

PARAGRAPH = "<p>Paragraph {} says something about the topic.</p>"
DIV = "<div class='c{}'><b>word {}</b> more text</div>"
ZH_PARAGRAPH = "这是第{}段新闻内容，记者报道了相关情况，并且发表了评论。"
ENTRY = "<li><a href='/a/{0}.html'>Headline number {0} of the day</a> <span>2024-05-01</span></li>"
ROW = "<tr><td><a href='/x{0}'>Link {0}</a></td><td>cell {0} text</td></tr>"

SHAPES: dict[str, Callable[[int], str]] = {
    "para": lambda n: "".join(PARAGRAPH.format(i) for i in range(n)),
    "zh": lambda n: "".join(f"<p>{ZH_PARAGRAPH.format(i)}</p>" for i in range(n)),
    "table": lambda n: "<table>" + "".join(ROW.format(i) for i in range(n)) + "</table>",
    "links": lambda n: "<ul>" + "".join(ENTRY.format(i) for i in range(n)) + "</ul>",
    "divs": lambda n: "".join(DIV.format(i % 7, i) for i in range(n)),
    "br": lambda n: "<div>" + "".join(f"line {i} of a long poem<br>" for i in range(n)) + "</div>",
    # one paragraph again and again (a log, a spam page): copy rules meet it
    "same": lambda n: PARAGRAPH.format("again") * n,
}


def page(shape: str, n: int) -> str:
    return f"<html><head><title>Page</title></head><body>{SHAPES[shape](n)}</body></html>"


def seconds(fn: Callable[[str], object], html: str) -> float:
    start = time.perf_counter()
    fn(html)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.scaling", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--sizes", default="2000,8000,32000", help="parts per page, a list")
    parser.add_argument("--shapes", default=",".join(SHAPES), help=f"of: {', '.join(SHAPES)}")
    parser.add_argument("--out", type=Path, default=RESULTS / "scaling.md", help="table file")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    unknown = [s for s in shapes if s not in SHAPES]
    if unknown or len(sizes) < 2:
        parser.error(f"unknown shapes {unknown}" if unknown else "give at least two sizes")
    extract(page("zh", 10))  # load jieba's dictionary before the clock runs
    parts = " | ".join(f"{n:,} parts" for n in sizes)
    head = f"| shape | {parts} | growth exponent | x lxml at the largest |"
    rows = [head, "|---|" + "---:|" * (len(sizes) + 2)]
    for shape in shapes:
        times, parse = [], 0.0
        for n in sizes:
            html = page(shape, n)
            times.append(seconds(extract, html))
            parse = seconds(lxml_html.document_fromstring, html)
            print(f"{shape} {n}: {len(html) / 1e6:.1f} MB, {times[-1]:.2f} s", flush=True)
        exponent = math.log(times[-1] / times[0]) / math.log(sizes[-1] / sizes[0])
        cells = " | ".join(f"{t:.2f} s" for t in times)
        rows.append(f"| {shape} | {cells} | {exponent:.2f} | {times[-1] / parse:.0f}x |")
    text = "\n".join([
        f"# Extraction time by page size ({date.today().isoformat()})", "",
        f"Command: `python -m benchmarks.scaling --sizes {args.sizes}`", "",
        "`extract(html)` (auto) on generated pages;",
        "the exponent is 1 for linear growth, 2 for quadratic.", "",
        *rows,
    ])  # fmt: skip
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
