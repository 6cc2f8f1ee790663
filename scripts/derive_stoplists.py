"""Derive jusText's stoplists (``extractors/stoplists/<lang>.txt``) reproducibly.

Why not copy jusText's lists: the project derives its own, from one public,
multi-source frequency list, so that both languages are built the same way and
the result can be regenerated and checked.

Source: ``wordfreq`` 3.x (Speer et al.; Wikipedia, subtitles, news, books,
web text, Twitter, Reddit), which counts Chinese in jieba words — the very
tokens sitesift's jusText counts with. Frequencies are shares of running
tokens, so the sum over a list is the share of running text it covers.

Method:

1. Rank the language's words by frequency (``wordfreq.top_n_list``).
2. Keep only words, as our tokenizer sees them: English (and the other
   ``SPACED_LANGUAGES``, capped at ``MAX_WORDS``) words are cut into
   ``\\w+`` pieces (``it's`` -> ``it``, ``s``), digits and one-letter pieces
   other than ``a`` and ``i`` are dropped. Chinese keeps words of CJK
   characters whose part of speech in jieba's own dictionary
   (``jieba/dict.txt``) is not a noun, name, place, organisation, idiom or
   time word: those are topic words, not the grammar jusText measures.
3. Take words in rank order until the list covers ``coverage`` of running
   text. The target is the coverage of jusText's own English stoplist under
   the same frequencies (0.655; print it with ``--reference``, needs the
   ``justext`` package): jusText's thresholds STOPWORDS_LOW/HIGH 0.30/0.32
   were set for a list of that coverage, so a list of equal coverage keeps
   them meaningful.

Chinese cannot reach that coverage with grammar words alone (its function
words cover less running text than English ones); the Chinese list stops at
``ZH_COVERAGE`` and the Chinese thresholds are calibrated instead (below and
``extractors.justext.Params.for_language``).

Calibration (``--calibrate``, needs the shared datasets): jusText's
thresholds are not a property of the text but of where they cut the
distribution of stopword densities. On English web text (the ``wcxb-dev``
truth paragraphs of 70+ characters) with the English list, 0.30 and 0.32 cut
at the 9th and 11th percentiles; the Chinese thresholds are the same
percentiles of the ``daniel-zh`` truth paragraphs of 21+ characters, measured
with jieba and the Chinese list. (The coverage ratio alone, 0.266 / 0.441 of
running text in jieba's and wcxb's counts, would give 0.18 / 0.19: those cut
at Chinese news paragraphs' 40th percentile and lose a third of the text.)
``--ratio`` prints the characters-per-word ratio behind the Chinese lengths.

Usage: ``python scripts/derive_stoplists.py [--reference | --ratio | --calibrate] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

# wordfreq coverage of jusText's English stoplist (503 words): measured with
# --reference on wordfreq 3.1.1.
EN_COVERAGE = 0.655
# Coverage where the Chinese list stops (see the module docstring); the share
# of running text covered by Chinese grammar words before the frequency list
# turns to content verbs and adjectives.
ZH_COVERAGE = 0.40
# jieba part-of-speech tags of content words (nouns, names, places,
# organisations, other proper nouns, idioms, fixed phrases, time words,
# noun-verbs, abbreviations) kept out of the Chinese stoplist.
ZH_CONTENT_POS = frozenset(
    {"n", "nr", "nrt", "nrfg", "ns", "nt", "nz", "ng", "i", "l", "t", "tg", "vn", "j", "s"}
)
# Languages written with spaces that wordfreq covers: jusText needs a
# stoplist per language (it ships ~100); these are derived like English, and
# the page's language is the one whose list matches most of its words.
SPACED_LANGUAGES = (
    "ar", "bg", "bn", "ca", "cs", "da", "de", "el", "en", "es", "fa", "fi", "fil", "fr",
    "he", "hi", "hu", "id", "is", "it", "lt", "lv", "mk", "ms", "nb", "nl", "pl", "pt",
    "ro", "ru", "sh", "sk", "sl", "sv", "ta", "tr", "uk", "ur", "vi",
)  # fmt: skip
# Inflecting languages need many forms to reach the coverage: cap the list
# (English needs 604).
MAX_WORDS = 1000
_WORD = re.compile(r"\w+")
_CJK_WORD = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+$")
_HEADER = "# Derived by scripts/derive_stoplists.py from wordfreq {version}: {note}\n"


def spaced(language: str = "en", coverage: float = EN_COVERAGE) -> list[str]:
    """Most frequent ``\\w+`` words of a language written with spaces, covering
    ``coverage`` of running text (at most ``MAX_WORDS``)."""
    import wordfreq

    words: list[str] = []
    seen: set[str] = set()
    covered = 0.0
    for word in wordfreq.iter_wordlist(language):
        if covered >= coverage or len(words) >= MAX_WORDS:
            break
        covered += wordfreq.word_frequency(word, language)
        for piece in _WORD.findall(word.lower()):
            if piece.isdigit() or (len(piece) == 1 and piece not in "ai") or piece in seen:
                continue
            seen.add(piece)
            words.append(piece)
    return words


def jieba_pos() -> dict[str, str]:
    """Part of speech of every word in jieba's dictionary (first entry wins)."""
    import jieba

    pos: dict[str, str] = {}
    path = Path(jieba.__file__).with_name("dict.txt")
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 3:
            pos.setdefault(parts[0], parts[2])
    return pos


def chinese(coverage: float = ZH_COVERAGE) -> list[str]:
    """Most frequent Chinese grammar words covering ``coverage`` of running text."""
    import wordfreq

    pos = jieba_pos()
    words: list[str] = []
    covered = 0.0
    for word in wordfreq.iter_wordlist("zh"):
        if covered >= coverage:
            break
        freq = wordfreq.word_frequency(word, "zh")
        covered += freq
        tag = pos.get(word)
        if _CJK_WORD.match(word) and tag is not None and tag not in ZH_CONTENT_POS:
            words.append(word)
    return words


def reference_coverage() -> float:
    """wordfreq coverage of jusText's own English stoplist."""
    import justext
    import wordfreq

    stoplist = {w.lower() for w in justext.get_stoplist("English")}
    return sum(wordfreq.word_frequency(w, "en") for w in stoplist)


def characters_per_word(language: str, n: int = 50_000) -> float:
    """Frequency-weighted mean length of a word in running text (English
    words count their following space)."""
    import wordfreq

    total = chars = 0.0
    for word in wordfreq.top_n_list(language, n):
        if _WORD.search(word):
            freq = wordfreq.word_frequency(word, language)
            total += freq
            chars += freq * (len(word) + (language != "zh"))
    return chars / total


def _paragraph_densities(set_name: str, language: str, min_chars: int) -> list[float]:
    """Sorted stopword densities of a dataset's truth paragraphs."""
    import json

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks.datasets import datasets_dir
    from extractors.justext import Params, stopword_density
    from extractors.text import tokens

    params = Params.for_language(language)
    stoplist = params.words()

    def tokenize(text: str) -> list[str]:
        return tokens(text, params.tokenizer)

    root = datasets_dir()
    if root is None:
        raise SystemExit("no datasets folder (set SITESIFT_DATASETS)")
    out = []
    with open(root / set_name / "truth.jsonl", encoding="utf-8") as fh:
        for line in fh:
            for para in (json.loads(line).get("text") or "").split("\n"):
                if len(para) >= min_chars:
                    sample = para[: params.max_sample_chars]
                    out.append(stopword_density(sample, stoplist, tokenize))
    return sorted(out)


def calibrate() -> tuple[float, float]:
    """Chinese thresholds at the percentiles where 0.30 / 0.32 cut English."""
    from bisect import bisect_right

    en = _paragraph_densities("wcxb-dev", "en", 70)
    zh = _paragraph_densities("daniel-zh", "zh", 21)
    result = []
    for threshold in (0.30, 0.32):
        share = bisect_right(en, threshold) / len(en)
        value = zh[min(len(zh) - 1, int(share * len(zh)))]
        print(f"en {threshold:.2f} cuts at percentile {100 * share:.1f} -> zh {value:.3f}")
        result.append(value)
    return result[0], result[1]


def write(path: Path, words: list[str], note: str) -> None:
    from importlib.metadata import version as package_version

    version = package_version("wordfreq")
    text = _HEADER.format(version=version, note=note) + "\n".join(words) + "\n"
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = Path(__file__).resolve().parents[1] / "extractors" / "stoplists"
    parser.add_argument("--out", type=Path, default=here, help="output folder")
    parser.add_argument("--reference", action="store_true", help="print the target coverage")
    parser.add_argument("--ratio", action="store_true", help="print chars per word")
    parser.add_argument("--calibrate", action="store_true", help="print zh thresholds")
    args = parser.parse_args(argv)
    if args.ratio:
        en, zh = characters_per_word("en"), characters_per_word("zh")
        print(f"chars per word: en {en:.2f}, zh {zh:.2f}, ratio {en / zh:.2f}")
        return 0
    if args.calibrate:
        calibrate()
        return 0
    if args.reference:
        print(f"jusText English stoplist covers {reference_coverage():.3f} of running text")
        return 0
    sizes = {}
    for lang in SPACED_LANGUAGES:
        words = spaced(lang)
        write(args.out / f"{lang}.txt", words, f"words covering {EN_COVERAGE} of running text")
        sizes[lang] = len(words)
    zh = chinese()
    write(args.out / "zh.txt", zh, f"Chinese grammar words within {ZH_COVERAGE} coverage")
    sizes["zh"] = len(zh)
    print(" ".join(f"{lang}:{n}" for lang, n in sizes.items()), "->", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
