"""The screenshot classifier: numpy layers, the shipped weights, and real
Chromium screenshots of an article page and a list page on 127.0.0.1."""

from __future__ import annotations

import asyncio
import io
import json
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from crawler.screenshots import CaptureParams, capture_page, shrink
from extractors import PageType
from extractors.classify import Classification
from extractors.result import LengthClass
from extractors.visual import (
    DEFAULT_MODEL,
    Stack,
    VisualModel,
    _conv2d,
    _maxpool2,
    classify_screenshot,
    classify_screenshots,
    combine,
    combined_list_probability,
    list_probability,
    load_model,
    prepare,
)


def _image(width: int, height: int, colour: int = 255) -> bytes:
    out = io.BytesIO()
    Image.new("L", (width, height), colour).save(out, "PNG")
    return out.getvalue()


def test_prepare_scales_to_width_and_pads_short_pages_with_paper() -> None:
    grey = io.BytesIO()
    img = Image.new("L", (320, 100), 255)
    img.paste(0, (0, 0, 320, 50))  # black top half
    img.save(grey, "PNG")
    x = prepare(grey.getvalue(), 128, 256)
    assert x.shape == (256, 128) and x.dtype == np.float32
    assert x[:15].min() > 0.99  # ink
    assert x[25:].max() < 0.01  # white paper, then padding
    tall = prepare(_image(640, 10_000, 0), 128, 256)
    assert tall.shape == (256, 128) and tall.min() > 0.99  # cut, not squeezed


def test_conv_matches_a_direct_sum() -> None:
    rng = np.random.default_rng(1)
    x = rng.random((2, 3, 7, 6), dtype=np.float32)
    w = rng.normal(size=(4, 3, 5, 5)).astype(np.float32)
    b = rng.normal(size=4).astype(np.float32)
    padded = np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2)))
    expected = np.zeros((2, 4, 7, 6), np.float32)
    for n in range(2):
        for o in range(4):
            for i in range(7):
                for j in range(6):
                    expected[n, o, i, j] = (padded[n, :, i : i + 5, j : j + 5] * w[o]).sum() + b[o]
    assert np.allclose(_conv2d(x, w, b), expected, atol=1e-4)
    pooled = _maxpool2(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    assert pooled.tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]


def test_shipped_model_is_small_and_complete() -> None:
    assert DEFAULT_MODEL.stat().st_size < 5 * 1024 * 1024
    model = load_model()
    assert model.classes == ["article", "list"]
    for member in model.members:
        probs = model.forward(np.zeros((3, member.height, member.width), np.float32), member)
        assert probs.shape == (3, 2) and np.allclose(probs.sum(axis=1), 1.0)


def _one_network(model: VisualModel, j: int = 0) -> VisualModel:
    """Network ``j`` of a model as a model of its own (arrays unprefixed)."""
    member = model.members[j]
    spec = (model.config.get("members") or [model.config])[j]
    arrays = {
        k[len(member.prefix) :]: v for k, v in model.arrays.items() if k.startswith(member.prefix)
    }
    return VisualModel({**spec, "classes": model.classes}, arrays)


def test_networks_probabilities_are_averaged() -> None:
    single = _one_network(load_model())
    # A second network: the first with its output layer's logits reversed.
    last = single.members[0].dense_layers - 1
    flipped = dict(single.arrays)
    flipped[f"fc{last}.weight"] = single.arrays[f"fc{last}.weight"][::-1]
    flipped[f"fc{last}.bias"] = single.arrays[f"fc{last}.bias"][::-1]
    other = VisualModel(single.config, flipped)
    spec = {k: v for k, v in single.config.items() if k != "classes"}
    pair = VisualModel(
        {"classes": single.classes, "members": [spec, spec]},
        {f"m0.{k}": v for k, v in single.arrays.items()}
        | {f"m1.{k}": v for k, v in flipped.items()},
    )
    width, height = single.input_size
    x = np.random.default_rng(3).random((4, height, width), dtype=np.float32)
    a, b = single.forward(x), other.forward(x)
    assert np.allclose(b, a[:, ::-1], atol=1e-6)
    assert np.allclose(pair.forward(x), (a + b) / 2, atol=1e-6)
    assert np.allclose(pair.forward(x), 0.5, atol=1e-6)  # the two cancel out
    shot = _image(320, 900, 40)
    assert np.allclose(pair.probabilities([shot]), 0.5, atol=1e-6)


def test_networks_of_other_views_read_their_own_input() -> None:
    model = load_model()
    views = {m.view for m in model.members}
    assert len(views) > 1  # the shipped model averages two views of the page
    with pytest.raises(ValueError):
        model.forward(np.zeros((1, *model.input_size[::-1]), np.float32))
    shot = _image(640, 3000, 200)
    expected = np.mean(
        [model.forward(prepare(shot, m.width, m.height, m.fit)[None], m) for m in model.members],
        axis=0,
    )
    assert np.allclose(model.probabilities([shot]), expected, atol=1e-5)


def test_api_shapes_and_confidence_range() -> None:
    blank = _image(320, 400)
    page_type, confidence = classify_screenshot(blank)
    assert page_type in (PageType.ARTICLE, PageType.LIST) and 0.5 <= confidence <= 1.0
    assert classify_screenshots([]) == []
    p = list_probability([blank, blank])
    assert len(p) == 2 and p[0] == pytest.approx(p[1])


def test_stack_adds_weighted_log_odds() -> None:
    # Weights 1 and 1: the log-odds add (odds 3 and 3 -> odds 9).
    assert combined_list_probability(0.75, 0.75, Stack(1.0, 1.0, 0.0)) == pytest.approx(0.9)
    # The screenshot ignored: the DOM's probability comes back.
    assert combined_list_probability(0.3, 0.99, Stack(1.0, 0.0, 0.0)) == pytest.approx(0.3)
    # Inputs are clipped: a certain screenshot is worth `clip` log-odds at most.
    clipped = combined_list_probability(0.5, 1.0, Stack(0.0, 1.0, 0.0, clip=2.0))
    assert clipped == pytest.approx(1 / (1 + np.exp(-2.0)))


def test_shipped_stack_weighs_both_models() -> None:
    """Fitted on validation pages: both models count, so the screenshot tips
    an unsure DOM but does not overrule a DOM that is all but certain."""
    stack = Stack()
    assert stack.dom_weight > 0 and stack.visual_weight > 0
    certain_article = Classification(PageType.ARTICLE, 0.999, LengthClass.LONG, 0.001)
    assert combine(certain_article, 0.95).page_type is PageType.ARTICLE
    unsure = Classification(PageType.ARTICLE, 0.55, LengthClass.LONG, 0.45)
    assert combine(unsure, 0.99).page_type is PageType.LIST
    assert combine(unsure, 0.01).page_type is PageType.ARTICLE


def test_combine_keeps_other_and_the_length_class() -> None:
    other = Classification(PageType.OTHER, 0.95, LengthClass.SHORT, 0.0)
    assert combine(other, 0.99) is other
    dom = Classification(PageType.LIST, 0.8, LengthClass.SHORT, 0.8)
    assert combine(dom, None) is dom
    both = combine(dom, 0.9)
    assert both.length_class is LengthClass.SHORT
    assert both.list_probability == pytest.approx(combined_list_probability(0.8, 0.9))
    assert both.confidence == round(max(both.list_probability, 1 - both.list_probability), 3)


def test_fit_stack_recovers_the_weights_of_its_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """The trainer's stack fit (class-balanced logistic regression) on pages
    drawn from a known rule finds that rule; its L2 penalty only shrinks it."""
    from training.pagetype import evaluate
    from training.pagetype.evaluate import Page, fit_stack

    rng = np.random.default_rng(0)
    pages = []
    for i in range(4000):
        zd, zv = rng.normal(0, 2.5, 2)
        p = 1 / (1 + np.exp(-(1.5 * zd + 0.5 * zv)))
        label = "list" if rng.random() < p else "article"
        pd, pv = 1 / (1 + np.exp(-zd)), 1 / (1 + np.exp(-zv))
        pages.append(Page(f"k{i}", label, "val", "list" if pd >= 0.5 else "article", pd, pv))
    shrunk = fit_stack(pages)
    monkeypatch.setattr(evaluate, "STACK_L2", 0.0)
    stack = fit_stack(pages)
    assert stack.dom_weight == pytest.approx(1.5, abs=0.15)
    assert stack.visual_weight == pytest.approx(0.5, abs=0.1)
    assert abs(stack.bias) < 0.2
    assert 0 < shrunk.visual_weight < stack.visual_weight < shrunk.dom_weight < stack.dom_weight


def test_the_stack_bias_puts_lists_first() -> None:
    """The fitted bias is raised as little as makes list recall at least
    article recall on the fitted pages."""
    from training.pagetype.evaluate import _lists_first

    is_list = np.array([False, True, True, True])
    assert _lists_first(np.array([-1.0, -0.5, 0.5, 2.0]), is_list) == pytest.approx(0.75)
    assert _lists_first(np.array([-1.0, 0.1, 0.5, 2.0]), is_list) == 0.0


# -- real Chromium on pages served on 127.0.0.1 -------------------------------------


def _demo_pages(kind: str) -> list[str]:
    from demo.server import WEB_ROOT

    paths = []
    for site in ("en", "zh"):
        expected = json.loads((WEB_ROOT / site / "_expected.json").read_text("utf-8"))
        paths += [f"{site}{path}" for path, page in expected["pages"].items()
                  if page.get("kind") == kind and page.get("expect") == "stored"]  # fmt: skip
    return paths


async def _screenshots(urls: list[str]) -> list[bytes]:
    from playwright.async_api import async_playwright

    params = CaptureParams()
    shots = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True)
        try:
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            for url in urls:
                page = await context.new_page()
                await page.goto(url, wait_until="load")
                shots.append(shrink((await capture_page(page, params)).image, params)[0])
                await page.close()
        finally:
            await browser.close()
    return shots


@pytest.fixture(scope="module")
def demo_shots() -> dict[str, list[bytes]]:
    """Screenshots of every stored article and list page of the demo web."""
    from demo.server import DemoWeb

    shots = {}
    with DemoWeb() as web:
        for kind in ("article", "list"):
            urls = [web.urls[p.split("/", 1)[0]] + p.split("/", 1)[1] for p in _demo_pages(kind)]
            shots[kind] = asyncio.run(_screenshots(urls))
    return shots


@pytest.mark.parametrize(("kind", "least"), [("article", 0.9), ("list", 0.8)])
def test_demo_pages_are_told_apart(
    demo_shots: dict[str, list[bytes]], kind: str, least: float
) -> None:
    """The demo web's pages (styled, trained on) by the screenshot alone: the
    shipped model gets 26 of 27 articles and 9 of 10 lists; the one before
    it, trained on no real list page, 27 and 4."""
    labels = [str(page_type) for page_type, _ in classify_screenshots(demo_shots[kind])]
    assert labels.count(kind) / len(labels) >= least, labels


def test_a_list_and_an_article_never_seen_in_training(tmp_path: Path) -> None:
    """Hand-written pages served on 127.0.0.1: a long article and a headline
    list in the same chrome."""
    chrome = "<div style='background:#036;color:#fff;padding:16px'>Site · News · Sport</div>"
    para = "<p>" + "The council met on Tuesday to discuss the budget for next year. " * 8 + "</p>"
    article = f"<html><body>{chrome}<h1>A long report</h1>{para * 12}</body></html>"
    rows = "".join(
        f"<li><a href='#'>Headline number {i} about the city</a> "
        f"<small>2024-05-{i % 28 + 1:02d}</small></li>"
        for i in range(45)
    )
    listing = f"<html><body>{chrome}<h1>Latest news</h1><ul>{rows}</ul></body></html>"
    for name, text in (("article", article), ("list", listing)):
        (tmp_path / f"{name}.html").write_text(text)
    handler = partial(_QuietHandler, directory=str(tmp_path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        shots = asyncio.run(_screenshots([base + "article.html", base + "list.html"]))
    finally:
        server.shutdown()
    (a_type, _), (l_type, _) = classify_screenshots(shots)
    assert (a_type, l_type) == (PageType.ARTICLE, PageType.LIST)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass
