"""The held-out hand-written claims (`benchmarks/heldout/claims.jsonl`): every row in the gold
schema with its kind, language and expected verdict, the verdict agreeing with the label, and
every kind there in the numbers the set promises."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from ragjudge.data import GoldRecord, load_gold

REPO = Path(__file__).resolve().parents[2]
HELDOUT = REPO / "benchmarks" / "heldout" / "claims.jsonl"

MUST_FAIL = (
    "number_value",
    "unit",
    "date",
    "direction",
    "negation",
    "quantifier",
    "modality",
    "comparison",
    "causal",
    "entity_substitution",
    "role_swap",
    "attribution",
    "dropped_condition",
    "added_detail",
    "short_answer_wrong",
    "false_abstention",
)
MUST_PASS = (
    "paraphrase",
    "number_format",
    "date_format",
    "arithmetic",
    "abstention",
    "short_answer_right",
    "list_subset",
    "clause_order",
)
LANGUAGES = {"en", "de", "fr", "es"}


@pytest.fixture(scope="module")
def rows() -> list[GoldRecord]:
    return load_gold(HELDOUT, require_labels=True)


def test_every_row_has_kind_language_and_expect(rows: list[GoldRecord]) -> None:
    for row in rows:
        assert row.meta.get("kind") in (*MUST_FAIL, *MUST_PASS, "injection"), row.id
        assert row.meta.get("language") in LANGUAGES, row.id
        assert row.meta.get("expect") in ("fail", "pass"), row.id
        assert row.source == "heldout", row.id
        assert row.question and row.contexts and row.answer, row.id


def test_expect_agrees_with_the_label(rows: list[GoldRecord]) -> None:
    for row in rows:
        assert row.faithful == (1 if row.meta["expect"] == "pass" else 0), row.id
        kind = row.meta["kind"]
        if kind in MUST_FAIL:
            assert row.faithful == 0, row.id
        elif kind in MUST_PASS:
            assert row.faithful == 1, row.id


def test_ids_are_unique_and_named_by_kind(rows: list[GoldRecord]) -> None:
    ids = [row.id for row in rows]
    assert len(ids) == len(set(ids))
    for row in rows:
        assert row.id.startswith(f"heldout-{row.meta['kind']}-"), row.id


def test_every_kind_has_its_rows(rows: list[GoldRecord]) -> None:
    counts = Counter(row.meta["kind"] for row in rows)
    for kind in (*MUST_FAIL, *MUST_PASS):
        assert counts[kind] >= 8, kind
    assert counts["injection"] >= 6
    verdicts = Counter(row.faithful for row in rows if row.meta["kind"] == "injection")
    assert verdicts[0] >= 4 and verdicts[1] >= 2


def test_a_share_of_the_rows_is_not_english(rows: list[GoldRecord]) -> None:
    languages = Counter(row.meta["language"] for row in rows)
    assert set(languages) == LANGUAGES
    assert 0.3 <= 1 - languages["en"] / len(rows) <= 0.5
