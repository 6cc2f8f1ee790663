"""Full-page screenshots: capture, bound, shrink, store by content hash.

Shared by the crawl (the screenshot middleware runs :func:`capture_page` as a
scrapy-playwright page method) and by the training renderer
(``training.pagetype render``), so that the classifier is trained on images
made exactly like the ones it sees in a crawl.

A capture is bounded twice: Chromium photographs at most ``max_height`` CSS
pixels of the page (a 50,000 px infinite-scroll page costs the same as a long
article), and the picture is shrunk to ``width`` pixels before it is stored.
Chromium encodes JPEG (far cheaper than PNG for a tall page) and Pillow decodes
it in draft mode, at a reduced scale straight from the DCT, so shrinking costs
little. Files are named by the SHA-256 of their bytes,
``<dir>/<sha[:2]>/<sha>.webp``: never a name taken from a URL, and a picture
shared by many pages is stored once.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import tempfile
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

__all__ = [
    "Capture",
    "CaptureParams",
    "ScreenshotStore",
    "StoredScreenshot",
    "capture_page",
    "shrink",
]

_SHA = re.compile(r"^[0-9a-f]{64}$")

# The page's layout size; body may be shorter than the document or the reverse.
_SIZE_JS = """() => {
  const d = document.documentElement, b = document.body;
  return [Math.max(d.scrollWidth, b ? b.scrollWidth : 0),
          Math.max(d.scrollHeight, b ? b.scrollHeight : 0), document.characterSet || ""];
}"""


@dataclass(frozen=True)
class CaptureParams:
    """How a page is photographed and stored (SITESIFT_SCREENSHOT_* settings)."""

    # The browser window. 1280 is the most common desktop width class; the
    # classifier was trained on captures at this width.
    viewport_width: int = 1280
    viewport_height: int = 800
    # CSS pixels of the page photographed at most: the top 6,000 px hold the
    # layout (the classifier reads the top 2,560 px); more only costs time.
    max_height: int = 6000
    # Stored width in pixels (1/4 of the viewport): text lines stay visible as
    # lines, a full capture is 20-80 KB of WebP.
    width: int = 320
    format: str = "webp"  # "webp" or "png"
    quality: int = 70  # WebP quality; ignored for PNG
    # Chromium's JPEG quality before shrinking; 85 keeps edges clean at 1/4.
    jpeg_quality: int = 85
    timeout_ms: int = 20_000  # one screenshot; a hung page fails instead

    def __post_init__(self) -> None:
        if self.format not in ("webp", "png"):
            raise ValueError(f"screenshot format must be webp or png, not {self.format!r}")
        for name in ("viewport_width", "viewport_height", "max_height", "width", "timeout_ms"):
            if getattr(self, name) <= 0:
                raise ValueError(f"screenshot {name} must be positive")
        if not 1 <= self.quality <= 100 or not 1 <= self.jpeg_quality <= 100:
            raise ValueError("screenshot quality must be between 1 and 100")


@dataclass(frozen=True)
class Capture:
    """What Chromium returned: an encoded picture and the page's full size."""

    image: bytes
    page_width: int
    page_height: int
    charset: str = ""  # how the browser decoded the page (document.characterSet)


@dataclass(frozen=True)
class StoredScreenshot:
    """A stored screenshot: the dict form is ``PageItem.screenshot``."""

    sha256: str
    path: str
    width: int
    height: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "sha256": self.sha256,
            "path": self.path,
            "width": self.width,
            "height": self.height,
        }


async def capture_page(page: Any, params: CaptureParams | None = None) -> Capture:
    """Photograph an open Playwright page, at most ``max_height`` CSS px tall.

    Usable as a scrapy-playwright ``PageMethod(capture_page, params)``.
    """
    params = params or CaptureParams()
    width, height, charset = await page.evaluate(_SIZE_JS)
    height = max(1, min(int(height or 1), params.max_height))
    clip = {"x": 0, "y": 0, "width": params.viewport_width, "height": height}
    image = await page.screenshot(
        full_page=True,
        clip=clip,
        type="jpeg",
        quality=params.jpeg_quality,
        animations="disabled",
        caret="hide",
        timeout=params.timeout_ms,
    )
    return Capture(image=image, page_width=int(width or 0), page_height=height, charset=charset)


def shrink(image: bytes, params: CaptureParams | None = None) -> tuple[bytes, int, int]:
    """Decode, bound, downscale to ``params.width`` and re-encode.

    Returns ``(encoded bytes, width, height)``. Accepts any format Pillow reads.
    """
    params = params or CaptureParams()
    with Image.open(io.BytesIO(image)) as img:
        scale = params.width / max(1, img.width)
        # JPEG: decode straight at 1/2, 1/4 or 1/8 size (never below target).
        img.draft("RGB", (max(1, round(img.width * scale)), max(1, round(img.height * scale))))
        pic = img.convert("RGB")
    max_h = max(1, round(params.max_height * params.width / params.viewport_width))
    height = min(max_h, max(1, round(pic.height * params.width / pic.width)))
    if pic.width != params.width:
        full_h = max(1, round(pic.height * params.width / pic.width))
        pic = pic.resize((params.width, full_h), Image.Resampling.BOX)
    pic = pic.crop((0, 0, params.width, height))
    out = io.BytesIO()
    if params.format == "webp":
        pic.save(out, "WEBP", quality=params.quality, method=4)
    else:
        pic.save(out, "PNG", optimize=False, compress_level=6)
    return out.getvalue(), pic.width, pic.height


class ScreenshotStore:
    """Content-addressed files under one directory: ``<sha[:2]>/<sha>.<ext>``.

    The databases whose crawls store there are listed in :data:`OWNERS`, so
    that a sweep for one database (which keeps only the files it refers to)
    can tell when the folder also holds another's."""

    OWNERS = "databases.txt"

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).expanduser().absolute()  # rows name files from any folder

    def owners(self) -> set[str]:
        """The databases recorded as storing here (none for a folder from
        before they were recorded)."""
        try:
            text = (self.root / self.OWNERS).read_text(encoding="utf-8")
        except FileNotFoundError:
            return set()
        return {line.strip() for line in text.splitlines() if line.strip()}

    def add_owner(self, database: str) -> None:
        """Record that crawls into ``database`` store here (once)."""
        if database in self.owners():
            return
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / self.OWNERS).open("a", encoding="utf-8") as fh:
            fh.write(database + "\n")

    @staticmethod
    def root_of(path: str | os.PathLike[str]) -> Path:
        """The folder a stored file lies in (the inverse of :meth:`path_for`)."""
        return Path(path).parent.parent

    def path_for(self, sha256: str, ext: str) -> Path:
        if not _SHA.match(sha256) or ext not in ("webp", "png"):
            raise ValueError(f"not a screenshot name: {sha256!r}.{ext}")
        return self.root / sha256[:2] / f"{sha256}.{ext}"

    def put(self, data: bytes, ext: str, width: int, height: int) -> StoredScreenshot:
        """Store ``data`` once (atomically: a crash never leaves half a file).

        A file already there is touched: its mtime says when a page last used
        it, so a sweep with ``min_age`` spares a picture that a page not yet
        committed to the database refers to."""
        sha = hashlib.sha256(data).hexdigest()
        path = self.path_for(sha, ext)
        try:
            os.utime(path)
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        return StoredScreenshot(sha256=sha, path=str(path), width=width, height=height)

    def save(
        self, capture: Capture | bytes, params: CaptureParams | None = None
    ) -> StoredScreenshot:
        """Shrink a capture and store it."""
        params = params or CaptureParams()
        raw = capture.image if isinstance(capture, Capture) else capture
        data, width, height = shrink(raw, params)
        return self.put(data, params.format, width, height)

    def find(self, sha256: str) -> Path | None:
        """The stored file of ``sha256``, whatever its format, or None."""
        for ext in ("webp", "png"):
            path = self.path_for(sha256, ext)
            if path.exists():
                return path
        return None

    def delete(self, sha256: str, min_age: float = 0.0) -> bool:
        """Remove a screenshot (when its last page goes); True if a file went.

        With ``min_age`` (seconds), a file saved or reused more recently is
        kept: a page still on its way to the database may refer to it."""
        path = self.find(sha256)
        if path is None:
            return False
        if min_age > 0:
            with contextlib.suppress(FileNotFoundError):
                if time.time() - path.stat().st_mtime < min_age:
                    return False
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            path.parent.rmdir()  # only when empty
        return True

    def prune(self, keep: Collection[str], min_age: float = 0.0) -> int:
        """Delete every stored screenshot whose hash is not in ``keep`` (the
        hashes the database refers to) and that is at least ``min_age``
        seconds old; returns how many went. While a crawl writes into the
        same directory, give ``min_age`` longer than a store batch takes."""
        removed = 0
        if not self.root.is_dir():
            return 0
        for path in self.root.glob("??/*.*"):
            sha = path.stem
            if _SHA.match(sha) and path.suffix in (".webp", ".png") and sha not in keep:
                removed += self.delete(sha, min_age)
        return removed
