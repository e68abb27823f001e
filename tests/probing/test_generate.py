"""Generation: seeded and deterministic, capped per kind and spread over sources, skips counted."""

from __future__ import annotations

import pytest

from ragjudge.data import GoldRecord
from ragjudge.exceptions import ConfigurationError
from ragjudge.probing import generate_probes, kinds


def _rows() -> list[GoldRecord]:
    rows = []
    for i in range(12):
        rows.append(
            GoldRecord(
                id=f"r{i}",
                source="a" if i % 2 else "b",
                question="What happened?",
                contexts=[f"Bridge {i} opened to traffic on 2 October 2019 after a delay."],
                answer="It opened.",
                meta={"group_id": f"g{i}"},
            )
        )
    rows.append(GoldRecord(id="empty", source="a", contexts=["Yes."], answer="x"))
    return rows


def test_the_same_seed_gives_the_same_probes() -> None:
    first = generate_probes(_rows(), seed=3)
    again = generate_probes(_rows(), seed=3)
    assert [p.model_dump() for p in first.probes] == [p.model_dump() for p in again.probes]


def test_a_cap_per_kind_is_spread_over_sources() -> None:
    made = generate_probes(_rows(), kinds=["context_sentence"], per_kind=4)
    assert len(made.probes) == 4
    assert sorted(p.source for p in made.probes) == ["a", "a", "b", "b"]


def test_a_row_that_gives_nothing_is_skipped_and_counted() -> None:
    made = generate_probes(_rows(), kinds=["context_sentence"])
    count = made.counts[0]
    assert count.made == 12 and count.tried == 13
    assert count.skipped == {"no sentence fit to answer with": 1}
    assert all(p.id.endswith("::context_sentence") for p in made.probes)


def test_probes_carry_their_row_and_expected_verdict() -> None:
    probe = generate_probes(_rows(), kinds=["context_sentence"]).probes[0]
    record = probe.record()
    assert record.faithful == 1 and record.meta["kind"] == "context_sentence"
    assert record.meta["group_id"] == probe.group_id


def test_unknown_kinds_and_caps_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="unknown probe kind 'nope'"):
        generate_probes(_rows(), kinds=["nope"])
    with pytest.raises(ConfigurationError, match="per_kind"):
        generate_probes(_rows(), per_kind=0)


def test_must_fail_and_must_pass_name_a_side() -> None:
    assert generate_probes(_rows(), kinds=["must_pass"]).counts
    assert set(kinds(expect="pass")) >= {"context_sentence"}


def test_a_cap_per_source_holds_for_each_source() -> None:
    made = generate_probes(_rows(), kinds=["context_sentence"], per_source=2)
    assert sorted(p.source for p in made.probes) == ["a", "a", "b", "b"]
    with pytest.raises(ConfigurationError, match="per_source"):
        generate_probes(_rows(), per_source=0)


def test_the_table_order_names_every_shipped_kind_once() -> None:
    from ragjudge.probing._registry import ORDER

    assert sorted(ORDER) == sorted(kinds()) and len(set(ORDER)) == len(ORDER)
    assert kinds()[: len(kinds(expect="fail"))] == kinds(expect="fail")


def test_rows_that_share_a_sentence_make_its_edit_once() -> None:
    shared = "Drinking coffee may reduce the risk of liver disease."
    rows = [
        GoldRecord(
            id=f"r{i}",
            question="Is coffee good for the liver?",
            contexts=[f"{shared} Page {i} of the city guide, with other news."],
            answer="It opened.",
            meta={"group_id": f"g{i}"},
        )
        for i in range(2)
    ]
    made = generate_probes(rows, kinds=["modality"], seed=0)
    assert len(made.probes) == 1
    assert made.counts[0].skipped == {"same variant as another row's": 1}
