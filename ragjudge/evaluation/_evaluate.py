"""Judge a set of rows and measure agreement with their labels."""

from __future__ import annotations

import math
import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Literal

import pydantic

from ragjudge.data._gold import GoldRecord, rows_from
from ragjudge.data._labels import gold_label, label_source
from ragjudge.data._paths import check_not_inputs
from ragjudge.evaluation._runner import run_rows
from ragjudge.lm._resolve import is_offline_lm
from ragjudge.programs._base import Judge
from ragjudge.programs._results import JudgeResult
from ragjudge.programs.cascade import Cascade
from ragjudge.stats._agreement import Agreement, RatingAgreement, agreement, rating_agreement
from ragjudge.stats._summary import ScoreSummary, score_summary
from ragjudge.stats._threshold import UNSCORED

__all__ = [
    "EvaluationReport",
    "agreement_of",
    "evaluate",
    "gold_label",
    "rating_stats",
]


class EvaluationReport(pydantic.BaseModel):
    """Agreement of a judge with the labels of the rows it judged."""

    model_config = pydantic.ConfigDict(ser_json_inf_nan="null")

    metric: str
    mode: str
    lm: str
    rows: int
    #: Every labeled row without an error; unscored rows count as never passing, ranked lowest.
    agreement: Agreement | None
    #: The same over the scored rows only (unscored rows left out); None when none is unscored.
    scored_only: Agreement | None = None
    by_source: dict[str, Agreement] = pydantic.Field(default_factory=dict)
    #: Where the labels come from: "human" (the rows' `faithful` labels), "derived" (rules
    #: of `ragjudge.data._derived`) or "none" (no row carried one); never mixed in one report.
    labels: str = "human"
    #: The pass rate and mean score of every row, labeled or not, with 95% intervals.
    scores: ScoreSummary | None = None
    #: True when the offline judge ran (pure-Python rules, no language model): `lm_calls`,
    #: `tokens` and `lm_stats` are then zero and empty.
    offline: bool = False
    #: Krippendorff's alpha / Spearman: "judge_vs_gold", "judge_vs_gold_score",
    #: "between_repeats" (see `rating_stats`).
    ratings: dict[str, RatingAgreement] = pydantic.Field(default_factory=dict)
    lm_calls: int
    #: The rows a cascade (`ragjudge.programs.Cascade`) sent to its LM; None for other judges.
    lm_rows: int | None = None
    tokens: int
    errors: int
    unscored: int
    seconds: float
    #: The most frequent error messages with their counts (at most five).
    error_messages: dict[str, int] = pydantic.Field(default_factory=dict)
    #: The rows' `lm_stats` added up (`ragjudge.lm.ParseStats` counts, prompt and cached
    #: tokens); empty when no predictor was called (the offline judge's re-runs, say).
    lm_stats: dict[str, int] = pydantic.Field(default_factory=dict)

    def reply_rates(self) -> dict[str, float | None]:
        """First-try parse rate, LM calls per predictor call, prefix-cache share, and the
        share of verdicts whose confidence came from logprobs (None where not measured)."""
        s = self.lm_stats
        calls = s.get("predictor_calls", 0)
        verdicts = s.get("logprob_verdicts", 0) + s.get("stated_verdicts", 0)
        prompt = s.get("prompt_tokens", 0)
        return {
            "first_try_parse_rate": s.get("first_try", 0) / calls if calls else None,
            "parsed_from_first_reply_rate": (
                (s.get("first_try", 0) + s.get("salvaged", 0)) / calls if calls else None
            ),
            "lm_calls_per_predictor_call": (
                (calls + s.get("fallback", 0) + s.get("failed", 0)) / calls if calls else None
            ),
            "prefix_cache_share": s.get("cached_tokens", 0) / prompt if prompt else None,
            "logprob_confidence_share": (
                s.get("logprob_verdicts", 0) / verdicts if verdicts else None
            ),
        }

    def __repr__(self) -> str:
        a, sc = self.agreement, self.scores
        parts = [f"metric={self.metric!r}", f"mode={self.mode!r}", f"rows={self.rows}"]
        if sc is not None and sc.pass_rate is not None:
            parts.append(f"pass_rate={sc.pass_rate:.3f}")
        if a is not None and a.balanced_accuracy is not None:
            parts.append(f"balanced_accuracy={a.balanced_accuracy:.3f}")
        if self.errors:
            parts.append(f"errors={self.errors}")
        return f"EvaluationReport({', '.join(parts)})"

    def __str__(self) -> str:
        return self.table()

    def judged_none(self) -> bool:
        """True when every row ended in an error: the run judged nothing."""
        return self.rows > 0 and self.errors == self.rows

    def headline(self) -> str:
        """One line: what ran, on how many rows, in how long, with what LM cost."""
        if self.offline:
            who, cost = ", offline judge, no LM", ""
        elif self.lm.startswith("none"):
            who, cost = ", no LM (deterministic)", ""
        else:
            who, cost = f" with {self.lm}", f", {self.lm_calls} LM calls, {self.tokens} tokens"
        return (
            f"{self.metric} [{self.mode}]{who}: {self.rows} rows in {self.seconds:.1f} s{cost}, "
            f"{self.errors} errors, {self.unscored} unscored"
        )

    def table(self) -> str:
        """The report as text for a person: what ran, the pass rate and mean score, and
        agreement with the labels where rows carry them (every figure rounded, with its 95%
        interval)."""
        lines = [self.headline()]
        if self.lm_rows is not None:
            lines.append(self._cascade_line())
        if self.labels != "none" and self.agreement is not None:
            lines.append(f"labels: {self.labels}")
        if self.lm_stats:
            lines.append(self._replies_line())
        for message, count in self.error_messages.items():
            lines.append(f"error in {count} row{'s' if count != 1 else ''}: {message}")
        sc = self.scores
        if sc is not None and not self.judged_none():
            lines.append(f"verdicts (n={sc.n}, 95% intervals):")
            lines.append(
                f"  {'pass_rate':<18} {_cell(sc.pass_rate, sc.pass_rate_ci):<22}  "
                f"{sc.passed} of {sc.n} passed (Wilson)"
            )
            lines.append(
                f"  {'mean_score':<18} {_cell(sc.mean_score, sc.mean_score_ci):<22}  "
                f"{sc.scored} scored (bootstrap)"
            )
        a = self.agreement
        if a is None:
            why = "no row could be judged" if self.judged_none() else "no labeled rows"
            lines.append(f"{why}: agreement not measured")
            return "\n".join(lines)
        counted = (
            f", {self.unscored} unscored counted as failing, ranked lowest" if self.unscored else ""
        )
        over = f" over {a.groups} groups" if a.groups else ""
        lines.append(f"agreement with labels (n={a.n}{counted}, 95% bootstrap intervals{over}):")
        for key in ("balanced_accuracy", "cohen_kappa", "auroc", "f1"):
            lines.append(f"  {key:<18} {_cell(getattr(a, key), a.ci.get(key))}")
        if self.scored_only is not None:
            s = self.scored_only
            lines.append(
                f"  scored rows only (n={s.n}): balanced_accuracy {_cell(s.balanced_accuracy)}, "
                f"auroc {_cell(s.auroc)}"
            )
        if self.by_source:
            lines.append(f"  {'source':<18} {'n':>5} {'bal.acc':>8} {'auroc':>7}")
            for source, s in self.by_source.items():
                lines.append(
                    f"  {source:<18} {s.n:>5} {_cell(s.balanced_accuracy):>8} {_cell(s.auroc):>7}"
                )
        for name, r in self.ratings.items():
            lines.append(f"  {name} ({r.level}, {r.raters} raters, n={r.n}):")
            alpha = _cell(r.krippendorff_alpha, r.ci.get("krippendorff_alpha"))
            lines.append(f"    krippendorff_alpha {alpha}")
            if r.spearman is not None:
                lines.append(f"    spearman           {_cell(r.spearman, r.ci.get('spearman'))}")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """The headline figures as a Markdown table (figure, value, 95% interval)."""
        rows = [("rows", str(self.rows), ""), ("errors", str(self.errors), "")]
        sc = self.scores
        if sc is not None:
            rows.append(("pass_rate", _cell(sc.pass_rate), _ci(sc.pass_rate_ci)))
            rows.append(("mean_score", _cell(sc.mean_score), _ci(sc.mean_score_ci)))
        a = self.agreement
        if a is not None:
            for key in ("balanced_accuracy", "cohen_kappa", "auroc", "f1"):
                rows.append((key, _cell(getattr(a, key)), _ci(a.ci.get(key))))
        out = ["| figure | value | 95% interval |", "| --- | --- | --- |"]
        out += [f"| {name} | {value} | {ci} |" for name, value, ci in rows]
        return "\n".join(out)

    def _cascade_line(self) -> str:
        rows = max(1, self.rows)
        return (
            f"cascade: {self.lm_rows} of {self.rows} rows went to the LM "
            f"({100 * (self.lm_rows or 0) / rows:.1f}%), {self.lm_calls / rows:.2f} LM calls "
            "per row; the offline judge decided the others"
        )

    def _replies_line(self) -> str:
        s, rates = self.lm_stats, self.reply_rates()

        def pct(value: float | None) -> str:
            return "n/a" if value is None else f"{100 * value:.1f}%"

        calls = rates["lm_calls_per_predictor_call"]
        return (
            f"replies: {s.get('predictor_calls', 0)} predictor calls, first-try parse "
            f"{pct(rates['first_try_parse_rate'])} (+{s.get('salvaged', 0)} repaired, "
            f"{s.get('fallback', 0)} re-asked, {s.get('failed', 0)} unparseable), "
            f"{'n/a' if calls is None else f'{calls:.3f}'} LM calls per predictor call, "
            f"prefix cache {pct(rates['prefix_cache_share'])} of prompt tokens, "
            f"confidence from logprobs for {pct(rates['logprob_confidence_share'])} of verdicts"
        )

    def summary(self) -> dict[str, Any]:
        """The flat JSON summary `evaluate --format json` prints."""
        a = self.agreement
        out: dict[str, Any] = {
            "n": a.n if a else 0,
            "balanced_accuracy": a.balanced_accuracy if a else None,
            "cohen_kappa": a.cohen_kappa if a else None,
            "auroc": a.auroc if a else None,
            "f1": a.f1 if a else None,
            "ci": a.ci if a else {},
            "lm_calls": self.lm_calls,
            "errors": self.errors,
            "error_messages": self.error_messages,
            "tokens": self.tokens,
            "unscored": self.unscored,
            "rows": self.rows,
            "metric": self.metric,
            "mode": self.mode,
            "lm": self.lm,
            "seconds": round(self.seconds, 3),
            "items_per_second": round(self.rows / self.seconds, 2) if self.seconds else None,
        }
        out["labels"] = self.labels
        out["offline"] = self.offline
        if self.lm_rows is not None:
            out["lm_rows"] = self.lm_rows
            out["lm_calls_per_row"] = round(self.lm_calls / self.rows, 4) if self.rows else None
        if self.scores is not None:
            out["pass_rate"] = self.scores.pass_rate
            out["mean_score"] = self.scores.mean_score
            out["ci"] = {
                **out["ci"],
                "pass_rate": self.scores.pass_rate_ci,
                "mean_score": self.scores.mean_score_ci,
            }
        if self.lm_stats:
            out["replies"] = {
                **self.lm_stats,
                **{k: None if v is None else round(v, 4) for k, v in self.reply_rates().items()},
            }
        if self.scored_only is not None:
            s = self.scored_only
            out["scored_only"] = {
                "n": s.n,
                "balanced_accuracy": s.balanced_accuracy,
                "cohen_kappa": s.cohen_kappa,
                "auroc": s.auroc,
                "f1": s.f1,
                "ci": s.ci,
            }
        if self.ratings:
            out["ratings"] = {k: v.model_dump(mode="json") for k, v in self.ratings.items()}
        if self.by_source:
            out["by_source"] = {
                k: {"n": v.n, "balanced_accuracy": v.balanced_accuracy, "auroc": v.auroc}
                for k, v in self.by_source.items()
            }
        return out


def _cell(value: float | None, ci: Sequence[float | None] | None = None) -> str:
    """`0.531 [0.369, 0.687]`: three decimals, the interval where there is one."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if ci and ci[0] is not None and ci[1] is not None:
        return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"
    return f"{value:.3f}"


def _ci(ci: Sequence[float | None] | None) -> str:
    if not ci or ci[0] is None or ci[1] is None:
        return ""
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def rating_stats(
    rows: Sequence[GoldRecord],
    results: Sequence[JudgeResult],
    *,
    metric: str = "faithfulness",
    n_boot: int = 1000,
    seed: int = 0,
) -> dict[str, RatingAgreement]:
    """Krippendorff's alpha and Spearman's rho of results, with 95% bootstrap intervals (over
    the rows' groups against gold, as in `agreement_of`).

    * `judge_vs_gold`: nominal alpha of pass/fail against the binary gold label.
    * `judge_vs_gold_score`: interval alpha and Spearman of the score against a continuous
      gold score (derived recall gold carries one), where rows have it.
    * `between_repeats`: alpha between the members of a repeated / ensembled judge (ordinal
      for rubric ratings, nominal for verdicts, interval for ratios).

    Returns:
        The statistics that apply, by name.
    """
    from ragjudge.data._derived import derived_label

    out: dict[str, RatingAgreement] = {}
    pairs = [  # an unscored row counts as failing, as in `agreement_of`
        (gold_label(row, metric), res, row.group)
        for row, res in zip(rows, results, strict=True)
        if not res.error
    ]
    labeled = [(g, r, k) for g, r, k in pairs if g is not None]
    if len(labeled) > 1:
        matrix = [[float(g) for g, _, _ in labeled], [float(bool(r.passed)) for _, r, _ in labeled]]
        out["judge_vs_gold"] = rating_agreement(
            matrix, level="nominal", n_boot=n_boot, seed=seed, groups=[k for *_, k in labeled]
        )
    scored = [
        (derived_label(row, metric)[1], res.score, row.group)
        for row, res in zip(rows, results, strict=True)
        if not res.error and not math.isnan(res.score)
    ]
    continuous = [(g, s, k) for g, s, k in scored if g is not None]
    if len(continuous) > 2:
        matrix = [[g for g, _, _ in continuous], [s for _, s, _ in continuous]]
        out["judge_vs_gold_score"] = rating_agreement(
            matrix,
            level="interval",
            spearman=True,
            n_boot=n_boot,
            seed=seed,
            groups=[k for *_, k in continuous],
        )
    members = [r.details.get("members") for r in results if not r.error]
    if members and all(isinstance(m, list) and len(m) > 1 for m in members):
        from ragjudge.programs.ensemble import aggregation_kind

        width = max(len(m) for m in members)  # type: ignore[arg-type]
        kind = aggregation_kind(str(results[0].mode))
        level = {"rubric": "ordinal", "verdict": "nominal"}.get(kind, "interval")

        def value(record: dict[str, Any]) -> float:
            result = record.get("result", {})
            if record.get("score") is None:
                return math.nan
            if kind == "rubric":
                return float(result.get("details", {}).get("rubric_score", math.nan))
            if kind == "verdict":
                return float(bool(record.get("passed")))
            return float(record["score"])

        matrix = [
            [value(m[i]) if i < len(m) else math.nan for m in members]  # type: ignore[index,arg-type]
            for i in range(width)
        ]
        out["between_repeats"] = rating_agreement(matrix, level=level, n_boot=n_boot, seed=seed)
    return out


#: The score an unscored row stands at: below every score, so it ranks lowest.
UNSCORED_SCORE = UNSCORED  # `ragjudge.stats.UNSCORED`: an unscored row fails and ranks lowest


def agreement_of(
    rows: Sequence[GoldRecord],
    results: Sequence[JudgeResult],
    *,
    n_boot: int = 1000,
    seed: int = 0,
    metric: str = "faithfulness",
    unscored: Literal["lowest", "excluded"] = "lowest",
    errors: Literal["lowest", "excluded"] = "excluded",
    per_source: bool = True,
    group: Callable[[GoldRecord], str] | None = None,
) -> tuple[Agreement | None, dict[str, Agreement], int, int]:
    """Agreement of results with the rows' labels, overall and per source.

    Rows with an error are left out and counted apart (`Agreement.errors`); with
    `errors="lowest"` they count as unscored rows do instead (`compile` compares judges so,
    since a judge that fails on hard rows must not look better for it). A row the judge
    leaves unscored (NaN: e.g. an empty answer, or every statement unsure) counts as the
    judge treats it, as `compile` counts it while tuning: never passing and ranked below
    every score, so a judge cannot raise its figures by abstaining on hard rows
    (`unscored="excluded"` leaves such rows out instead: the scored-only figure;
    `per_source=False` skips the per-source figures). The labels are
    `gold_label(row, metric)`: human labels for faithfulness, derived labels for the other
    metrics, never both. The intervals resample whole groups (`group(row)`, by default
    `GoldRecord.group`: `meta.group_id`, else the row alone), as compile's split and
    selection keep them whole.

    Returns:
        `(overall, by_source, errors, unscored rows)`.
    """
    n_errors = sum(1 for r in results if r.error)
    n_unscored = sum(1 for r in results if not r.error and math.isnan(r.score))
    labeled = [
        (row, res)
        for row, res in zip(rows, results, strict=True)
        if gold_label(row, metric) is not None
    ]
    usable = [
        (row, res)
        for row, res in labeled
        if (errors == "lowest" or not res.error)
        and (unscored == "lowest" or res.error or not math.isnan(res.score))
    ]
    if not usable:
        return None, {}, n_errors, n_unscored
    key = group or (lambda row: row.group)

    def measure(source: str | None = None) -> Agreement:
        pairs = [p for p in usable if source is None or p[0].source == source]
        return agreement(
            [int(gold_label(row, metric) or 0) for row, _ in pairs],
            [bool(res.passed) and not res.error for _, res in pairs],
            [
                UNSCORED_SCORE if res.error or math.isnan(res.score) else res.score
                for _, res in pairs
            ],
            n_boot=n_boot,
            seed=seed,
            errors=sum(1 for row, res in labeled if res.error and source in (None, row.source)),
            groups=[key(row) for row, _ in pairs],
        )

    overall = measure()
    sources = sorted({row.source for row, _ in usable if row.source})
    by_source = {}
    if len(sources) > 1 and per_source:
        by_source = {s: measure(s) for s in sources}
    return overall, by_source, n_errors, n_unscored


def describe_judge_lm(judge: Judge) -> str:
    """The model string a judge talks to, or `none` for a judge that uses no LM."""
    if not judge.uses_lm:
        return "none (deterministic)"
    return str(getattr(judge.resolved_lm(), "model", ""))


def evaluate(
    judge: Judge,
    rows: Any,
    *,
    concurrency: int = 1,
    on_result: Callable[[int, JudgeResult], None] | None = None,
    n_boot: int = 1000,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    retry_errors: bool = False,
) -> tuple[list[JudgeResult], EvaluationReport]:
    """Judge every row and measure agreement with the labels.

    Args:
        judge: The judge.
        rows: The rows: `GoldRecord`s, dicts (`question`, `contexts`, `answer`, optional
            `faithful`, `id`, ...), a pandas DataFrame with those columns, or a file path;
            validated as a file is (`ragjudge.data.rows_from`).
        concurrency: Items judged at once.
        on_result: Called as each item finishes.
        n_boot: Bootstrap resamples for the intervals.
        out: Stream per-row results to this `.jsonl`/`.parquet` file (see `run_rows`).
        resume: Keep the rows already in `out` and judge only the others.
        retry_errors: With `resume`, judge again the rows whose result in `out` is an error.

    Returns:
        The per-row results (input order) and the report.
    """
    if out is not None and isinstance(rows, (str, os.PathLike)):
        check_not_inputs({"`out`": out}, {"`rows`": rows})  # never results over the rows read
    if not (isinstance(rows, Sequence) and all(isinstance(r, GoldRecord) for r in rows)):
        rows = rows_from(rows, require={"contexts": judge.metric} if judge.needs_contexts else None)
    start = time.perf_counter()
    results = run_rows(
        judge,
        rows,
        concurrency=concurrency,
        out=out,
        resume=resume,
        retry_errors=retry_errors,
        on_result=on_result,
    )
    seconds = time.perf_counter() - start
    return results, evaluation_report(judge, rows, results, seconds=seconds, n_boot=n_boot)


def evaluation_report(
    judge: Judge,
    rows: Sequence[GoldRecord],
    results: Sequence[JudgeResult],
    *,
    seconds: float,
    n_boot: int = 1000,
) -> EvaluationReport:
    """The report of a finished run: agreement with the rows' labels, calls, errors.

    Args:
        judge: The judge that produced `results`.
        rows: The rows, in the order of `results`.
        results: One result per row.
        seconds: The run's wall time.
        n_boot: Bootstrap resamples for the intervals.

    Returns:
        The report `evaluate` returns for the same rows and results.
    """
    overall, by_source, errors, unscored = agreement_of(
        rows, results, n_boot=n_boot, metric=judge.metric
    )
    scored_only = (
        agreement_of(
            rows,
            results,
            n_boot=n_boot,
            metric=judge.metric,
            unscored="excluded",
            per_source=False,
        )[0]
        if unscored
        else None
    )
    lm = describe_judge_lm(judge)
    offline = judge.uses_lm and is_offline_lm(lm)
    labeled = any(gold_label(row, judge.metric) is not None for row in rows)
    return EvaluationReport(
        metric=judge.metric,
        mode=str(getattr(judge, "mode", "")),
        lm=lm,
        rows=len(rows),
        agreement=overall,
        scored_only=scored_only,
        by_source=by_source,
        labels=label_source(judge.metric) if labeled else "none",
        scores=score_summary(
            [bool(r.passed) and not r.error for r in results],
            [math.nan if r.error else r.score for r in results],
            n_boot=n_boot,
        ),
        offline=offline,
        ratings=rating_stats(rows, results, metric=judge.metric, n_boot=n_boot),
        lm_calls=0 if offline else sum(r.lm_calls for r in results),
        lm_rows=_lm_rows(judge, results),
        tokens=0 if offline else sum(r.tokens for r in results),
        errors=errors,
        unscored=unscored,
        seconds=seconds,
        error_messages=dict(Counter(r.error for r in results if r.error).most_common(5)),
        lm_stats={} if offline else _sum_stats(results),
    )


def _lm_rows(judge: Judge, results: Sequence[JudgeResult]) -> int | None:
    """The rows a cascade sent to its LM (its result says so, or it failed after LM calls);
    None for a judge that is not a cascade."""
    if not isinstance(judge, Cascade):
        return None
    return sum(1 for r in results if r.details.get("routed") or (r.error and r.lm_calls))


def _sum_stats(results: Sequence[JudgeResult]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for result in results:
        total.update(result.lm_stats or {})
    return dict(total)
