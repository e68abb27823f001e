"""The gold file `ragjudge label` writes, read by `estimate` (weighted where the rows were drawn
by `--strategy estimate`) and `compile`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from label_helpers import EXAMPLES, gold_lines

from ragjudge.cli import main
from ragjudge.data._gold import load_gold
from ragjudge.estimation import estimate
from ragjudge.estimation._drawn import skip_note, skipped_in_file
from ragjudge.exceptions import GoldDataError
from ragjudge.label import open_session
from ragjudge.stats._active import active_mean


@pytest.fixture
def traffic_and_truth(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    truth: dict[str, int] = {}
    out = []
    for line in EXAMPLES.read_text().splitlines()[:80]:
        row = json.loads(line)
        truth[row["id"]] = int(row.pop("faithful"))
        row.pop("hallucinated_spans", None)
        out.append(json.dumps(row))
    path = tmp_path / "traffic.jsonl"
    path.write_text("\n".join(out) + "\n")
    return path, truth


def _label(session: object, truth: dict[str, int], n: int) -> None:
    for _ in range(n):
        row_id = session.next_row("ana")  # type: ignore[attr-defined]
        assert row_id is not None
        session.answer(reviewer="ana", row_id=row_id, label=truth[row_id])  # type: ignore[attr-defined]


def test_estimate_weights_the_drawn_rows(
    traffic_and_truth: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    traffic, truth = traffic_and_truth
    gold = tmp_path / "gold.jsonl"
    session = open_session(rows=traffic, gold=gold, strategy="estimate", seed=1)
    _label(session, truth, 25)
    est = estimate(rows=traffic, gold=gold, target_width=0.3)
    assert any("drawn by `ragjudge label --strategy estimate`" in note for note in est.notes)
    # the same figure computed directly from the gold file and the judge's scores
    last = {x["id"]: x for x in gold_lines(gold)}
    index = {r.id: i for i, r in enumerate(session.rows)}
    f_all = session.predictions
    y, f, q = [], [], []
    for row_id, line in last.items():
        for prob in line["meta"]["sampling"]["pi"]:
            y.append(line["faithful"])
            f.append(f_all[index[row_id]])
            q.append(prob)
    direct = active_mean(labels=y, predicted=f, probabilities=q, predicted_all=f_all)
    assert est.ppi.estimate == pytest.approx(direct.estimate, abs=1e-6)
    assert est.ppi.ci == pytest.approx(direct.ci, abs=1e-6)
    assert est.n_labeled == len(last)
    assert est.target is not None and est.target.ppi is not None


def test_drawn_from_other_rows_is_refused(
    traffic_and_truth: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    traffic, truth = traffic_and_truth
    gold = tmp_path / "gold.jsonl"
    session = open_session(rows=traffic, gold=gold, strategy="estimate", seed=2)
    _label(session, truth, 20)
    fewer = tmp_path / "fewer.jsonl"
    fewer.write_text("\n".join(traffic.read_text().splitlines()[:-1]) + "\n")
    with pytest.raises(GoldDataError, match="drawn from 80 rows"):
        estimate(rows=fewer, gold=gold)


def test_compile_and_estimate_read_the_file(
    traffic_and_truth: tuple[Path, dict[str, int]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    traffic, truth = traffic_and_truth
    gold = tmp_path / "gold.jsonl"
    session = open_session(rows=traffic, gold=gold, strategy="uncertain")
    _label(session, truth, 20)
    first = session.history["ana"][0]
    session.answer(reviewer="ana", row_id=first, label=1 - truth[first])  # a changed answer
    rows = load_gold(gold, require_labels=True)
    assert len(rows) == 20
    assert {r.id: r.faithful for r in rows}[first] == 1 - truth[first]
    code = main(
        ["compile", "--gold", str(gold), "--out", str(tmp_path / "judge.json"), "--trials", "3"]
    )
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "judge.json").exists()
    capsys.readouterr()
    code = main(["estimate", "--rows", str(traffic), "--gold", str(gold), "--format", "json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_labeled"] == 20 and np.isfinite(out["ppi"]["estimate"])


def test_skipped_draws_are_counted_alike_on_the_page_and_by_estimate(
    traffic_and_truth: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    traffic, truth = traffic_and_truth
    gold = tmp_path / "gold.jsonl"
    session = open_session(rows=traffic, gold=gold, strategy="estimate", seed=4)
    skipped: set[str] = set()
    for k in range(40):
        row_id = session.next_row("ana")
        assert row_id is not None
        skip = k % 4 == 0
        session.answer(reviewer="ana", row_id=row_id, label=None if skip else truth[row_id])
        if skip:
            skipped.add(row_id)
    # the draws each skipped row had, read from its last line (a skip drawn again is written
    # again with the new draw)
    last = {x["id"]: x for x in gold_lines(gold)}
    draws = sum(len(last[r]["meta"]["sampling"]["pi"]) for r in skipped)
    assert all(last[r]["faithful"] is None for r in skipped)
    assert draws >= len(skipped) == 10
    figure = session.figures("ana")["skipped"]
    assert (figure["rows"], figure["draws"]) == (10, draws)
    assert skipped_in_file(gold) == (10, draws)
    note = skip_note(10, draws)
    assert figure["note"] == note and note is not None
    assert note.startswith(f"10 drawn rows skipped ({draws} draws dropped): the estimate assumes")
    est = estimate(rows=traffic, gold=gold)
    assert any(n.endswith(note) for n in est.notes)
    # the skipped rows are left out of the weighted estimate: the labeled draws alone
    assert est.n_labeled == len(last) - 10
