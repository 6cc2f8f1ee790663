"""The public API as a library user meets it: METHODS, extract's arguments,
results that cross a process boundary."""

from __future__ import annotations

import pickle
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

import pytest

from extractors import PageType, extract

STORY = "<p>" + "The council voted on Tuesday to approve a plan for a new park. " * 4 + "</p>"
PAGE = f"<html><body><nav><a href='/'>Home</a></nav><article>{STORY * 3}</article></body></html>"


def test_methods_is_a_whole_mapping_in_a_fresh_process() -> None:
    # dict methods that bypass a lazy __missing__ (get, values) saw nothing
    # until a name had been looked up with []
    code = (
        "from extractors import METHODS;"
        "assert METHODS.get('cetd') is not None and METHODS.get('nope') is None;"
        "assert len(list(METHODS.values())) == len(METHODS) == len(dict(METHODS));"
        "assert 'auto' in METHODS and METHODS['cetd'] is METHODS.get('cetd')"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_a_result_pickles_without_its_tree_node() -> None:
    result = extract(PAGE)
    assert result.node is not None and result.page_type is PageType.ARTICLE
    copy = pickle.loads(pickle.dumps(result))
    assert copy == result and copy.node is None
    with ProcessPoolExecutor(1) as pool:
        assert pool.submit(extract, PAGE).result().text == result.text


def test_the_charset_header_decodes_bytes_the_page_does_not_label() -> None:
    # a few bytes of GBK alone are misread (as Korean, say); the header says
    body = "<p>你好，世界。今天天气很好。</p>".encode("gbk")
    for method in ("auto", "cetd"):
        text = extract(body, method=method, content_type="text/html; charset=gbk").text
        assert text == "你好，世界。今天天气很好。", method


def test_a_parameter_of_the_wrong_type_is_refused_by_name() -> None:
    # a str where a tuple is wanted was split into one-letter method names
    with pytest.raises(TypeError, match="candidates takes tuple"):
        extract(PAGE, candidates="cetd")
    with pytest.raises(TypeError, match="short_agreement takes float"):
        extract(PAGE, short_agreement="high")
    with pytest.raises(TypeError, match="params= takes a extractors.auto.Params"):
        extract(PAGE, params={"short_agreement": 0.5})
    with pytest.raises(TypeError, match="it takes candidates, short_agreement"):
        extract(PAGE, shortagreement=0.5)
    assert extract(PAGE, short_agreement=1).text  # an int does for a float
    assert extract(PAGE, method="justext", tokenizer="whitespace").method == "justext"


def test_a_reference_that_is_no_page_is_refused_alike_by_layout_and_auto() -> None:
    for method in ("layout", "auto"):  # auto only logged layout's TypeError
        with pytest.raises(TypeError, match="reference= takes a page"):
            extract(PAGE, method=method, reference=5)
    assert extract(PAGE, method="layout", reference=(PAGE,)).method == "layout"


def test_a_fetch_time_that_is_no_date_is_refused() -> None:
    with pytest.raises(ValueError, match="fetched_at: cannot read 'yesterday'"):
        extract(PAGE, fetched_at="yesterday")
    assert extract(PAGE, fetched_at="2024-05-03T12:00:00Z").text


def test_a_url_that_is_no_string_is_refused_by_every_method() -> None:
    # an int url was an AttributeError from deep inside the metadata code
    from extractors import METHODS, as_document

    for method in ("auto", "cetd", "list"):
        with pytest.raises(TypeError, match="url= takes the page's address as a str, not int"):
            extract(PAGE, url=5, method=method)
    with pytest.raises(TypeError, match="not bytes"):
        METHODS["scedd"](as_document(PAGE), url=b"http://127.0.0.1/")
    assert extract(PAGE, url="http://127.0.0.1/a").text
