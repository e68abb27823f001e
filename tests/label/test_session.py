"""The labeling session without a browser: answers in the gold file, resume, holds, the
strategies, the sidecar scores and the running figures."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from label_helpers import gold_lines

from ragjudge.data._gold import load_gold
from ragjudge.exceptions import GoldDataError
from ragjudge.label import open_session
from ragjudge.label._scores import scores_path


def test_answers_go_to_the_gold_file_and_a_new_session_resumes(
    traffic: Path, tmp_path: Path
) -> None:
    gold = tmp_path / "gold.jsonl"
    session = open_session(rows=traffic, gold=gold, seed=3)
    first = session.next_row("ana")
    assert first is not None and session.next_row("ana") == first  # held until answered
    session.answer(reviewer="ana", row_id=first, label=1, note="clear")
    second = session.next_row("ana")
    assert second not in (None, first)
    session.answer(reviewer="ana", row_id=second, label=None)
    lines = gold_lines(gold)
    assert [(x["id"], x["faithful"]) for x in lines] == [(first, 1), (second, None)]
    assert lines[0]["meta"]["review"]["note"] == "clear"
    assert lines[0]["question"] == session.rows[session.index[first]].question
    assert [r.id for r in load_gold(gold)] == [first]

    again = open_session(rows=traffic, gold=gold, seed=3)
    assert again.history["ana"] == [first, second]
    third = again.next_row("ana")
    assert third not in (first, second)
    assert again.figures("ana")["labeled"] == 1


def test_two_reviewers_hold_different_rows(traffic: Path, tmp_path: Path) -> None:
    session = open_session(rows=traffic, gold=tmp_path / "gold.jsonl", strategy="uncertain")
    held = {session.next_row(name) for name in ("ana", "ben", "cy")}
    assert len(held) == 3


def test_uncertain_starts_nearest_the_threshold(traffic: Path, tmp_path: Path) -> None:
    session = open_session(rows=traffic, gold=tmp_path / "gold.jsonl", strategy="uncertain")
    distance = np.abs(session.scores.scores - 0.5)
    picked = []
    for _ in range(5):
        row_id = session.next_row("ana")
        assert row_id is not None
        picked.append(distance[session.index[row_id]])
        session.answer(reviewer="ana", row_id=row_id, label=1)
    assert picked == sorted(picked)
    assert max(picked) <= np.sort(distance)[4] + 1e-12


def test_random_follows_the_sources_mix(traffic: Path, tmp_path: Path) -> None:
    session = open_session(rows=traffic, gold=tmp_path / "gold.jsonl", strategy="random")
    share = Counter(r.source for r in session.rows)
    taken: Counter[str] = Counter()
    for _ in range(10):
        row_id = session.next_row("ana")
        assert row_id is not None
        taken[session.rows[session.index[row_id]].source] += 1
        session.answer(reviewer="ana", row_id=row_id, label=0)
    for source, n in share.items():
        assert abs(taken[source] - 10 * n / 30) <= 1


def test_estimate_records_each_draw_and_reuses_labels(traffic: Path, tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    session = open_session(rows=traffic, gold=gold, strategy="estimate", target_width=0.3)
    for _ in range(40):
        row_id = session.next_row("ana")
        if row_id is None:
            break
        label = int(session.scores.passed[session.index[row_id]])
        session.answer(reviewer="ana", row_id=row_id, label=label)
    lines = gold_lines(gold)
    floor = 0.2 / 30  # the uniform share of each draw
    for line in lines:
        sampling = line["meta"]["sampling"]
        assert sampling["rows"] == 30
        for prob in sampling["pi"]:
            assert floor - 1e-12 <= prob <= 1
    last = {x["id"]: x for x in lines}
    draws = sum(len(x["meta"]["sampling"]["pi"]) for x in last.values())
    assert draws > len(last)  # with 30 rows, some rows were drawn again: counted, not asked
    figures = session.figures("ana")["estimate"]
    assert figures["how"].startswith("active inference")
    assert figures["ci"][0] <= figures["value"] <= figures["ci"][1]


def test_scores_are_kept_beside_the_gold_file(traffic: Path, tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    open_session(rows=traffic, gold=gold)
    cache = scores_path(gold)
    assert cache.name == "gold.jsonl.scores.json"
    stamp = cache.stat().st_mtime_ns
    open_session(rows=traffic, gold=gold)
    assert cache.stat().st_mtime_ns == stamp  # read, not judged again
    data = json.loads(cache.read_text())
    assert len(data["ids"]) == 30
    with traffic.open("a") as handle:
        handle.write(json.dumps({"id": "new", "contexts": ["a b"], "answer": "a b"}) + "\n")
    session = open_session(rows=traffic, gold=gold)
    assert len(session.scores.ids) == 31


def test_a_rows_file_changed_under_the_session(traffic: Path, tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    session = open_session(rows=traffic, gold=gold)
    row_id = session.next_row("ana")
    assert row_id is not None
    session.answer(reviewer="ana", row_id=row_id, label=1)
    traffic.write_text(traffic.read_text().replace('"answer": "', '"answer": "Not ', 1))
    os.utime(traffic, ns=(1, 1))
    with pytest.raises(GoldDataError, match="changed while the session was running"):
        session.answer(reviewer="ana", row_id=row_id, label=0)
    assert [x["faithful"] for x in gold_lines(gold)] == [1]


def test_inter_rater_figures(traffic: Path, tmp_path: Path) -> None:
    session = open_session(rows=traffic, gold=tmp_path / "gold.jsonl", overlap=1.0)
    for i in range(6):
        a = session.next_row("ana")
        assert a is not None
        session.answer(reviewer="ana", row_id=a, label=i % 2)
        b = session.next_row("ben")
        assert b == a  # overlap 1: every row of ben's is one ana labeled
        session.answer(reviewer="ben", row_id=b, label=1 if i == 0 else i % 2)
    raters = session.figures("ana")["raters"]
    assert raters["shared"] == 6
    assert [d["id"] for d in raters["disagreements"]] == [session.history["ana"][0]]
    assert raters["kappa"] == pytest.approx(2 / 3, abs=1e-3)


def test_statement_marks_name_the_passage_words_matched() -> None:
    from ragjudge.data._gold import GoldRecord
    from ragjudge.label._marks import statement_marks
    from ragjudge.programs._results import JudgeResult, StatementResult

    row = GoldRecord(
        id="x",
        contexts=["Intro.", "Paris is the capital of France."],
        answer="Paris is in France. It has 9 moons.",
    )
    result = JudgeResult(
        id="x",
        score=0.5,
        passed=False,
        statements=[
            StatementResult(text="Paris is in France.", verdict="yes"),
            StatementResult(text="Paris has 9 moons.", verdict="no"),
            StatementResult(text="It is old.", verdict="unsure"),
        ],
    )
    marks = statement_marks(row, result)
    assert [m["verdict"] for m in marks] == ["supported", "unsupported", "unsure"]
    assert marks[0]["words"] == ["paris", "france"]
    passage = row.contexts[1]
    assert [passage[a:b] for _, a, b in marks[0]["spans"]] == ["Paris", "France"]
    assert all(p == 1 for p, _, _ in marks[0]["spans"])
    assert marks[1]["words"] == ["paris"] and marks[2]["words"] == []


def test_a_gold_file_cut_short_under_the_session(traffic: Path, tmp_path: Path) -> None:
    from ragjudge.label._session import SessionStoppedError

    gold = tmp_path / "gold.jsonl"
    session = open_session(rows=traffic, gold=gold)
    for _ in range(2):
        row_id = session.next_row("ana")
        assert row_id is not None
        session.answer(reviewer="ana", row_id=row_id, label=1)
    gold.write_text(gold.read_text().splitlines()[0] + "\n")
    with pytest.raises(SessionStoppedError, match="gold file changed while the session"):
        session.next_row("ana")


@pytest.mark.parametrize("strategy", ["uncertain", "random"])
def test_a_row_answered_past_a_held_one_is_not_handed_out_again(
    traffic: Path, tmp_path: Path, strategy: str
) -> None:
    session = open_session(rows=traffic, gold=tmp_path / "gold.jsonl", strategy=strategy)
    held = session.next_row("ana")  # the first row of the order: held, not answered
    seen = []
    for _ in range(5):
        row_id = session.next_row("ben")
        assert row_id is not None
        seen.append(row_id)
        session.answer(reviewer="ben", row_id=row_id, label=1)
    assert held not in seen and len(set(seen)) == 5


def test_a_drawn_row_shown_and_never_answered_counts_as_a_skip(
    traffic: Path, tmp_path: Path
) -> None:
    from ragjudge.estimation._drawn import skipped_in_file

    gold = tmp_path / "gold.jsonl"
    session = open_session(rows=traffic, gold=gold, strategy="estimate", seed=2, hold_seconds=0.5)
    shown = session.next_row("ana")
    assert shown is not None and gold_lines(gold) == []
    time.sleep(0.6)  # ana left without answering: her hold lapses
    session.next_row("ben")
    last = {x["id"]: x for x in gold_lines(gold)}[shown]
    assert (last["faithful"], last["meta"]["reviewer"]) == (None, "ana")
    assert last["meta"]["review"]["unanswered"] is True
    drawn = last["meta"]["sampling"]["pi"]
    assert drawn
    # counted as skips are, on the page and by `estimate` (which reads the gold file)
    figures = session.figures("ben")
    assert figures["skips"] == 1 and figures["skipped"]["rows"] == 1
    assert skipped_in_file(gold) == (1, len(drawn))
    # an answer given after all replaces it, with its draws
    session.answer(reviewer="ana", row_id=shown, label=1)
    last = gold_lines(gold)[-1]
    assert (last["id"], last["faithful"], last["meta"]["sampling"]["pi"]) == (shown, 1, drawn)
    assert session.figures("ben")["skips"] == 0


def test_a_row_shown_and_never_answered_is_shown_again_without_draws(
    traffic: Path, tmp_path: Path
) -> None:
    gold = tmp_path / "gold.jsonl"
    session = open_session(rows=traffic, gold=gold, strategy="uncertain", hold_seconds=0.5)
    shown = session.next_row("ana")
    time.sleep(0.6)
    assert session.next_row("ben") == shown  # not drawn: no draw to drop, no skip written
    assert gold_lines(gold) == []
