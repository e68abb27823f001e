"""Compile says, before its first LM call, how many it will make at most, shows progress, and
keeps that number: even when every reply runs on to max_tokens (scripted LMs, and the CLI
against a local test server)."""

from __future__ import annotations

import random
import warnings
from pathlib import Path
from typing import Any

import pytest

import ragjudge
from ragjudge.cli import main
from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.exceptions import ConfigurationError, UngroupedRowsWarning
from ragjudge.lm import ReplyCutError
from ragjudge.lm._meter import CallMeter, metering
from ragjudge.optimize import compile_judge
from ragjudge.testing import TestServer, scripted_lm


@pytest.fixture(scope="module")
def rows(gold_dir: Path) -> list[GoldRecord]:
    return load_gold(gold_dir / "halueval" / "dev.jsonl", limit=30)


def _replies(n: int, *, cut_every: int = 0, seed: int = 0) -> list[Any]:
    """Whole-answer and statement replies, mixed: each parses for one of the signatures, so a
    scripted compile over both modes gets a share of good, unreadable and cut replies."""
    rng = random.Random(seed)
    out: list[Any] = []
    for i in range(n):
        if cut_every and i % cut_every == 0:
            out.append(ReplyCutError("the reply reached max_tokens=480", partial='{"r'))
            continue
        confidence = round(rng.random(), 2)
        out.append(
            rng.choice(
                [
                    {
                        "reasoning": "r",
                        "verdict": "yes" if confidence > 0.5 else "no",
                        "confidence": confidence,
                    },
                    {"statements": ["The answer says one thing."]},
                    {
                        "verdicts": [
                            {
                                "statement": "s",
                                "reason": "r",
                                "verdict": "yes",
                                "confidence": confidence,
                            }
                        ]
                    },
                    "unreadable",
                ]
            )
        )
    return out


def _compile(
    judge: Any, rows: list[GoldRecord], **options: Any
) -> tuple[Any, CallMeter, list[str]]:
    lines: list[str] = []
    meter = CallMeter(report=lines.append)
    with metering(meter), warnings.catch_warnings():
        warnings.simplefilter("ignore", UngroupedRowsWarning)
        warnings.filterwarnings("ignore", "The least populated class", UserWarning)
        try:
            compiled = compile_judge(
                judge,
                gold=rows,
                n_trials=6,
                max_demos=2,
                demo_candidates=1,
                n_boot=0,
                seed=0,
                **options,
            )
        except ConfigurationError:  # no validation row judged (every reply cut): still bounded
            compiled = None
    return compiled, meter, lines


@pytest.mark.parametrize("cut_every", [0, 3, 1], ids=["replies", "some-cut", "all-cut"])
def test_the_calls_announced_before_the_first_bound_every_call_made(
    rows: list[GoldRecord], cut_every: int
) -> None:
    lm, engine = scripted_lm(_replies(3000, cut_every=cut_every))
    seen_at_announce: list[int] = []
    judge = ragjudge.Faithfulness(lm=lm, mode="whole")
    lines: list[str] = []

    def report(line: str) -> None:
        if "at most" in line and not lines:
            seen_at_announce.append(len(engine.requests))
        lines.append(line)

    meter = CallMeter(report=report, every=0.0)
    with metering(meter), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compiled = compile_judge(
                judge, gold=rows, n_trials=6, max_demos=2, demo_candidates=1, n_boot=0, seed=0
            )
        except ConfigurationError:
            compiled = None
    assert seen_at_announce == [0], lines[:2]  # said before the first call
    assert lines[0].startswith("compile: at most ")
    assert meter.ceiling is not None and 0 < len(engine.requests) <= meter.ceiling
    assert meter.made == len(engine.requests)  # every call counted
    assert len(lines) > 2 and "LM calls made" in lines[-1]  # progress while it ran
    if compiled is not None and compiled.report_ is not None:
        record = compiled.report_["lm_calls"]["ceiling"]
        assert record == {"announced": meter.ceiling, "made": meter.made, "rows_not_started": 0}


def test_a_budget_is_the_ceiling_and_is_kept(rows: list[GoldRecord]) -> None:
    lm, engine = scripted_lm(_replies(3000, cut_every=4))
    compiled, meter, lines = _compile(
        ragjudge.Faithfulness(lm=lm, mode="whole"), rows, max_lm_calls=70, modes=["whole"]
    )
    assert meter.ceiling == 70 and "--max-lm-calls" in lines[0]
    assert len(engine.requests) <= 70 and meter.made == len(engine.requests)
    assert compiled is not None and compiled.report_ is not None
    assert compiled.report_["lm_calls"]["ceiling"]["announced"] == 70


def test_rows_the_ceiling_cannot_pay_for_are_not_started(rows: list[GoldRecord]) -> None:
    lm, engine = scripted_lm(_replies(40))
    judge = ragjudge.Faithfulness(lm=lm, mode="statement")  # 2 predictor calls: 4 at worst
    meter = CallMeter()
    meter.announce(9, "run")
    with metering(meter):  # one row at a time: each frees what it reserved and did not use
        results = judge.batch(rows[:5], concurrency=1)
    started = [r for r in results if not (r.error or "").startswith("LM call ceiling")]
    # 2 calls made a row: rows 1-3 reserve 4 with 0, 2, 4 made; row 4 would reach 10 > 9
    assert len(started) == 3 and meter.refused == 2 and meter.rows == 5
    assert len(engine.requests) == meter.made <= 9
    refused = next(r for r in results if r not in started)
    assert refused.lm_calls == 0 and "9 calls announced" in (refused.error or "")


def test_cli_compile_announces_its_ceiling_and_keeps_it(
    sample_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with TestServer(delay=0.0, rate_garbage=0.3, seed=1) as server:
        code = main(
            [
                "compile",
                "--gold",
                str(sample_path),
                "--out",
                str(tmp_path / "j.json"),
                "--lm",
                "openai/fake",
                "--api-base",
                server.api_base,
                "--trials",
                "3",
                "--max-demos",
                "0",
                "--modes",
                "whole",
                "--no-cache",
                "--format",
                "json",
            ]
        )
        made = server.requests
    assert code == 0
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if "at most" in x)
    assert line.startswith("ragjudge compile: at most ")
    ceiling = int(line.split("at most ")[1].split()[0])
    assert 0 < made <= ceiling
