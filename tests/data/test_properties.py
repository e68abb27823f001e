"""Property-based tests (hypothesis) over the loaders and the scoring rules."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import balanced_accuracy_score, cohen_kappa_score, roc_auc_score

from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.exceptions import GoldDataError
from ragjudge.programs._results import StatementResult
from ragjudge.programs.faithfulness import score_statements
from ragjudge.stats._agreement import agreement, auroc, balanced_accuracy, cohen_kappa

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

text = st.text(st.characters(blacklist_categories=["Cs"]), max_size=40)
label = st.one_of(st.none(), st.sampled_from([0, 1, True, False, "0", "1", "yes", "no", ""]))
record = st.fixed_dictionaries(
    {"answer": text},
    optional={
        "question": text,
        "contexts": st.one_of(text, st.lists(text, max_size=4)),
        "faithful": label,
        "source": text,
        "meta": st.dictionaries(st.sampled_from(["group_id", "x"]), text, max_size=2),
    },
)


def _file(lines: list[bytes]) -> Path:
    handle = tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False)
    with handle:
        handle.write(b"\n".join(lines) + b"\n")
    return Path(handle.name)


@SETTINGS
@given(records=st.lists(record, min_size=1, max_size=8))
def test_valid_rows_load_in_order_with_unique_ids(records: list[dict[str, Any]]) -> None:
    lines = [json.dumps({"id": f"r{i}", **r}).encode() for i, r in enumerate(records)]
    path = _file(lines)
    try:
        rows = load_gold(path)
    finally:
        path.unlink()
    assert [r.id for r in rows] == [f"r{i}" for i in range(len(records))]
    for row, raw in zip(rows, records, strict=True):
        assert row.answer == raw["answer"]
        contexts = raw.get("contexts", [])
        assert row.contexts == ([contexts] if isinstance(contexts, str) else contexts)
        assert row.faithful in (None, 0, 1)
        assert GoldRecord.model_validate_json(row.model_dump_json()) == row  # round-trips


@SETTINGS
@given(garbage=st.lists(st.binary(max_size=60), min_size=1, max_size=5))
def test_arbitrary_bytes_load_or_fail_with_gold_data_error(garbage: list[bytes]) -> None:
    path = _file([g.replace(b"\n", b" ") for g in garbage])
    try:
        rows = load_gold(path)
        assert all(isinstance(r, GoldRecord) for r in rows)
    except GoldDataError as exc:
        assert str(path) in str(exc)
        assert "\n" not in str(exc)
    finally:
        path.unlink()


@SETTINGS
@given(
    good=st.lists(record, min_size=1, max_size=5),
    bad=st.sampled_from(
        [
            {"answer": 5},
            {"answer": "x", "contexts": 3},
            {"answer": "x", "faithful": 0.5},
            {"question": "no answer"},
            {"answer": "x", "contexts": [None]},
        ]
    ),
    at=st.integers(0, 5),
)
def test_a_bad_row_is_reported_with_its_row_number(
    good: list[dict[str, Any]], bad: dict[str, Any], at: int
) -> None:
    at = min(at, len(good))
    rows = [*good[:at], bad, *good[at:]]
    path = _file([json.dumps({"id": f"r{i}", **r}).encode() for i, r in enumerate(rows)])
    try:
        load_gold(path)
        raise AssertionError("the bad row was accepted")
    except GoldDataError as exc:
        assert exc.row == at + 1 and exc.file == str(path)
    finally:
        path.unlink()


verdict = st.sampled_from(["yes", "no", "unsure"])
confidence = st.one_of(st.none(), st.floats(0, 1))
statements = st.lists(
    st.builds(StatementResult, text=text, verdict=verdict, confidence=confidence), max_size=12
)
policies = st.fixed_dictionaries(
    {
        "unsure": st.sampled_from(["unsupported", "supported", "exclude"]),
        "empty": st.sampled_from(["nan", "zero", "one"]),
        "aggregation": st.sampled_from(["fraction", "mean", "min"]),
    }
)


@SETTINGS
@given(items=statements, policy=policies)
def test_scores_are_in_unit_interval_or_nan_only_when_allowed(
    items: list[StatementResult], policy: dict[str, str]
) -> None:
    score = score_statements(items, **policy)
    if math.isnan(score):
        assert policy["empty"] == "nan"
        kept = [s for s in items if not (policy["unsure"] == "exclude" and s.verdict == "unsure")]
        assert not kept
    else:
        assert 0.0 <= score <= 1.0


@SETTINGS
@given(items=statements, policy=policies, index=st.integers(0, 11))
def test_turning_a_verdict_to_yes_never_lowers_the_fraction(
    items: list[StatementResult], policy: dict[str, str], index: int
) -> None:
    assume(items)
    index %= len(items)
    before = score_statements(items, **{**policy, "aggregation": "fraction"})
    better = [*items]
    better[index] = items[index].model_copy(update={"verdict": "yes"})
    after = score_statements(better, **{**policy, "aggregation": "fraction"})
    if not math.isnan(before):
        assert after >= before - 1e-12


@SETTINGS
@given(items=statements, policy=policies)
def test_score_ignores_statement_order_and_min_is_at_most_mean(
    items: list[StatementResult], policy: dict[str, str]
) -> None:
    score = score_statements(items, **policy)
    again = score_statements(list(reversed(items)), **policy)
    assert (math.isnan(score) and math.isnan(again)) or math.isclose(score, again)
    low = score_statements(items, **{**policy, "aggregation": "min"})
    mean = score_statements(items, **{**policy, "aggregation": "mean"})
    if not math.isnan(low):
        assert low <= mean + 1e-12


pairs = st.lists(st.tuples(st.integers(0, 1), st.booleans(), st.floats(0, 1)), min_size=2)


@SETTINGS
@given(data=pairs)
def test_statistics_match_scikit_learn_and_stay_in_range(
    data: list[tuple[int, bool, float]],
) -> None:
    labels = [d[0] for d in data]
    passed = [d[1] for d in data]
    scores = [d[2] for d in data]
    a = agreement(labels, passed, scores, n_boot=20)
    both = len(set(labels)) == 2
    ba = balanced_accuracy(labels, passed)
    if both:
        assert math.isclose(ba, balanced_accuracy_score(labels, passed), abs_tol=1e-9)
        assert math.isclose(auroc(labels, scores), roc_auc_score(labels, scores), abs_tol=1e-9)
        assert a.balanced_accuracy is not None and 0 <= a.balanced_accuracy <= 1
        assert a.auroc is not None and 0 <= a.auroc <= 1
    kappa = cohen_kappa(labels, passed)
    if not math.isnan(kappa):
        expected = cohen_kappa_score(labels, passed)
        assert math.isnan(expected) or math.isclose(kappa, expected, abs_tol=1e-9)
        assert -1 - 1e-9 <= kappa <= 1 + 1e-9
    for low, high in a.ci.values():
        if low is not None and high is not None:
            assert low <= high


@SETTINGS
@given(data=pairs, seed=st.integers(0, 2**16))
def test_statistics_do_not_depend_on_row_order(
    data: list[tuple[int, bool, float]], seed: int
) -> None:
    order = np.random.default_rng(seed).permutation(len(data))
    shuffled = [data[i] for i in order]
    a = agreement(*zip(*data, strict=True), n_boot=0)  # type: ignore[arg-type]
    b = agreement(*zip(*shuffled, strict=True), n_boot=0)  # type: ignore[arg-type]
    for key in ("balanced_accuracy", "cohen_kappa", "auroc", "f1"):
        x, y = getattr(a, key), getattr(b, key)
        assert (x is None and y is None) or math.isclose(x, y, abs_tol=1e-9)
