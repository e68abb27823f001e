"""`ragjudge label`: a local review page that asks people for the rows that teach the most."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ragjudge.cli._common import HelpFormatter, examples, progress
from ragjudge.exceptions import ConfigurationError

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser(
        "label",
        formatter_class=HelpFormatter,
        epilog=examples(
            "ragjudge label --rows traffic.jsonl --gold gold.jsonl",
            "ragjudge label --rows traffic.jsonl --gold gold.jsonl --strategy estimate "
            "--target-width 0.1 --reviewer ana",
        ),
        help="a local review page: label the rows that teach the most into a gold file",
        description="Start a review page on 127.0.0.1 that shows one row at a time (question, "
        "passages, the answer's statements as the judge sees them, its score) and appends "
        "every answer to --gold at once, in the format compile, evaluate and estimate read. "
        "Several reviewers can share one file; starting again resumes. Ctrl-C stops it.",
    )
    parser.add_argument("--rows", required=True, help="the rows to label (.jsonl, .csv, .parquet)")
    parser.add_argument(
        "--gold", required=True, help="the gold file answers are appended to (.jsonl)"
    )
    parser.add_argument(
        "--strategy",
        choices=["random", "uncertain", "estimate"],
        default="random",
        help="which row next: random (stratified by source), uncertain (the judge's least sure "
        "first: for compile), estimate (drawn to narrow the faithful rate's interval, weights "
        "recorded: for estimate)",
    )
    parser.add_argument(
        "--judge", default=None, help="a judge file (.json); default: the offline judge"
    )
    parser.add_argument("--reviewer", default=None, help="your name (else the page asks)")
    parser.add_argument(
        "--target-width",
        type=float,
        default=None,
        help="show how many more labels give the estimate's interval this wide (e.g. 0.1)",
    )
    parser.add_argument(
        "--overlap",
        type=float,
        default=0.0,
        help="share of each reviewer's rows that another reviewer labeled first, for "
        "inter-rater agreement (e.g. 0.1)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=8765,
        help="the port (0: a free one); keep it from one start to the next: the browser keeps "
        "the reviewer's name per address",
    )
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument("--seed", type=int, default=0, help="seeds the strategy's order")
    parser.add_argument(
        "--trust-modified", action="store_true", help="load a hand-edited judge file"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run `ragjudge label`."""
    if not 0 <= args.port <= 65535:
        raise ConfigurationError("--port must be in 0-65535")
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise ConfigurationError(
            "the review page needs the label extra: pip install 'ragjudge[label]'"
        ) from None
    from ragjudge.data._paths import check_not_inputs
    from ragjudge.label._open import open_session
    from ragjudge.label._server import HOST, bind, make_app, serve

    check_not_inputs({"--gold": args.gold}, {"--rows": args.rows, "--judge": args.judge})
    sock = bind(args.port)  # a port in use fails before any judging
    try:
        judge: Any = args.judge
        if args.judge is not None:
            from ragjudge.programs._build import build_judge

            judge = build_judge(judge=args.judge, trust_modified=args.trust_modified)
        with progress(0, "judging the rows once") as bar:
            session = open_session(
                rows=args.rows,
                gold=args.gold,
                judge=judge,
                strategy=args.strategy,
                target_width=args.target_width,
                seed=args.seed,
                overlap=args.overlap,
                on_progress=bar.update,
            )
        port = sock.getsockname()[1]
        url = f"http://{HOST}:{port}/"
        sys.stdout.write(
            f"ragjudge label: {url} ({len(session.rows)} rows, {_tally(session)} so far, "
            f"strategy {args.strategy}; answers go to {args.gold}; Ctrl-C stops)\n"
        )
        sys.stdout.flush()
        if not args.no_browser:
            import webbrowser

            webbrowser.open(url)
        try:
            serve(make_app(session, reviewer=args.reviewer), sock)
        except KeyboardInterrupt:  # Ctrl-C: the way to stop a page; every answer is written
            pass
    finally:
        sock.close()
    sys.stderr.write(f"ragjudge label: stopped; {_tally(session)} in {args.gold}\n")
    return 0


def _tally(session: Any) -> str:
    """The rows labeled and skipped, as the page counts them."""
    labeled, skipped = session.tally()
    return f"{labeled} labeled, {skipped} skipped"
