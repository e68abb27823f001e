"""Leave-one-source-out accuracy of the offline judge on the six gold sources.

    python benchmarks/bench_offline_loso.py [--cap 0] [--seeds 0 1 2] [--out FILE]
    python benchmarks/bench_offline_loso.py --disable span_coverage slot_conflict   # ablation
    python benchmarks/bench_offline_loso.py --fires    # where the slot and exclusion evidence fires

For each gold source S (its `dev.jsonl`, at most `--cap` rows sampled with seed 0; 0: all) and
split seed (`split_gold`: grouped, stratified, 30% held out, as compile splits):

- **uncompiled**: the packaged recipe (`fit_default_params.fit_defaults`: the hand-set
  statement model, the answer model fitted on 300 rows of each source) refitted on the *other
  five sources only*, so no row of S was seen; reported in statement mode (the default judge:
  an answer passes when at least half its statements are supported) and whole mode (the
  answer confidence at its threshold);
- **fitted**: the offline weights fitted on S's train side as compile's learner fits them
  (`cross_fit_offline` chooses the L2 strength by grouped cross-validation, then
  `fit_offline`, pulled toward zero), whole mode; no policy search, selection or head, so
  this is a floor for what compile reaches, measured in a fraction of its time.

Balanced accuracy and ROC AUC on S's held-out rows; per source, macro and pooled over the six
sources' held-out rows, means over the seeds. `--disable NAME ...` zeroes statement features
(the ablation "before" for a new feature: the same rows and code with the feature's evidence
removed, so its weight can neither be set by hand nor fitted). Each row's evidence is computed
once and reused by every fit (features do not depend on the weights). `--fires` fits nothing:
it counts, per source, the statements of faithful and of unfaithful answers (all dev rows)
whose best clause gives a slot conflict or an exclusion, and prints each faithful one.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from fit_default_params import fit_defaults  # noqa: E402

import ragjudge  # noqa: E402
from ragjudge.data._gold import GoldRecord  # noqa: E402
from ragjudge.offline import model as offline_model  # noqa: E402
from ragjudge.offline.features import STATEMENT_FEATURES  # noqa: E402
from ragjudge.offline.model import (  # noqa: E402
    OfflineModel,
    OfflineParams,
    cross_fit_offline,
    fit_offline,
)
from ragjudge.optimize import split_gold  # noqa: E402
from ragjudge.stats._agreement import auroc, balanced_accuracy  # noqa: E402

_CACHE: dict[tuple[str, str], Any] = {}
_DISABLED: list[int] = []
_original_prepare = offline_model._prepare


def _key(row: Any) -> tuple[str, str]:
    """A row's identity: its id, answer and contexts (ids may repeat across sources)."""
    get = row.get if isinstance(row, dict) else lambda name: getattr(row, name)
    return str(get("id")), f"{get('answer')}\x00{get('contexts')}"


def _cached_prepare(rows: Sequence[Any], *, paraphrase: bool = False) -> list[Any]:
    """`_prepare` with each row's evidence computed once (disabled features zeroed)."""
    todo = [r for r in rows if _key(r) not in _CACHE]
    for row, data in zip(todo, _original_prepare(todo, paraphrase=paraphrase), strict=True):
        for ev in data.evidence:
            for i in _DISABLED:
                ev.features[i] = 0.0
        _CACHE[_key(row)] = data
    return [_CACHE[_key(r)] for r in rows]


offline_model._prepare = _cached_prepare  # every fit and score below reads the cache


def _statement_mode(params: OfflineParams, data: list[Any]) -> np.ndarray:
    """The default judge's score: the share of supported statements (unsure = unsupported)."""
    model = OfflineModel(params)
    out = []
    for row in data:
        verdicts = [
            offline_model.offline_verdict(
                support=model.statement_support(e),
                rules=offline_model.statement_rules(e),
                support_threshold=params.support_threshold,
                unsure_margin=params.unsure_margin,
            )[0]
            for e in row.evidence
        ]
        out.append(sum(v == "yes" for v in verdicts) / len(verdicts) if verdicts else 1.0)
    return np.array(out)


def _whole(params: OfflineParams, data: list[Any]) -> np.ndarray:
    return np.asarray(offline_model._answer_probabilities(OfflineModel(params), data))


def _fires(dev: dict[str, list[GoldRecord]]) -> int:
    """Print where the slot and exclusion evidence fires: statements of faithful / unfaithful
    answers per source, and each faithful one with its note."""
    for source, rows in dev.items():
        counts = {0: 0, 1: 0}
        for data in _cached_prepare(rows):
            for ev in data.evidence:
                if ev.slot_note:
                    counts[data.label] += 1
                    if data.label:
                        print(f"  {source} faithful: {ev.slot_note}")
        print(f"{source}: faithful {counts[1]}, unfaithful {counts[0]}", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print (and optionally write) the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold-dir", type=Path, default=REPO.parent / "shared" / "gold")
    parser.add_argument("--cap", type=int, default=0, help="rows per source (0: all)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--disable", nargs="*", default=[], help="statement features to zero")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--fires", action="store_true", help="count slot/exclusion evidence")
    args = parser.parse_args(argv)
    for name in args.disable:
        if name not in STATEMENT_FEATURES:
            parser.error(f"--disable: unknown statement feature {name!r}")
        _DISABLED.append(STATEMENT_FEATURES.index(name))
    started = time.perf_counter()
    dev: dict[str, list[GoldRecord]] = {}
    for path in sorted(args.gold_dir.glob("*/dev.jsonl")):
        rows = ragjudge.load_gold(path)
        if args.cap and len(rows) > args.cap:
            rows = random.Random(0).sample(rows, args.cap)
        dev[path.parent.name] = rows
    if args.fires:
        return _fires(dev)
    raw = {s: [r.model_dump(mode="json") for r in rows] for s, rows in dev.items()}
    lines: list[str] = []

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    say(
        f"rows per source: {', '.join(f'{s} {len(r)}' for s, r in dev.items())}; "
        f"seeds {args.seeds}; disabled: {', '.join(args.disable) or 'none'}"
    )
    header = (
        f"{'source':<19}{'seed':>5}{'valid':>6}{'BA stmt':>8}{'BA whole':>9}{'AUC unc':>8}"
        f"{'BA fit':>8}{'AUC fit':>8}{'lambda':>8}"
    )
    say(header)
    per: dict[str, list[tuple[float, ...]]] = {s: [] for s in dev}
    pooled: dict[int, tuple[list[float], list[float], list[int]]] = {}
    loso = {
        s: fit_defaults({k: v for k, v in raw.items() if k != s}) for s in dev
    }  # the recipe without S
    for seed in args.seeds:
        ps_unc, ps_fit, ys = pooled.setdefault(seed, ([], [], []))
        for source, rows in dev.items():
            train, held = split_gold(rows, seed=seed)
            y = np.array([int(bool(r.faithful)) for r in held])
            data = _cached_prepare(held)
            defaults = loso[source]
            stmt = _statement_mode(defaults, data)
            whole = _whole(defaults, data)
            cv = cross_fit_offline(train, groups=[r.group for r in train], seed=seed)
            params = fit_offline(train, seed=seed, regularization=cv.regularization)
            fitted = _whole(params, data)
            figures = (
                balanced_accuracy(y, stmt >= 0.5),
                balanced_accuracy(y, whole >= defaults.answer_threshold),
                auroc(y, whole),
                balanced_accuracy(y, fitted >= params.answer_threshold),
                auroc(y, fitted),
            )
            per[source].append(figures)
            ps_unc.extend(whole.tolist())
            ps_fit.extend(fitted.tolist())
            ys.extend(y.tolist())
            say(
                f"{source:<19}{seed:>5}{len(held):>6}"
                + "".join(f"{v:>8.3f} " if i == 1 else f"{v:>8.3f}" for i, v in enumerate(figures))
                + f"{cv.regularization:>8g}"
            )
    say("")
    say("per source, mean over seeds:")
    say(f"{'source':<19}{'BA stmt':>8}{'BA whole':>9}{'AUC unc':>8}{'BA fit':>8}{'AUC fit':>8}")
    means = {s: np.mean(np.array(v), axis=0) for s, v in per.items()}
    for source, m in means.items():
        say(f"{source:<19}{m[0]:>8.3f}{m[1]:>9.3f}{m[2]:>8.3f}{m[3]:>8.3f}{m[4]:>8.3f}")
    macro = np.mean(np.array(list(means.values())), axis=0)
    pooled_unc = np.mean([auroc(np.array(y), np.array(p)) for p, _, y in pooled.values()])
    pooled_fit = np.mean([auroc(np.array(y), np.array(p)) for _, p, y in pooled.values()])
    say(
        f"{'macro':<19}{macro[0]:>8.3f}{macro[1]:>9.3f}{macro[2]:>8.3f}{macro[3]:>8.3f}"
        f"{macro[4]:>8.3f}"
    )
    say(f"pooled AUROC (mean of seeds): uncompiled {pooled_unc:.3f}, fitted {pooled_fit:.3f}")
    say(f"wall time {time.perf_counter() - started:.0f} s")
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
