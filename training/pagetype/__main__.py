"""``python -m training.pagetype render|train|evaluate|dom``."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.pagetype", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    render = sub.add_parser("render", help="render every labelled page (Chromium)")
    render.add_argument("--concurrency", type=int, default=2)
    render.add_argument(
        "--splits",
        default=None,
        help="comma-separated parts to render (default: all): test,val",
    )
    train = sub.add_parser("train", help="train the CNN (torch, CPU) and export the weights")
    train.add_argument("--epochs", type=int, default=None)
    train.add_argument(
        "--arch",
        default=None,
        help="designs to train, comma-separated names from train.ARCHS "
        "(default: compare them all, then train train.DESIGNS)",
    )
    train.add_argument(
        "--members",
        type=int,
        default=None,
        help="networks of each design from successive seeds, all averaged (default: 5)",
    )
    train.add_argument(
        "--no-export", action="store_true", help="do not overwrite the shipped weights"
    )
    evaluate = sub.add_parser(
        "evaluate",
        help="DOM, screenshot and combined figures on the real test pages "
        "-> benchmarks/results/pagetype-screenshot.md",
    )
    evaluate.add_argument(
        "--fit-stack",
        action="store_true",
        help="score with the combination rule refitted on the validation pages "
        "(copy it into extractors.visual.Stack to ship it)",
    )
    dom = sub.add_parser(
        "dom",
        help="fit the DOM classifier on the train pages (L2 chosen on val) "
        "-> extractors/models/pagetype_dom.json",
    )
    dom.add_argument("--no-export", action="store_true", help="do not overwrite the weights")
    dom.add_argument(
        "--report", action="store_true", help="write benchmarks/results/pagetype-dom.md"
    )
    dom.add_argument(
        "--compare",
        default=None,
        help="a JSON {page key: page type} of another classifier version to show beside",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("jieba").setLevel(logging.WARNING)
    if args.command == "render":
        from .render import render as run_render

        splits = tuple(args.splits.split(",")) if args.splits else None
        run_render(args.concurrency, splits)
    elif args.command == "train":
        from .train import MEMBERS
        from .train import train as run_train

        run_train(
            epochs=args.epochs,
            designs=args.arch.split(",") if args.arch else None,
            export=not args.no_export,
            members=args.members or MEMBERS,
        )
    elif args.command == "dom":
        from .dom import run as run_dom

        run_dom(
            export=not args.no_export,
            write_report=args.report,
            compare=Path(args.compare) if args.compare else None,
        )
    else:
        from .evaluate import evaluate as run_evaluate

        run_evaluate(fit=args.fit_stack)


if __name__ == "__main__":
    main()
