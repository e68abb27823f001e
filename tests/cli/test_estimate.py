"""`ragjudge estimate` and `ragjudge.estimate`: PPI++ on results files (scripted verdicts) and on
rows the offline judge judges, two systems, the fitted-rows rule, bad input."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ragjudge
from ragjudge.cli import main
from ragjudge.data._gold import load_gold
from ragjudge.data._rowhash import row_hash
from ragjudge.stats._ppi import combine_strata, mean_estimate

REPO = Path(__file__).resolve().parents[2]


def results_file(
    path: Path,
    *,
    labels: list[int | None],
    scores: list[float],
    sources: list[str] | None = None,
    errors: dict[int, str] | None = None,
    prefix: str = "r",
) -> Path:
    """A results file as `evaluate --out` writes it, from scripted verdicts."""
    errors = errors or {}
    with path.open("w") as f:
        for i, (label, score) in enumerate(zip(labels, scores, strict=True)):
            error = errors.get(i)
            record: dict[str, Any] = {
                "metric": "faithfulness",
                "id": f"{prefix}{i}",
                "score": None if error else score,
                "passed": None if error else score >= 0.5,
                "mode": "statement",
                "error": error,
                "source": (sources or ["s"] * len(labels))[i],
                "gold": label,
            }
            f.write(json.dumps(record) + "\n")
    return path


def scripted(n: int, *, labeled: int, rate: float, accuracy: float, seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < rate).astype(int)
    right = rng.random(n) < accuracy
    passed = np.where(right, y, 1 - y)
    scores = np.clip(passed * 0.7 + rng.random(n) * 0.3, 0, 1).round(4)
    labels: list[int | None] = [int(v) if i < labeled else None for i, v in enumerate(y)]
    return labels, scores.tolist()


def run_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    code = main(["estimate", *args, "--format", "json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def test_json_matches_the_estimator_on_a_results_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels, scores = scripted(400, labeled=60, rate=0.4, accuracy=0.85, seed=1)
    path = results_file(tmp_path / "results.jsonl", labels=labels, scores=scores)
    code, data, _ = run_json(["--rows", str(path)], capsys)
    assert code == 0
    assert data["n_rows"] == 400 and data["n_labeled"] == 60
    for kind in ("ppi", "classical", "judge"):
        assert set(data[kind]) >= {"estimate", "ci"} and len(data[kind]["ci"]) == 2
    y = np.array(labels[:60], dtype=float)
    f = np.array(scores)
    want = mean_estimate(labels=y, predicted=f[:60], predicted_unlabeled=f[60:])
    assert data["ppi"]["estimate"] == pytest.approx(want.estimate, abs=1e-12)
    assert data["ppi"]["ci"] == pytest.approx(want.ci, abs=1e-12)
    assert data["classical"]["ci"] == pytest.approx(want.classical_ci, abs=1e-12)
    assert data["judge"]["estimate"] == pytest.approx(np.mean(f >= 0.5))  # the raw pass rate
    assert data["ppi"]["ci"][1] - data["ppi"]["ci"][0] < (
        data["classical"]["ci"][1] - data["classical"]["ci"][0]
    )
    assert data["effective_labels"] > 60
    # --predict passed uses the verdicts
    code, data, _ = run_json(["--rows", str(path), "--predict", "passed", "--level", "0.9"], capsys)
    p = (f >= 0.5).astype(float)
    want = mean_estimate(labels=y, predicted=p[:60], predicted_unlabeled=p[60:], level=0.9)
    assert data["ppi"]["ci"] == pytest.approx(want.ci, abs=1e-12)


def test_table_says_the_judge_rate_is_biased(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels, scores = scripted(300, labeled=50, rate=0.3, accuracy=0.8, seed=2)
    path = results_file(tmp_path / "results.jsonl", labels=labels, scores=scores)
    assert main(["estimate", "--rows", str(path), "--target-width", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "BIASED" in out and "effective number of labels" in out
    assert "PPI++ needs" in out and "labels alone need" in out


def test_strata_are_pooled_by_their_share_of_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    la, sa = scripted(300, labeled=40, rate=0.2, accuracy=0.85, seed=3)
    lb, sb = scripted(100, labeled=40, rate=0.7, accuracy=0.85, seed=4)
    path = results_file(
        tmp_path / "results.jsonl",
        labels=la + lb,
        scores=sa + sb,
        sources=["a"] * 300 + ["b"] * 100,
    )
    code, data, _ = run_json(["--rows", str(path), "--by", "source"], capsys)
    assert code == 0
    parts = [
        mean_estimate(
            labels=np.array(lab[:40], dtype=float),
            predicted=np.array(sc[:40]),
            predicted_unlabeled=np.array(sc[40:]),
        )
        for lab, sc in ((la, sa), (lb, sb))
    ]
    pooled = combine_strata(parts, [300, 100])
    assert data["ppi"]["estimate"] == pytest.approx(pooled.estimate, abs=1e-12)
    assert data["ppi"]["ci"] == pytest.approx(pooled.ci, abs=1e-12)
    assert [s["value"] for s in data["strata"]] == ["a", "b"]
    assert [s["weight"] for s in data["strata"]] == [0.75, 0.25]
    assert data["strata"][0]["ppi"]["estimate"] == pytest.approx(parts[0].estimate)


def test_two_systems_and_the_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    la, sa = scripted(500, labeled=100, rate=0.6, accuracy=0.9, seed=5)
    lb, sb = scripted(500, labeled=100, rate=0.3, accuracy=0.9, seed=6)
    a = results_file(tmp_path / "a.jsonl", labels=la, scores=sa)
    b = results_file(tmp_path / "b.jsonl", labels=lb, scores=sb)
    code, data, _ = run_json(
        ["--rows", str(a), "--rows", str(b), "--fail-under-diff", "0.05"], capsys
    )
    assert code == 1  # B is clearly worse
    d = data["difference"]
    assert d["worse"] is True and d["ppi"]["ci"][1] < -0.05 and d["ppi"]["p_value"] < 0.001
    assert d["ppi"]["estimate"] == pytest.approx(
        data["b"]["ppi"]["estimate"] - data["a"]["ppi"]["estimate"]
    )
    assert d["ppi"]["se"] == pytest.approx(
        math.hypot(data["a"]["ppi"]["se"], data["b"]["ppi"]["se"])
    )
    # the same system twice: no difference, the gate passes
    code, data, _ = run_json(["--rows", str(a), "--rows", str(a), "--fail-under-diff", "0"], capsys)
    assert code == 0 and data["difference"]["ppi"]["estimate"] == 0.0
    # B better: exit 0 whatever the bound
    assert main(["estimate", "--rows", str(b), "--rows", str(a), "--fail-under-diff", "0"]) == 0
    assert "no evidence that B is worse" in capsys.readouterr().out


def test_paired_comparison_uses_per_question_differences(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(7)
    n, labeled = 400, 80
    y_a = (rng.random(n) < 0.5).astype(int)
    y_b = np.where(rng.random(n) < 0.8, y_a, 1 - y_a)  # mostly the same questions fail
    f_a = np.clip(y_a * 0.8 + rng.random(n) * 0.2, 0, 1).round(4)
    f_b = np.clip(y_b * 0.8 + rng.random(n) * 0.2, 0, 1).round(4)
    a = results_file(
        tmp_path / "a.jsonl",
        labels=[int(v) if i < labeled else None for i, v in enumerate(y_a)],
        scores=f_a.tolist(),
        prefix="q",
    )
    b = results_file(
        tmp_path / "b.jsonl",
        labels=[int(v) if i < labeled else None for i, v in enumerate(y_b)],
        scores=f_b.tolist(),
        prefix="q",
    )
    code, data, _ = run_json(["--rows", str(a), "--rows", str(b), "--paired"], capsys)
    assert code == 0 and data["difference"]["paired"] is True
    want = mean_estimate(
        labels=(y_b - y_a)[:labeled].astype(float),
        predicted=(f_b - f_a)[:labeled],
        predicted_unlabeled=(f_b - f_a)[labeled:],
        label_range=(-1, 1),
        prediction_range=(-1, 1),
    )
    assert data["difference"]["ppi"]["estimate"] == pytest.approx(want.estimate, abs=1e-12)
    assert data["difference"]["ppi"]["ci"] == pytest.approx(want.ci, abs=1e-12)
    _, unpaired, _ = run_json(["--rows", str(a), "--rows", str(b)], capsys)
    assert data["difference"]["ppi"]["se"] < unpaired["difference"]["ppi"]["se"]


# -- bad input: one line, exit 2, no traceback --------------------------------------------------


def error_line(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["estimate", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


def test_fewer_than_ten_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels, scores = scripted(100, labeled=9, rate=0.5, accuracy=0.8, seed=8)
    path = results_file(tmp_path / "few.jsonl", labels=labels, scores=scores)
    err = error_line(["--rows", str(path)], capsys)
    assert "few.jsonl" in err and "9 labeled rows" in err and "10" in err


def test_all_labels_one_class_says_what_the_interval_means(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = results_file(tmp_path / "ones.jsonl", labels=[1] * 30 + [None] * 70, scores=[0.9] * 100)
    err = error_line(["--rows", str(path)], capsys)
    assert "ones.jsonl" in err and "all 30 labeled rows have faithful = 1" in err
    assert "no unfaithful row" in err and "rule of three" in err and "0.900" in err


def test_labeled_ids_missing_from_the_rows_when_paired(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    la, sa = scripted(100, labeled=20, rate=0.5, accuracy=0.8, seed=9)
    a = results_file(tmp_path / "a.jsonl", labels=la, scores=sa, prefix="q")
    b = results_file(tmp_path / "b.jsonl", labels=la, scores=sa, prefix="x")  # other ids
    err = error_line(["--rows", str(a), "--rows", str(b), "--paired"], capsys)
    assert "a.jsonl" in err and "row 1" in err and "'id'" in err and "q0" in err


def test_a_judge_error_on_a_labeled_row_counts_as_failing_and_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels, scores = scripted(200, labeled=40, rate=0.5, accuracy=0.8, seed=10)
    path = results_file(tmp_path / "r.jsonl", labels=labels, scores=scores, errors={3: "timeout"})
    code, data, err = run_json(["--rows", str(path)], capsys)
    assert code == 0 and data["labeled_errors"] == 1
    assert "errored on 1 labeled rows, counted as failing" in err and "timeout" in err
    f = np.array(scores)
    f[3] = 0.0
    want = mean_estimate(labels=labels[:40], predicted=f[:40], predicted_unlabeled=f[40:])
    assert data["ppi"]["estimate"] == pytest.approx(want.estimate, abs=1e-12)


def test_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels, scores = scripted(100, labeled=20, rate=0.5, accuracy=0.8, seed=11)
    path = results_file(tmp_path / "r.jsonl", labels=labels, scores=scores)
    assert "one --gold per --rows" in error_line(
        ["--rows", str(path), "--rows", str(path), "--gold", str(path)], capsys
    )
    assert "compare two --rows" in error_line(["--rows", str(path), "--paired"], capsys)
    assert "level" in error_line(["--rows", str(path), "--level", "1.5"], capsys)
    err = error_line(["--rows", str(path), "--by", "domain"], capsys)
    assert "only each row's source" in err and "r.jsonl" in err


def test_subprocess_smoke(tmp_path: Path) -> None:
    labels, scores = scripted(200, labeled=30, rate=0.5, accuracy=0.8, seed=12)
    path = results_file(tmp_path / "r.jsonl", labels=labels, scores=scores)
    done = subprocess.run(
        [sys.executable, "-m", "ragjudge", "estimate", "--rows", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["n_labeled"] == 30
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "1", "answer": "a"}\n')
    done = subprocess.run(
        [sys.executable, "-m", "ragjudge", "estimate", "--rows", str(bad)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "bad.jsonl" in done.stderr and len(done.stderr.strip().splitlines()) == 1


# -- with the offline judge (real rows) ----------------------------------------------------------


@pytest.fixture(scope="module")
def begin_rows(tmp_path_factory: pytest.TempPathFactory, gold_dir: Path) -> dict[str, Path]:
    rows = load_gold(gold_dir / "begin" / "dev.jsonl", limit=90)
    folder = tmp_path_factory.mktemp("begin")
    lines = [json.dumps(r.model_dump(mode="json")) for r in rows]
    (folder / "rows.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "gold.jsonl").write_text("\n".join(lines[:40]) + "\n")
    return {"rows": folder / "rows.jsonl", "gold": folder / "gold.jsonl", "dir": folder}


def test_rows_judged_or_read_back_give_one_answer(
    begin_rows: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rows, gold = str(begin_rows["rows"]), str(begin_rows["gold"])
    code, direct, _ = run_json(["--rows", rows, "--gold", gold, "--by", "source"], capsys)
    assert code == 0 and direct["n_rows"] == 90 and direct["n_labeled"] == 40
    out = begin_rows["dir"] / "results.jsonl"
    assert main(["evaluate", "--gold", rows, "--out", str(out), "--format", "json"]) == 0
    capsys.readouterr()

    def no_judging(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a results file must not be judged again")

    monkeypatch.setattr("ragjudge.estimation._estimate.run_rows", no_judging)
    code, again, _ = run_json(["--rows", str(out), "--gold", gold, "--by", "source"], capsys)
    assert code == 0
    for kind in ("ppi", "classical", "judge"):
        assert again[kind]["ci"] == pytest.approx(direct[kind]["ci"], abs=1e-12)


def test_library_function(begin_rows: dict[str, Path]) -> None:
    est = ragjudge.estimate(rows=begin_rows["rows"], gold=begin_rows["gold"], target_width=0.1)
    assert est.n_labeled == 40 and est.n_rows == 90
    assert est.ppi.ci[0] <= est.ppi.estimate <= est.ppi.ci[1]
    assert est.ppi.ci[1] - est.ppi.ci[0] <= est.classical.ci[1] - est.classical.ci[0] + 1e-12
    assert est.target is not None and est.target.classical is not None
    assert est.target.classical > 40
    with pytest.raises(TypeError):
        ragjudge.estimate(begin_rows["rows"])  # type: ignore[misc]


def test_a_labeled_id_naming_another_row_is_refused(
    begin_rows: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = begin_rows["gold"].read_text().splitlines()
    row = json.loads(lines[5])
    row["answer"] = "Something else entirely."
    lines[5] = json.dumps(row)
    gold = tmp_path / "gold.jsonl"
    gold.write_text("\n".join(lines) + "\n")
    err = error_line(["--rows", str(begin_rows["rows"]), "--gold", str(gold)], capsys)
    assert "gold.jsonl, row 6, field 'id'" in err and "another row" in err


# -- labels the judge was fitted on ---------------------------------------------------------------


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory, gold_dir: Path) -> tuple[Path, list]:
    rows = load_gold(gold_dir / "halueval" / "dev.jsonl", limit=120)
    judge = ragjudge.compile(ragjudge.Faithfulness(lm="local"), gold=rows, n_trials=4, seed=0)
    path = tmp_path_factory.mktemp("judge") / "judge.json"
    judge.save(path)
    return path, rows


def test_compile_records_its_fitted_rows(compiled: tuple[Path, list]) -> None:
    path, rows = compiled
    judge = ragjudge.load(path)
    fitted = judge.report_["fitted_rows"]
    valid = {p["id"] for p in judge.report_["predictions"]}
    assert len(fitted) == judge.report_["sizes"]["train"] == len(rows) - len(valid)
    assert set(fitted) == {row_hash(r) for r in rows if r.id not in valid}


def test_fitted_labels_are_left_out(
    compiled: tuple[Path, list], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, rows = compiled
    judge = ragjudge.load(path)
    valid = {p["id"] for p in judge.report_["predictions"]}
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(r.model_dump(mode="json")) + "\n" for r in rows))
    code, data, err = run_json(
        ["--judge", str(path), "--rows", str(gold), "--gold", str(gold)], capsys
    )
    assert code == 0
    assert data["dropped_fitted"] == len(rows) - len(valid)
    assert data["n_labeled"] == len(valid) and data["fitted_rows_known"] is True
    assert f"{len(rows) - len(valid)} labeled rows were left out" in err
    # ... and out of the measured rows: one population for the labels and the judge's part
    assert data["n_rows"] == len(valid)
    assert f"{len(rows) - len(valid)} of the measured rows" in err


def test_old_judge_files_load_and_warn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], gold_dir: Path
) -> None:
    old = REPO / "tests" / "resources" / "faithfulness_v0_compiled.json"
    rows = load_gold(gold_dir / "sample.jsonl")
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r.model_dump(mode="json")) + "\n" for r in rows))
    code, data, err = run_json(["--judge", str(old), "--rows", str(path)], capsys)
    assert code == 0 and data["fitted_rows_known"] is False
    assert "does not record the rows it was fitted on" in err


def test_only_fitted_labels_suggests_cross_fitting(
    compiled: tuple[Path, list], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, rows = compiled
    judge = ragjudge.load(path)
    valid = {p["id"] for p in judge.report_["predictions"]}
    gold = tmp_path / "train.jsonl"
    gold.write_text(
        "".join(json.dumps(r.model_dump(mode="json")) + "\n" for r in rows if r.id not in valid)
    )
    err = error_line(["--judge", str(path), "--rows", str(gold), "--gold", str(gold)], capsys)
    assert "0 labeled rows" in err and "--cross-fit" in err and "left out" in err


def test_cross_fitting(begin_rows: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, data, _ = run_json(
        [
            "--rows",
            str(begin_rows["rows"]),
            "--gold",
            str(begin_rows["gold"]),
            "--cross-fit",
            "2",
            "--trials",
            "3",
        ],
        capsys,
    )
    assert code == 0 and data["cross_fit"] == 2 and data["n_labeled"] == 40
    assert "cross-fitted" in data["judge_name"]
    assert data["ppi"]["ci"][0] <= data["ppi"]["estimate"] <= data["ppi"]["ci"][1]
    assert "drop --judge" in error_line(
        ["--rows", str(begin_rows["rows"]), "--judge", "x.json", "--cross-fit", "2"], capsys
    )


# -- estimates that keep their promise (issue 41) ------------------------------------------------


def test_a_stratum_whose_labels_all_agree_keeps_a_width(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    la, sa = scripted(300, labeled=40, rate=0.4, accuracy=0.85, seed=21)
    lb = [1, 1, 1, 1] + [None] * 96
    sb = [0.9] * 100
    path = results_file(
        tmp_path / "r.jsonl", labels=la + lb, scores=sa + sb, sources=["a"] * 300 + ["b"] * 100
    )
    code, data, _ = run_json(["--rows", str(path), "--by", "source"], capsys)
    assert code == 0
    b = data["strata"][1]
    assert b["value"] == "b" and b["n_labeled"] == 4
    for kind in ("ppi", "classical"):  # four labels of 1 say little: a wide interval, not none
        low, high = b[kind]["ci"]
        assert high - low > 0.3 and 0.0 <= low and high <= 1.0
    alone = data["strata"][0]
    assert data["ppi"]["se"] > 0.75 * alone["ppi"]["se"]  # the small stratum widens the pool


def test_paired_identical_systems_do_not_look_certain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels, scores = scripted(200, labeled=20, rate=0.5, accuracy=0.8, seed=22)
    a = results_file(tmp_path / "a.jsonl", labels=labels, scores=scores, prefix="q")
    b = results_file(tmp_path / "b.jsonl", labels=labels, scores=scores, prefix="q")
    code, data, _ = run_json(["--rows", str(a), "--rows", str(b), "--paired"], capsys)
    assert code == 0
    d = data["difference"]
    for kind in ("ppi", "classical"):
        low, high = d[kind]["ci"]
        assert d[kind]["estimate"] == 0.0 and low < -0.05 and high > 0.05
    assert main(["estimate", "--rows", str(a), "--rows", str(b), "--paired"]) == 0
    assert "[+0.000, +0.000]" not in capsys.readouterr().out


def _raw_rows(path: Path, n: int, *, prefix: str, labels: list[int]) -> Path:
    with path.open("w") as f:
        for i in range(n):
            row = {
                "id": f"{prefix}{i}",
                "question": "What colour is the sky?",
                "contexts": ["The sky is blue."],
                "answer": "The sky is blue." if labels[i] else "The sky is green.",
                "faithful": labels[i],
            }
            f.write(json.dumps(row) + "\n")
    return path


def test_verdicts_of_two_judges_are_never_mixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    labels, scores = scripted(100, labeled=0, rate=0.5, accuracy=0.8, seed=23)
    traffic = results_file(tmp_path / "traffic.jsonl", labels=labels, scores=scores)
    gold = _raw_rows(tmp_path / "gold.jsonl", 14, prefix="g", labels=[1, 0] * 7)

    def no_judging(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("nothing may be judged when the verdicts would mix")

    monkeypatch.setattr("ragjudge.estimation._estimate.run_rows", no_judging)
    err = error_line(["--rows", str(traffic), "--gold", str(gold)], capsys)
    assert "mix two judges" in err and "'g0'" in err and "gold.jsonl" in err
    assert "ragjudge evaluate" in err
    # the other way round: rows to judge, labels as another judge's results file
    rows = _raw_rows(tmp_path / "rows.jsonl", 30, prefix="x", labels=[1, 0, 1] * 10)
    labeled = results_file(tmp_path / "labeled.jsonl", labels=[1, 0] * 10, scores=[0.5] * 20)
    assert "mix two judges" in error_line(["--rows", str(rows), "--gold", str(labeled)], capsys)


def test_a_results_file_names_no_judge_that_never_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels, scores = scripted(100, labeled=30, rate=0.5, accuracy=0.8, seed=24)
    path = results_file(tmp_path / "r.jsonl", labels=labels, scores=scores)
    code, data, _ = run_json(["--rows", str(path)], capsys)
    assert code == 0 and data["judge_name"] == f"verdicts read from {path}"
    assert data["verdicts_from_file"] is True


@pytest.mark.parametrize(
    ("value", "read"),
    [("yes", 1), ("no", 0), (True, 1), (1.0, 1), (0.9, None), (2, None), (-1, None)],
)
def test_a_results_files_gold_is_read_by_the_one_label_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: Any, read: int | None
) -> None:
    labels, scores = scripted(60, labeled=30, rate=0.5, accuracy=0.8, seed=25)
    path = results_file(tmp_path / "r.jsonl", labels=labels, scores=scores)
    lines = path.read_text().splitlines()
    record = json.loads(lines[4])
    record["gold"] = value
    lines[4] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    if read is None:
        err = error_line(["--rows", str(path)], capsys)
        assert "r.jsonl, row 5, field 'gold'" in err and "must be 0, 1 or empty" in err
    else:
        code, data, _ = run_json(["--rows", str(path)], capsys)
        assert code == 0 and data["n_labeled"] == 30


def test_unscored_rows_fail_and_are_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels, scores = scripted(200, labeled=40, rate=0.5, accuracy=0.8, seed=26)
    path = results_file(tmp_path / "r.jsonl", labels=labels, scores=scores)
    lines = path.read_text().splitlines()
    for i in (2, 100, 101):  # score null, passed null, no error
        record = json.loads(lines[i])
        record["score"], record["passed"] = None, None
        lines[i] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    code, data, err = run_json(["--rows", str(path)], capsys)
    assert code == 0 and data["labeled_unscored"] == 1 and data["row_unscored"] == 2
    assert "1 labeled and 2 unlabeled rows have no score" in err and "failing" in err
    f = np.array(scores)
    f[[2, 100, 101]] = 0.0
    want = mean_estimate(labels=labels[:40], predicted=f[:40], predicted_unlabeled=f[40:])
    assert data["ppi"]["estimate"] == pytest.approx(want.estimate, abs=1e-12)
    assert main(["estimate", "--rows", str(path)]) == 0
    assert "unscored (no score, no error): 1 labeled, 2 other rows" in capsys.readouterr().out


def test_bounds_stay_within_zero_and_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = [1] * 9 + [0] + [None] * 40
    scores = [0.95] * 9 + [0.9] + [0.97] * 40
    path = results_file(tmp_path / "r.jsonl", labels=labels, scores=scores)
    code, data, _ = run_json(["--rows", str(path)], capsys)
    assert code == 0
    for kind in ("ppi", "classical", "judge"):
        low, high = data[kind]["ci"]
        assert 0.0 <= low <= data[kind]["estimate"] <= high <= 1.0, (kind, low, high)
    assert data["ppi"]["ci"][1] == 1.0  # reaches the end of the range, not beyond it


def test_one_unlabeled_row_is_not_every_row_labeled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels, scores = scripted(51, labeled=50, rate=0.5, accuracy=0.8, seed=27)
    path = results_file(tmp_path / "r.jsonl", labels=labels, scores=scores)
    _, _, err = run_json(["--rows", str(path)], capsys)
    assert "every measured row is labeled" not in err
    assert "only 1 of 51 measured rows is unlabeled" in err
    labels, scores = scripted(50, labeled=50, rate=0.5, accuracy=0.8, seed=27)
    path = results_file(tmp_path / "all.jsonl", labels=labels, scores=scores)
    _, _, err = run_json(["--rows", str(path)], capsys)
    assert "every measured row is labeled" in err


def test_the_judge_rate_has_the_one_pass_rate_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ragjudge.stats._summary import wilson_interval

    labels, scores = scripted(120, labeled=30, rate=0.3, accuracy=0.8, seed=28)
    path = results_file(tmp_path / "r.jsonl", labels=labels, scores=scores)
    _, data, _ = run_json(["--rows", str(path)], capsys)
    passed = int(sum(s >= 0.5 for s in scores))
    assert data["judge"]["ci"] == pytest.approx(wilson_interval(passed, 120), abs=1e-12)
    _, data, _ = run_json(["--rows", str(path), "--level", "0.8"], capsys)
    assert data["judge"]["ci"] == pytest.approx(wilson_interval(passed, 120, level=0.8), abs=1e-12)


def test_one_effective_number_of_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ragjudge.stats._ppi import effective_labels

    la, sa = scripted(300, labeled=40, rate=0.2, accuracy=0.85, seed=29)
    lb, sb = scripted(100, labeled=40, rate=0.7, accuracy=0.85, seed=30)
    path = results_file(
        tmp_path / "r.jsonl", labels=la + lb, scores=sa + sb, sources=["a"] * 300 + ["b"] * 100
    )
    for extra in ([], ["--by", "source"]):
        _, data, _ = run_json(["--rows", str(path), *extra], capsys)
        want = effective_labels(
            n_labeled=80, se=data["ppi"]["se"], classical_se=data["classical"]["se"]
        )
        assert data["effective_labels"] == pytest.approx(want)
    _, data, _ = run_json(["--rows", str(path), "--rows", str(path)], capsys)
    d = data["difference"]
    assert d["effective_labels"] == pytest.approx(
        effective_labels(n_labeled=80, se=d["ppi"]["se"], classical_se=d["classical"]["se"])
    )


def test_cross_fitting_folds_come_from_the_one_fold_maker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from types import SimpleNamespace

    from ragjudge.data._gold import GoldRecord
    from ragjudge.estimation import _crossfit
    from ragjudge.stats._folds import group_folds

    rows = [
        GoldRecord(id=f"r{i}", answer="a", faithful=i % 2, meta={"group_id": f"g{i // 2}"})
        for i in range(20)
    ]
    seen: list[set[str]] = []

    def fake_compile(student: Any, *, gold: list, validation: list, **kwargs: Any) -> Any:
        seen.append({r.id for r in validation})
        predictions = [{"id": r.id, "score": 0.7, "passed": True} for r in validation]
        return SimpleNamespace(report_={"predictions": predictions})

    monkeypatch.setattr(_crossfit, "compile_judge", fake_compile)
    fitted = _crossfit.cross_fit(rows, folds=3, seed=4)
    folds = group_folds(
        [f"g{i // 2}" for i in range(20)], [i % 2 for i in range(20)], folds=3, seed=4
    )
    want = [{f"r{i}" for i in range(20) if folds[i] == k} for k in range(3)]
    assert seen == want and fitted.labeled.tolist() == [0.7] * 20


def test_an_estimate_does_not_change_with_the_judges_scale(gold_dir: Path) -> None:
    rows = load_gold(gold_dir / "begin" / "dev.jsonl", limit=90)
    figures = []
    for scale in (1.0, 5.0):
        judge = ragjudge.Faithfulness(lm="local", scale=scale)
        est = ragjudge.estimate(rows=rows, gold=rows[:40], judge=judge)
        assert est.lam > 0  # the judge's scores take part
        figures.append((est.ppi.estimate, *est.ppi.ci, est.lam, est.judge.estimate))
    assert figures[0] == pytest.approx(figures[1], abs=1e-12)


def test_the_report_never_overwrites_an_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels, scores = scripted(60, labeled=30, rate=0.5, accuracy=0.8, seed=31)
    path = results_file(tmp_path / "r.html", labels=labels, scores=scores)
    before = path.read_text()
    err = error_line(["--rows", str(path), "--report", str(path)], capsys)
    assert "--report" in err and "--rows" in err and path.read_text() == before
