"""Block and challenge pages served with status 200."""

from __future__ import annotations

from crawler.blocking import BlockDetector, BlockParams, find_markers

ARTICLE = "The council approved the new budget after a long debate. " * 40


def test_outlier_with_markers_is_blocked() -> None:
    detector = BlockDetector()
    for _ in range(4):
        assert detector.check("h/news/{n}.html", ARTICLE) is None
    reason = detector.check("h/news/{n}.html", "Access denied. Please verify you are human.")
    assert reason is not None and "access denied" in reason


def test_article_about_captchas_is_not_blocked() -> None:
    detector = BlockDetector()
    for _ in range(4):
        detector.check("g", ARTICLE)
    long_text = ARTICLE + " Researchers showed that captcha puzzles can be solved by bots."
    assert detector.check("g", long_text) is None


def test_short_page_without_history_needs_markers() -> None:
    detector = BlockDetector(BlockParams(short_chars=600))
    assert detector.check("new-group", "Short note, nothing suspicious.") is None
    assert detector.check("other", "访问被拒绝，请完成验证后继续访问") is not None


def test_markers_cover_chinese_and_english() -> None:
    assert find_markers("请输入验证码") == ["验证码"]
    assert find_markers("Checking your browser before accessing") == ["checking your browser"]
    assert find_markers("An ordinary article.") == []
