"""A row's reason agrees with its score, threshold and verdict.

Every scored reason leads with its outcome, written by one rule (`outcome_reason`): the final
score as shown beside it, "passes" or "fails", and the threshold it was held to; where the
judge's own verdict differs from the final one, it says so. What follows never contradicts it:
the statement counts are those the score was computed from, and an uncertain statement is said
to count the way it did.
"""

from __future__ import annotations

import math
import re

import pytest
from _conformance_cases import CASES, IDS, Case, judged, lm_for

from ragjudge.data._gold import GoldRecord
from ragjudge.programs import Cascade, Ensemble, Faithfulness
from ragjudge.programs._base import Judge
from ragjudge.programs._results import JudgeResult, WholeOutput, outcome_reason, reason_text

LEAD = re.compile(
    r"^(?P<score>-?\d+\.\d+) (?P<outcome>passes|fails)"
    r"(?: \((?P<why>[^)]*)\))?(?:: |$)"
)
COUNTS = re.compile(r"^(?P<yes>\d+) of (?P<n>\d+) (?:reference )?statements are ")
THRESHOLD = re.compile(r"(?:at least|below) the threshold (?P<t>\d+\.\d+)")

#: Policies under which every judge's reasons are checked: its own, a low and a high threshold,
#: and for statement judges the other ways of counting an uncertain statement.
POLICIES: list[dict[str, object]] = [
    {},
    {"threshold": 0.2},
    {"threshold": 0.75},
    {"unsure": "supported"},
    {"unsure": "exclude", "threshold": 0.6},
    {"aggregation": "mean", "threshold": 0.55},
]


def _scale(judge: Judge) -> float:
    return judge.compile_spec().scale


def _threshold(judge: Judge) -> float:
    return float(judge.policy()["threshold"])


def _own_verdict(result: JudgeResult) -> str | None:
    """The whole-answer verdict of the judge that decided the row, where it gave one."""
    raw = result.raw
    if isinstance(raw, WholeOutput):
        return raw.verdict
    if raw is not None and raw.kind == "cascade":
        decider = raw.lm if result.details.get("routed") else raw.offline
        if decider is not None and isinstance(decider.raw, WholeOutput):
            return decider.raw.verdict
    return None


def check_reason(judge: Judge, result: JudgeResult) -> None:
    """Fail unless the reason of `result` (judged by `judge`) agrees with it."""
    assert result.error is None, result.error
    if result.passed is None or math.isnan(result.score):
        assert not LEAD.match(result.reason), result.reason  # no outcome for no score
        return
    lead = LEAD.match(result.reason)
    assert lead, f"the reason does not lead with its outcome: {result.reason!r}"
    assert lead["outcome"] == ("passes" if result.passed else "fails"), result.reason
    shown = float(lead["score"])
    digits = len(lead["score"].split(".")[1])
    assert abs(shown - result.score) <= 0.5 * 10**-digits + 1e-12, (result.score, result.reason)
    why = lead["why"] or ""
    bound = THRESHOLD.search(why)
    assert bound, f"every outcome is a score against the threshold: {result.reason!r}"
    t = float(bound["t"])  # the shown numbers are on the side of the threshold the verdict says
    assert t == pytest.approx(_threshold(judge) * _scale(judge), abs=10**-digits)
    assert (shown >= t) == result.passed, result.reason
    assert ("at least" in why) == result.passed, result.reason
    verdict = _own_verdict(result)
    if verdict is not None:
        differs = (verdict == "yes") != result.passed
        assert ("the judge's own verdict" in why) == differs, (verdict, result.reason)
    _check_counts(judge, result)


def _check_counts(judge: Judge, result: JudgeResult) -> None:
    """A statement judge's finding counts what its score counted."""
    if isinstance(judge, (Ensemble, Cascade)) or result.mode != "statement":
        return
    text = reason_text(result)
    counts = COUNTS.match(text)
    assert counts, text
    verdicts = [s.verdict for s in result.statements]
    assert int(counts["yes"]) == verdicts.count("yes") and int(counts["n"]) == len(verdicts)
    p = judge.policy()
    unsure = verdicts.count("unsure")
    if unsure:
        said = {
            "exclude": "(left out)",
            "supported": "(counted as supported)",
            "unsupported": "(counted as unsupported)",
        }[str(p["unsure"])]
        if p["aggregation"] not in ("fraction", "net") and p["unsure"] != "exclude":
            said = "(counted by the judge's confidence)"
        assert said in text, text
    if p["aggregation"] in ("fraction", "net"):
        counted = [v for v in verdicts if not (v == "unsure" and p["unsure"] == "exclude")]
        yes = sum(
            1 for v in counted if v == "yes" or (v == "unsure" and p["unsure"] == "supported")
        )
        if p["aggregation"] == "net":  # a contradicted statement counts against a supported one
            yes = max(0, yes - counted.count("no"))
        unit = yes / len(counted) if counted else math.nan
        if not math.isnan(unit) and p.get("calibration") is None:
            assert result.score == pytest.approx(unit * _scale(judge))


def _policies(judge: Judge) -> list[dict[str, object]]:
    names = set(judge.policy_names)
    return [p for p in POLICIES if set(p) <= names]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_rows_reason_agrees_with_its_score_threshold_and_verdict(
    case: Case, rows: list[GoldRecord]
) -> None:
    judge = case.make()
    with lm_for(case):
        results = judged(judge, rows)
    for policy in _policies(judge):
        other = judge.clone(**policy)
        for result in results:
            check_reason(other, judge.rescore(result, **policy))


def test_the_reasons_a_new_user_met_agree_with_their_verdicts() -> None:
    """The three reasons of issue 41, written again by the one rule."""
    # A row that passed at 0.50, one statement uncertain (counted as unsupported).
    judge = Faithfulness()
    row = {
        "contexts": ["Albert Einstein was born in Ulm, Germany, in 1879."],
        "answer": "Einstein was born in Ulm in 1879. He won the Nobel Prize in 1930.",
    }
    result = judge(**row)
    assert result.passed is True and result.score == 0.5
    assert result.reason.startswith("0.50 passes (at least the threshold 0.50): 1 of 2 ")
    check_reason(judge, result)
    # A whole-answer judge whose confidence fails a tuned threshold though its verdict was yes.
    whole = Faithfulness(mode="whole", aggregation="mean", threshold=0.6)
    scored = whole.finish(whole={"verdict": "yes", "confidence": 0.57, "reasoning": "r"})
    assert scored.reason == (
        "0.57 fails (below the threshold 0.60; the judge's own verdict was 'yes'): r"
    )
    check_reason(whole, scored)
    # The offline judge's "supported as a whole, though only 0 of 1 statements were confirmed"
    # under a cascade's threshold: the outcome is the cascade's, not the offline judge's own.
    for threshold in (0.05, 0.5, 0.95):
        cascade = Cascade(route="offline", threshold=threshold)
        for r in judged(cascade, [_row(a) for a in ANSWERS]):
            check_reason(cascade, r)
            assert reason_text(r).startswith("the offline judge decided it")


ANSWERS = [
    "Einstein was born in Ulm.",
    "Einstein was born in Berlin in 1879.",
    "Einstein, born in Ulm, won the Nobel Prize.",
]


def _row(answer: str) -> GoldRecord:
    return GoldRecord(
        id=answer,
        contexts=["Albert Einstein was born in Ulm, Germany, in 1879. He won a Nobel Prize."],
        answer=answer,
    )


def test_the_outcome_never_looks_equal_to_a_threshold_it_differs_from() -> None:
    assert outcome_reason(score=0.4999, passed=False, threshold=0.5, text="x") == (
        "0.4999 fails (below the threshold 0.5000): x"
    )
    assert outcome_reason(score=math.nan, passed=None, threshold=0.5, text="no score") == (
        "no score"
    )
