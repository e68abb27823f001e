"""What a report shows, as plain arrays: judged rows, the worst disagreements, excerpts."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ragjudge.data._gold import GoldRecord
from ragjudge.data._labels import gold_label
from ragjudge.evaluation._predictions import RowPrediction
from ragjudge.programs._results import JudgeResult
from ragjudge.stats._threshold import UNSCORED, unit_score

__all__ = [
    "Disagreement",
    "Variant",
    "context_excerpt",
    "variant_from_predictions",
    "worst_disagreements",
]


@dataclass(frozen=True)
class Variant:
    """One judge's decisions on the labeled rows it judged without an error.

    A row the judge left unscored counts as agreement counts it (`stats.UNSCORED`): it fails
    and its `prob` is `UNSCORED`, below every score, so it ranks lowest on the ROC curve; the
    score plots (histogram, reliability) show the scored rows only.

    Attributes:
        name: What the judge is called in the report (`"compiled"`, `"uncompiled"`, ...).
        gold: Gold labels, 1 = faithful (for another metric: its label, 1 = passes).
        prob: Scores divided by the judge's scale, in [0, 1]; `UNSCORED` for unscored rows.
        passed: The judge's pass decisions.
        sources: The source of each row.
        ids: The id of each row.
        threshold: The pass threshold on `prob`, when known.
    """

    name: str
    gold: np.ndarray
    prob: np.ndarray
    passed: np.ndarray
    sources: list[str]
    ids: list[str]
    threshold: float | None = None

    @property
    def n(self) -> int:
        """Rows in the variant."""
        return len(self.gold)

    @property
    def scored(self) -> np.ndarray:
        """Which rows have a score (the others are unscored)."""
        return np.asarray(self.prob != UNSCORED, dtype=bool)

    @classmethod
    def from_results(
        cls,
        name: str,
        rows: Sequence[GoldRecord],
        results: Sequence[JudgeResult],
        *,
        metric: str = "faithfulness",
        scale: float = 1.0,
        threshold: float | None = None,
    ) -> Variant:
        """The rows labeled for `metric` (`gold_label`) that the judge judged without an
        error; unscored rows fail and rank lowest."""
        kept = [
            (label, row, res)
            for row, res in zip(rows, results, strict=True)
            if (label := gold_label(row, metric)) is not None and res.error is None
        ]
        return cls(
            name=name,
            gold=np.array([label for label, _, _ in kept], dtype=int),
            prob=_probs([res.score for _, _, res in kept], scale),
            passed=np.array(
                [bool(res.passed) and not math.isnan(res.score) for _, _, res in kept], dtype=bool
            ),
            sources=[row.source for _, row, _ in kept],
            ids=[row.id for _, row, _ in kept],
            threshold=threshold,
        )


def _probs(scores: Sequence[float | None], scale: float) -> np.ndarray:
    """Unit scores (`stats.unit_score`): `UNSCORED` where none."""
    return np.array([unit_score(s, scale=scale) for s in scores], dtype=float)


def variant_from_predictions(
    name: str,
    predictions: Sequence[RowPrediction],
    *,
    baseline: bool = False,
    scale: float = 1.0,
    threshold: float | None = None,
) -> Variant:
    """A variant from the validation predictions a compile recorded.

    Args:
        name: The variant's name.
        predictions: `CompileReport.predictions`.
        baseline: Read the uncompiled judge's columns instead of the compiled judge's.
        scale: The judge's score scale.
        threshold: The pass threshold on the unscaled score.

    Returns:
        The variant: unscored rows fail and rank lowest, as the compile counted them; empty
        when no row has a score (a file that recorded no baseline columns).
    """
    scores = [p.baseline_score if baseline else p.score for p in predictions]
    passes = [p.baseline_passed if baseline else p.passed for p in predictions]
    if all(s is None for s in scores):
        predictions, scores, passes = [], [], []
    return Variant(
        name=name,
        gold=np.array([p.gold for p in predictions], dtype=int),
        prob=_probs(scores, scale),
        passed=np.array(
            [
                bool(ok) and s is not None and not math.isnan(s)
                for s, ok in zip(scores, passes, strict=True)
            ],
            dtype=bool,
        ),
        sources=[p.source for p in predictions],
        ids=[p.id for p in predictions],
        threshold=threshold,
    )


@dataclass(frozen=True)
class Disagreement:
    """A row where the judge and the label disagree, with what a reviewer needs to decide
    (`prob`: the score over the scale, NaN for an unscored row, which fails)."""

    row: GoldRecord
    result: JudgeResult
    prob: float
    severity: float
    label: int = 0
    metric: str = "faithfulness"
    other: JudgeResult | None = None
    other_name: str = ""
    excerpt: str = ""
    extra: dict[str, str] = field(default_factory=dict)


def worst_disagreements(
    rows: Sequence[GoldRecord],
    results: Sequence[JudgeResult],
    *,
    metric: str = "faithfulness",
    scale: float = 1.0,
    limit: int = 20,
    others: Sequence[JudgeResult] | None = None,
    other_name: str = "",
) -> list[Disagreement]:
    """The rows where the judge's decision contradicts the label, worst first (an unscored
    row fails, as agreement counts it; rows with an error are left out, as agreement leaves
    them out).

    A disagreement is as bad as the judge's score is far from the label (a faithful answer
    scored 0 is worse than one scored 0.4). Among equally bad rows, sources take turns, so the
    list covers every source rather than the largest one.

    Args:
        rows: The gold rows.
        results: The judge's results, in row order.
        metric: The judge's metric: whose label a row is judged against (`gold_label`).
        scale: The judge's score scale.
        limit: How many to return.
        others: Another judge's results on the same rows (shown alongside), e.g. the uncompiled.
        other_name: The other judge's name.

    Returns:
        At most `limit` disagreements.
    """
    found: list[Disagreement] = []
    for index, (row, res) in enumerate(zip(rows, results, strict=True)):
        label = gold_label(row, metric)
        if label is None or res.error is not None:
            continue
        unscored = math.isnan(res.score)
        if (bool(res.passed) and not unscored) == bool(label):
            continue
        prob = math.nan if unscored else res.unit(scale=scale)
        severity = float(label) if unscored else abs(float(label) - prob)
        found.append(
            Disagreement(
                row=row,
                result=res,
                prob=prob,
                severity=severity,
                label=label,
                metric=metric,
                other=None if others is None else others[index],
                other_name=other_name,
            )
        )
    found.sort(key=lambda d: -d.severity)
    turn: dict[str, int] = {}
    keyed = []
    for position, item in enumerate(found):
        rank = turn.get(item.row.source, 0)
        turn[item.row.source] = rank + 1
        keyed.append((-round(item.severity, 1), rank, position, item))
    keyed.sort(key=lambda k: k[:3])
    return [
        replace(d, excerpt=context_excerpt(d.row.contexts, focus=_focus_text(d)))
        for *_, d in keyed[:limit]
    ]


def _focus_text(d: Disagreement) -> str:
    """The text a reviewer checks against the context: the statements not judged supported
    (the other judge's when this one judged the answer whole), else the answer."""
    statements = d.result.statements or (d.other.statements if d.other is not None else [])
    failed = [s.text for s in statements if s.verdict != "yes"]
    return " ".join(failed) if failed else d.row.answer


_WORD = re.compile(r"[^\W_]{3,}", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_STOP = frozenset(
    "the and for are was were with that this from have has had not but his her its they them "
    "their there which who what when where will would can could been being into than then also "
    "about after before more most some such only other over under very just".split()
)


def context_excerpt(contexts: Sequence[str], *, focus: str, limit: int = 700) -> str:
    """The stretch of the contexts (at most `limit` characters) that best covers `focus`.

    Sentences are scored by how many distinct content words of `focus` they contain; the
    excerpt is the run of whole sentences with the best total, marked with "…" where cut.

    Args:
        contexts: The retrieved passages.
        focus: The text to find support for (the failed statements, or the answer).
        limit: The longest excerpt.

    Returns:
        The excerpt ("" for no context).

    Example:
        >>> context_excerpt(["Paris is in France. Ulm is in Germany."], focus="Ulm", limit=20)
        '… Ulm is in Germany.'
    """
    text = "\n".join(c.strip() for c in contexts if c and c.strip())
    if len(text) <= limit:
        return text
    wanted = {w.lower() for w in _WORD.findall(focus)} - _STOP
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        if match.start() > start:
            spans.append((start, match.start()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    weights = [len(wanted & {w.lower() for w in _WORD.findall(text[a:b])}) for a, b in spans]
    best = (-1, 0, 0)
    for i, (a, _) in enumerate(spans):
        total, j = 0, i
        while j < len(spans) and spans[j][1] - a <= limit:
            total += weights[j]
            j += 1
        end = spans[j - 1][1] if j > i else min(len(text), a + limit)
        if total > best[0]:
            best = (total, a, end)
    _, a, b = best
    excerpt = text[a:b]
    if b - a > limit:
        excerpt = excerpt[: limit - 1]
        b = a + len(excerpt)
    return ("… " if a > 0 else "") + excerpt.strip() + (" …" if b < len(text) else "")
