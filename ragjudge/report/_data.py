"""What a report shows, as plain arrays: judged rows, the worst disagreements, excerpts."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ragjudge.data._gold import GoldRecord
from ragjudge.optimize._report import RowPrediction
from ragjudge.programs._results import JudgeResult

__all__ = [
    "Disagreement",
    "Variant",
    "context_excerpt",
    "variant_from_predictions",
    "worst_disagreements",
]


@dataclass(frozen=True)
class Variant:
    """One judge's decisions on the labeled, scored rows.

    Attributes:
        name: What the judge is called in the report (`"compiled"`, `"uncompiled"`, ...).
        gold: Gold labels, 1 = faithful.
        prob: Scores divided by the judge's scale, in [0, 1].
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

    @classmethod
    def from_results(
        cls,
        name: str,
        rows: Sequence[GoldRecord],
        results: Sequence[JudgeResult],
        *,
        scale: float = 1.0,
        threshold: float | None = None,
    ) -> Variant:
        """The labeled rows a judge scored (errors, NaN scores and unlabeled rows left out)."""
        kept = [
            (row, res)
            for row, res in zip(rows, results, strict=True)
            if row.faithful is not None
            and res.error is None
            and not math.isnan(res.score)
            and res.passed is not None
        ]
        return cls(
            name=name,
            gold=np.array([int(row.faithful or 0) for row, _ in kept], dtype=int),
            prob=np.clip(np.array([res.score / scale for _, res in kept], dtype=float), 0, 1),
            passed=np.array([bool(res.passed) for _, res in kept], dtype=bool),
            sources=[row.source for row, _ in kept],
            ids=[row.id for row, _ in kept],
            threshold=threshold,
        )


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
        The variant (rows without a score left out).
    """
    pairs = []
    for p in predictions:
        score = p.baseline_score if baseline else p.score
        passed = p.baseline_passed if baseline else p.passed
        if score is None or passed is None or math.isnan(score):
            continue
        pairs.append((p, score, passed))
    return Variant(
        name=name,
        gold=np.array([p.gold for p, _, _ in pairs], dtype=int),
        prob=np.clip(np.array([s / scale for _, s, _ in pairs], dtype=float), 0, 1),
        passed=np.array([bool(ok) for _, _, ok in pairs], dtype=bool),
        sources=[p.source for p, _, _ in pairs],
        ids=[p.id for p, _, _ in pairs],
        threshold=threshold,
    )


@dataclass(frozen=True)
class Disagreement:
    """A row where the judge and the label disagree, with what a reviewer needs to decide."""

    row: GoldRecord
    result: JudgeResult
    prob: float
    severity: float
    other: JudgeResult | None = None
    other_name: str = ""
    excerpt: str = ""
    extra: dict[str, str] = field(default_factory=dict)


def worst_disagreements(
    rows: Sequence[GoldRecord],
    results: Sequence[JudgeResult],
    *,
    scale: float = 1.0,
    limit: int = 20,
    others: Sequence[JudgeResult] | None = None,
    other_name: str = "",
) -> list[Disagreement]:
    """The rows where the judge's decision contradicts the label, worst first.

    A disagreement is as bad as the judge's score is far from the label (a faithful answer
    scored 0 is worse than one scored 0.4). Among equally bad rows, sources take turns, so the
    list covers every source rather than the largest one.

    Args:
        rows: The gold rows.
        results: The judge's results, in row order.
        scale: The judge's score scale.
        limit: How many to return.
        others: Another judge's results on the same rows (shown alongside), e.g. the uncompiled.
        other_name: The other judge's name.

    Returns:
        At most `limit` disagreements.
    """
    found: list[Disagreement] = []
    for index, (row, res) in enumerate(zip(rows, results, strict=True)):
        if row.faithful is None or res.error or res.passed is None or math.isnan(res.score):
            continue
        if bool(res.passed) == bool(row.faithful):
            continue
        prob = min(1.0, max(0.0, res.score / scale))
        severity = abs(float(row.faithful) - prob)
        found.append(
            Disagreement(
                row=row,
                result=res,
                prob=prob,
                severity=severity,
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
