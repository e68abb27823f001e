"""added_detail and wrong_context on hand-written passages: the detail added is in no passage,
the context swapped is empty or unrelated, and rows that allow no sure probe are skipped."""

from __future__ import annotations

import random
import re

from ragjudge.data import GoldRecord
from ragjudge.probing import GENERATORS, Skip, Variant, generate_probes
from ragjudge.probing.generators.context import shorten


class _Pool:
    def __init__(self, *rows: GoldRecord) -> None:
        self.rows = list(rows)

    def unrelated(self, row: GoldRecord, rng: random.Random) -> GoldRecord | None:
        return self.rows[rng.randrange(len(self.rows))] if self.rows else None


_OTHER = GoldRecord(
    id="o",
    contexts=["Basalt columns formed in Lisbon harbour during 1983 as lava cooled slowly."],
    answer="x",
)


def _make(kind: str, *passages: str, seed: int = 0, pool: _Pool | None = None) -> Variant | Skip:
    row = GoldRecord(id="r", contexts=list(passages), answer="x")
    return GENERATORS[kind](row, rng=random.Random(seed), pool=pool or _Pool(_OTHER))


def test_added_detail_adds_a_year_or_place_no_passage_holds() -> None:
    passage = "The community garden was founded by local residents. It grows beans."
    made = {_make("added_detail", passage, seed=s).answer for s in range(12)}  # type: ignore[union-attr]
    assert made <= {
        "The community garden was founded by local residents in 1983.",
        "The community garden was founded by local residents in Lisbon.",
    }
    assert len(made) >= 1
    for answer in made:
        detail = answer.rsplit(" in ", 1)[1].rstrip(".")
        assert detail not in passage
    assert GENERATORS["added_detail"].expect == "fail"


def test_added_detail_never_borrows_a_detail_the_context_has() -> None:
    # The unrelated row's year and place stand in this context too: another is drawn.
    passage = "The garden was founded by residents. Lisbon sent seeds in 1983."
    for seed in range(8):
        out = _make("added_detail", passage, seed=seed)
        assert isinstance(out, Variant)
        detail = out.answer.rsplit(" in ", 1)[1].rstrip(".")
        assert detail not in passage and detail.lower() not in passage.lower()


def test_added_detail_keeps_a_spaced_full_stop() -> None:
    out = _make("added_detail", "The novel was written by Joe R. Lansdale .")
    assert isinstance(out, Variant)
    assert re.fullmatch(r"The novel was written by Joe R\. Lansdale in \w[\w ]* \.", out.answer)


def test_added_detail_skips_sentences_with_a_time_a_negation_or_no_event() -> None:
    for passage in (
        "The community garden was founded by local residents in May.",
        "The community garden was not founded by local residents.",
        "The community garden grows beans and peas for the neighbours.",
        "Residents say the garden was founded, and it grew quickly.",
    ):
        assert isinstance(_make("added_detail", passage), Skip), passage


def test_wrong_context_judges_a_context_sentence_against_nothing_or_another_row() -> None:
    passage = "The museum opened to visitors on 2 October 2019 after a long delay."
    seen = set()
    for seed in range(10):
        out = _make("wrong_context", passage, seed=seed)
        assert isinstance(out, Variant)
        assert out.answer == passage and out.contexts is not None
        assert out.before == f"context: {passage}"
        if out.contexts:
            assert out.contexts == tuple(_OTHER.contexts)
            assert out.after == shorten(_OTHER.contexts[0])
            seen.add("unrelated")
        else:
            assert out.after == "(empty)"
            seen.add("empty")
    assert seen == {"empty", "unrelated"}
    assert GENERATORS["wrong_context"].expect == "fail"


def test_wrong_context_never_uses_a_row_that_shares_a_word_with_the_answer() -> None:
    near = GoldRecord(id="n", contexts=["Every museum in the city closed for a week."], answer="y")
    passage = "The museum opened to visitors on 2 October 2019 after a long delay."
    for seed in range(10):
        out = _make("wrong_context", passage, seed=seed, pool=_Pool(near))
        assert isinstance(out, Variant) and out.contexts == ()


def test_wrong_context_goes_through_generation_with_its_contexts() -> None:
    rows = [
        GoldRecord(id=f"r{i}", contexts=[text], answer="x", meta={"group_id": f"g{i}"})
        for i, text in enumerate(
            [
                "The museum opened to visitors on 2 October 2019 after a long delay.",
                "Basalt columns formed in the harbour as the lava cooled slowly.",
            ]
        )
    ]
    made = generate_probes(rows, kinds=["wrong_context"], seed=2)
    assert len(made.probes) == 2
    for probe in made.probes:
        assert probe.answer in rows[int(probe.row_id[1:])].contexts[0]
        assert probe.contexts != rows[int(probe.row_id[1:])].contexts
        assert probe.record().faithful == 0
    again = generate_probes(rows, kinds=["wrong_context"], seed=2)
    assert [p.model_dump() for p in made.probes] == [p.model_dump() for p in again.probes]


def test_shorten_cuts_at_a_word() -> None:
    assert shorten("a b c", 10) == "a b c"
    assert shorten("alpha beta gamma delta", 12) == "alpha beta…"


def test_wrong_context_skips_sentences_that_claim_nothing() -> None:
    for passage in (
        "Yeah, welcome to the show everybody, welcome back.",
        "Sam: maybe I will just let the whole thing go.",
    ):
        assert isinstance(_make("wrong_context", passage), Skip), passage
