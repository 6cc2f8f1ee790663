"""The record-matching rules of benchmarks.lists (no datasets needed)."""

from __future__ import annotations

from benchmarks.lists import half_of, match, truth_entries

PAGE = (
    "<html><body><ul>"
    "<li><a href='/1'>On Sale: French Harvest Pot, Medium</a> $29.50</li>"
    "<li><a href='/2'>Gray Cottage Pot and Saucer</a></li>"
    "<li><a href='/3'>Double Piecrust Pot A pot with a crust-like rim</a></li>"
    "<li><a href='/4'>Buy now</a></li><li><a href='/5'>Buy now</a></li>"
    "<li><a href='/6'>Buy now</a></li><li><a href='/7'>$29.50</a></li>"
    "</ul></body></html>"
)
TRUTH = "\n".join(
    [
        "Our pots, chosen for indoor plants.",  # intro: not a link
        "",
        "French Harvest Pot, Medium",  # after a badge in its link
        "$29.50",  # numbers only
        "Gray Cottage Pot and Saucer",
        "Double Piecrust Pot",  # prefix of its card link
        "A pot with a crust-like rim",  # snippet further in the link: no entry
        "Buy now",
        "Buy now",
        "Buy now",  # a label repeated 3 times
    ]
)


def test_entries_are_headline_lines_of_links() -> None:
    entries = [" ".join(e) for e in truth_entries(TRUTH, PAGE)]
    assert entries == [
        "french harvest pot medium",
        "gray cottage pot and saucer",
        "double piecrust pot",
    ]


def test_matching_pairs_records_with_entries() -> None:
    entries = truth_entries(TRUTH, PAGE)
    good = [
        "French Harvest Pot, Medium $29.50",
        "Gray Cottage Pot and Saucer",
        "Double Piecrust Pot",
    ]
    assert match(good, entries) == (3, 3)
    # One record holding the whole list matches two entries at most.
    assert match([" ".join(good)], entries) == (1, 2)
    # Titles and snippets as separate records: the snippets match nothing.
    assert match(["Double Piecrust Pot", "A pot with a crust-like rim"], entries) == (1, 1)
    # A record holding under 80% of an entry's tokens does not match it.
    assert match(["Gray Cottage"], entries) == (0, 0)


def test_halves_split_by_id_parity() -> None:
    assert half_of("0076") == "tune" and half_of("0077") == "unseen"
    assert half_of("gne-list-1") in ("tune", "unseen")
