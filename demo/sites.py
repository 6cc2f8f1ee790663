"""The two demo sites: their words, sections, articles and special pages."""

from __future__ import annotations

from dataclasses import dataclass

from demo.content import Article
from demo.content_en import ARTICLES_EN, COMMENTS_EN
from demo.content_zh import ARTICLES_ZH, COMMENTS_ZH
from demo.templates import Locale


@dataclass(frozen=True)
class Blocked:
    """A challenge page served (200) at an article URL of a section."""

    section: str
    key: str
    title: str  # the title the list page shows
    published: str
    page_title: str
    message: str  # what the challenge page says
    teaser: str  # the snippet the list page shows


@dataclass(frozen=True)
class SiteSpec:
    """Everything that makes one demo site."""

    name: str
    loc: Locale
    loc_traditional: Locale | None
    articles: tuple[Article, ...]
    comments: tuple[tuple[str, str], ...]
    blocked: Blocked
    offset: str  # UTC offset of the site's clock
    feed_path: str
    feed_type: str
    other_site: str
    about: tuple[str, ...]
    private_text: str
    resources: dict[str, str]  # label for each special link of the home page
    page_size: int = 3  # list entries per page: every section gets a second page
    cn_date_sections: tuple[str, ...] = ()  # bylines as "2024年5月3日 10:20"

    def article_path(self, section: str, key: str, published: str) -> str:
        """en: /news/2024/05/<slug>.html; zh: /news/20240503/<id>.html."""
        day = published.split(" ")[0]
        if self.name == "en":
            year, month, _ = day.split("-")
            return f"/{section}/{year}/{month}/{key}.html"
        return f"/{section}/{day.replace('-', '')}/{key}.html"


EN_LOCALE = Locale(
    lang="en",
    site_name="The Riverton Ledger",
    tagline="Independent local news for Riverton and the valley since 1921",
    home="Home",
    sections={"news": "News", "science": "Science"},
    related="Related articles",
    share="Share this story",
    comments="{n} comments",
    write_comment="Post comment",
    most_read="Most read",
    newsletter="Get the morning briefing",
    newer="Newer",
    older="Older",
    search="Search",
    about="About us",
    contact="Contact",
    feed="RSS",
    copyright="All rights reserved.",
    by="By",
    source="",
    editor="",
    date_style="en",
)

_ZH_COMMON = dict(lang="zh-CN", comments="网友评论（{n}）", write_comment="发表评论")
ZH_LOCALE = Locale(
    site_name="临江新闻网",
    tagline="临江新闻网——权威发布 服务民生",
    home="首页",
    sections={"news": "新闻", "tech": "科技", "culture": "文化"},
    related="相关阅读",
    share="分享到：",
    most_read="热门文章",
    newsletter="订阅每日新闻",
    newer="上一页",
    older="下一页",
    search="搜索",
    about="关于我们",
    contact="联系我们",
    feed="订阅",
    copyright="版权所有",
    by="",
    source="来源：",
    editor="（责任编辑：周敏）",
    date_style="zh-label",
    label_published="发布时间：",
    **_ZH_COMMON,
)
# The same template in traditional characters, for the Big5 pages.
ZH_HANT_LOCALE = Locale(
    lang="zh-TW",
    site_name="臨江新聞網",
    tagline="臨江新聞網——權威發布 服務民生",
    home="首頁",
    sections={"news": "新聞", "tech": "科技", "culture": "文化"},
    related="相關閱讀",
    share="分享到：",
    comments="網友評論（{n}）",
    write_comment="發表評論",
    most_read="熱門文章",
    newsletter="訂閱每日新聞",
    newer="上一頁",
    older="下一頁",
    search="搜尋",
    about="關於我們",
    contact="聯繫我們",
    feed="訂閱",
    copyright="版權所有",
    by="",
    source="來源：",
    editor="（責任編輯：周敏）",
    date_style="zh-label",
    label_published="發布時間：",
)

EN_SITE = SiteSpec(
    name="en",
    loc=EN_LOCALE,
    loc_traditional=None,
    articles=ARTICLES_EN,
    comments=COMMENTS_EN,
    blocked=Blocked(
        section="science",
        key="ocean-heat-record",
        title="Ocean temperatures off the coast hit a record for May",
        published="2024-05-31 15:10",
        page_title="Access denied",
        message="Access denied — please verify you are human (captcha) to continue.",
        teaser="Sea surface temperatures at the harbour buoy averaged 14.2 degrees, "
        "the warmest May since records began.",
    ),
    offset="-04:00",
    feed_path="/feed.xml",
    feed_type="application/rss+xml",
    other_site="zh",
    about=(
        "The Riverton Ledger has covered city hall, schools and the river valley since 1921. "
        "We are owned by a non-profit trust and funded by our readers.",
        "Our newsroom of fourteen reporters and editors works from the old post office "
        "building on Front Street.",
    ),
    private_text="Staff only: planning notes for next week's edition. Not for publication.",
    resources={
        "pdf": "Annual report 2023 (PDF)",
        "png": "Rainfall chart (PNG)",
        "missing": "Archive: 2019",
        "private": "Staff area",
        "private_doc": "Drafts",
        "out": "Our partners",
        "other": "中文版",
        "mailto": "Send us a tip",
        "js": "Change edition",
        "pick": "Editor's pick",
        "join": "Join the discussion",
    },
)

ZH_SITE = SiteSpec(
    name="zh",
    loc=ZH_LOCALE,
    loc_traditional=ZH_HANT_LOCALE,
    articles=ARTICLES_ZH,
    comments=COMMENTS_ZH,
    blocked=Blocked(
        section="tech",
        key="310120",
        title="本市发布人工智能产业发展三年行动计划",
        published="2024-05-15 09:40",
        page_title="访问被拒绝",
        message="访问被拒绝 请完成验证（滑动验证码）后继续访问。",
        teaser="计划提出，到2026年全市人工智能核心产业规模突破百亿元。",
    ),
    offset="+08:00",
    feed_path="/atom.xml",
    cn_date_sections=("tech",),
    feed_type="application/atom+xml",
    other_site="en",
    about=(
        "临江新闻网是临江日报社主办的综合性新闻网站，于2003年正式上线，"
        "提供本地时政、民生、科技和文化新闻。",
        "新闻热线：0000-12345678；投稿邮箱见页面底部“联系我们”。",
    ),
    private_text="内部资料：下周选题策划，请勿外传。",
    resources={
        "pdf": "2023年度报告（PDF）",
        "png": "降雨量统计图（PNG）",
        "missing": "2019年新闻归档",
        "private": "采编后台",
        "private_doc": "待发稿件",
        "out": "合作伙伴",
        "other": "English edition",
        "mailto": "新闻爆料",
        "js": "切换版本",
        "pick": "编辑推荐",
        "join": "参与讨论",
    },
)

SITES: dict[str, SiteSpec] = {"en": EN_SITE, "zh": ZH_SITE}
