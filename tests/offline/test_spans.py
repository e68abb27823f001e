"""The offline judge aligns each statement to one clause of the context and reads it there.

Hand-written rows of the kinds a RAG system gets wrong with every word in the context: a name in
another's slot, a word the context names only as left out or as another tier's, a number past the
context's limit, a negated fact, a claim the context never makes; and faithful rewordings that
must stay supported. Each unfaithful row must score below 1.0 and its reason must name what is
wrong.
"""

from __future__ import annotations

import pytest

import ragjudge
from ragjudge.offline.features import context_index, statement_evidence
from ragjudge.offline.model import OfflineModel, OfflineParams, offline_verdict
from ragjudge.offline.numbers import may_agree, number_values, supports
from ragjudge.offline.spans import align, clauses, same_name
from ragjudge.offline.text import is_common_word, negation_count, sentence_profile, tokenize


def _judge(context: str, answer: str) -> ragjudge.JudgeResult:
    return ragjudge.Faithfulness()(question="", contexts=[context], answer=answer)


def _reasons(result: ragjudge.JudgeResult) -> str:
    return " | ".join(s.reason for s in result.statements)


#: Faithful statements whose name the aligned clause writes another way, or whose clause opens
#: with a capitalized common word: none is a slot conflict.
SAME_NAME = [
    pytest.param(  # initials, with another name after the spelled-out one in the clause's slot
        "The United Kingdom on Friday said it will send observers to the election. "
        "UK officials arrive in May.",
        "The UK has said it will send observers to the election.",
        id="initials",
    ),
    pytest.param(  # a dotted abbreviation before a title and a name
        "U.S. Commerce Secretary Raimondo announced the chip subsidies. "
        "The United States wants more factories.",
        "The United States announced the chip subsidies.",
        id="dotted-abbreviation",
    ),
    pytest.param(  # "Since" is capitalized only because it opens the sentence
        "Since the breakthrough came when the lab sequenced the genome, funding grew. "
        "Okafor's team led the lab.",
        "Okafor's breakthrough came when the lab sequenced the genome.",
        id="sentence-initial-common-word",
    ),
    pytest.param(  # "I'll" after a speaker's colon is no name
        "Maya: I'll book the train tickets tonight. Tom: Great, thanks!",
        "Maya will book the train tickets.",
        id="pronoun",
    ),
    pytest.param(  # a title and a shorter form of the name
        "The cabinet of Jacinda Ardern approved the housing plan. "
        "Prime Minister Ardern later resigned.",
        "The cabinet of Prime Minister Ardern approved the housing plan.",
        id="title-and-surname",
    ),
]


UNFAITHFUL = [
    pytest.param(  # a name in another's slot, both names in the context
        "Lisbon hosts the annual tech summit. Porto hosts the national film festival.",
        "Porto hosts the annual tech summit.",
        ("'Porto'", "'Lisbon'"),
        id="entity-slot",
    ),
    pytest.param(  # a subject slot before "is": the reason says who is
        "Ottawa is the capital of Canada. Toronto is the country's biggest city.",
        "Toronto is the capital of Canada.",
        ("'Toronto' is not the capital of Canada", "'Ottawa' is"),
        id="entity-slot-copula",
    ),
    pytest.param(  # exclusivity: one tier's feature given to another
        "The Lite subscription covers e-mail help only; live chat belongs to the Pro subscription.",
        "The Lite subscription covers live chat.",
        ("'live chat'", "e-mail"),
        id="exclusive-only",
    ),
    pytest.param(  # an answer's "Yes," is no second slot
        "Rooms in the Garden wing include only free parking. Tower rooms include breakfast.",
        "Yes, rooms in the Garden wing include free breakfast.",
        ("'breakfast'", "'parking'"),
        id="exclusive-word-slot",
    ),
    pytest.param(
        "The pool is open every day except Mondays.",
        "The pool is open on Mondays.",
        ("'Mondays'", "except Mondays"),
        id="exclusion-except",
    ),
    pytest.param(
        "The ferry runs on electric batteries instead of diesel engines.",
        "The ferry runs on diesel engines.",
        ("diesel engines", "instead of"),
        id="exclusion-instead-of",
    ),
    pytest.param(
        "The bridge does not carry trains. It carries cars and bicycles.",
        "The bridge carries trains.",
        ("negated",),
        id="negation",
    ),
    pytest.param(  # a limit the context never states
        "Each passenger may check no more than 23 kg of luggage.",
        "Passengers may check up to 32 kg of luggage.",
        ("'up to 32 kg'", "'no more than 23 kg'"),
        id="number-past-bound",
    ),
    pytest.param(
        "Tickets cost between 12 and 15 euros.",
        "Tickets cost 40 euros.",
        ("'40", "'12-15"),
        id="number-outside-range",
    ),
    pytest.param(  # a name opening its sentence is a name when the context writes it so inside one
        "Bath is home to the Roman baths. Visitors to Bath also see Wells Cathedral.",
        "Wells is home to the Roman baths.",
        ("'Wells' is not home to the Roman baths", "'Bath' is"),
        id="entity-slot-sentence-initial",
    ),
    pytest.param(  # two names that share a word are not one name
        "The summit was hosted by South Korea in May. North Korea sent no delegation.",
        "The summit was hosted by North Korea in May.",
        ("'North'", "'South'"),
        id="entity-slot-shared-word",
    ),
    pytest.param(
        "The prize went to Pierre Curie in 1903. Marie Curie won a second prize later.",
        "The prize went to Marie Curie in 1903.",
        ("'Marie'", "'Pierre'"),
        id="entity-slot-shared-surname",
    ),
    pytest.param(  # a claim added to what the context says
        "The museum opened in 1921 and houses Roman coins.",
        "The museum houses Roman coins and a famous dinosaur skeleton.",
        ("'dinosaur'",),
        id="added-claim",
    ),
]


@pytest.mark.parametrize(("context", "answer", "named"), UNFAITHFUL)
def test_an_unfaithful_answer_scores_below_one_and_its_reason_names_the_fault(
    context: str, answer: str, named: tuple[str, ...]
) -> None:
    result = _judge(context, answer)
    assert result.score is not None and result.score < 1.0
    reasons = _reasons(result)
    for part in named:
        assert part in reasons, reasons
    assert any(s.verdict != "yes" for s in result.statements)


FAITHFUL = [
    pytest.param(
        "Lisbon hosts the annual tech summit. Porto hosts the national film festival.",
        "Porto hosts the national film festival.",
        id="entity-in-its-own-slot",
    ),
    pytest.param(  # a bound said in other words, and "no more than" is no negation
        "Each passenger may check no more than 23 kg of luggage.",
        "Passengers may check up to 23 kg of luggage.",
        id="same-bound",
    ),
    pytest.param(  # the word before the exclusion is no excluded word
        "The kiosk sells bread and cakes, but not coffee.",
        "The kiosk sells cakes.",
        id="beside-an-exclusion",
    ),
    pytest.param(  # a paraphrase by the near-synonym table
        "The bakery was established in 1990 by two sisters.",
        "The bakery was founded in 1990.",
        id="paraphrase",
    ),
    pytest.param(
        "The Lite subscription covers e-mail help only; live chat belongs to the Pro subscription.",
        "The Pro subscription includes live chat.",
        id="other-tier-feature",
    ),
    *(p for p in SAME_NAME if p.id != "initials"),  # (the initials row: see its own test)
]


@pytest.mark.parametrize(("context", "answer"), SAME_NAME)
def test_a_name_written_another_way_or_a_sentence_initial_word_is_no_slot_conflict(
    context: str, answer: str
) -> None:
    evidence = statement_evidence(context_index(context), answer)
    assert evidence.value("slot_conflict") == 0.0, evidence.slot_note
    assert "context says" not in _reasons(_judge(context, answer))


def _stems(name: str) -> list[str]:
    return [t.stem for t in tokenize(name)]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("EU", "European Union", True),
        ("EU's", "the European Union", True),
        ("BoE", "Bank of England", True),
        ("U.S.", "United States", True),
        ("Obama", "President Barack Obama", True),
        ("the Kennedys", "Kennedy", True),
        ("ACME", "Acme", True),
        ("Marie Curie", "Pierre Curie", False),
        ("North Korea", "South Korea", False),
        ("John Smith", "John Adams", False),
        ("Hubble Space Telescope", "James Webb Space Telescope", False),
        ("EU", "United States", False),
    ],
)
def test_same_name(a: str, b: str, same: bool) -> None:
    letters = [w.replace(".", "").lower() for w in (a, b)]
    words = [[x] if "." in w else _stems(w) for x, w in zip(letters, (a, b), strict=True)]
    assert same_name(*words) is same
    assert same_name(*words[::-1]) is same


def test_parts_of_names_read_off_a_sentence_are_one_name_when_they_share_a_word() -> None:
    parts = _stems("Chris Eubank"), _stems("Livingston Eubank")
    assert same_name(*parts, partial=True)
    assert not same_name(*parts)
    assert not same_name(_stems("Chris Eubank"), _stems("Nigel Benn"), partial=True)


def test_a_name_the_passage_spells_out_is_no_swapped_name() -> None:
    context = (
        "The United Kingdom on Friday said it will send observers to the election. "
        "UK officials arrive in May."
    )
    evidence = statement_evidence(
        context_index(context), "The UK has said it will send observers to the election."
    )
    assert evidence.value("entity_conflict") == 0.0, evidence.conflict_note
    swapped = statement_evidence(
        context_index("Pierre Curie was born in Paris. Marie Curie was born in Warsaw."),
        "Pierre Curie was born in Warsaw.",
    )
    assert swapped.value("entity_conflict") == 1.0


def test_common_words_are_told_from_names_by_english_casing() -> None:
    assert is_common_word("since")
    assert is_common_word("researchers")
    assert is_common_word("tributes")  # by its singular
    assert not is_common_word("bern")
    assert not is_common_word("okafor")


def test_a_word_modifying_the_next_one_after_an_exclusion_is_not_left_out() -> None:
    context = "Ski touring means climbing the slopes on your own power rather than using ski lifts."
    evidence = statement_evidence(
        context_index(context), "Ski touring means climbing the slopes on your own power."
    )
    assert evidence.value("excluded") == 0.0, evidence.slot_note
    lifts = statement_evidence(context_index(context), "Ski touring means using ski lifts.")
    assert lifts.value("excluded") == 1.0


@pytest.mark.parametrize(("context", "answer"), FAITHFUL)
def test_a_faithful_answer_stays_supported(context: str, answer: str) -> None:
    result = _judge(context, answer)
    assert result.score == 1.0, _reasons(result)
    assert all("supported" in s.reason for s in result.statements)


def test_words_gathered_from_two_sentences_conflict_in_the_aligned_clause() -> None:
    context = "Lisbon hosts the annual tech summit. Porto hosts the national film festival."
    index = context_index(context)
    scattered = statement_evidence(index, "Porto hosts the annual tech summit.")
    aligned = statement_evidence(index, "Lisbon hosts the annual tech summit.")
    assert scattered.value("coverage_best") == aligned.value("coverage_best") == 1.0
    assert scattered.value("slot_conflict") == 1.0
    assert aligned.value("slot_conflict") == 0.0


def test_a_word_the_context_never_says_is_no_slot_conflict() -> None:
    # 'Madrid' is novel: the novel-name evidence speaks for it, not the slot
    index = context_index("Lisbon hosts the annual tech summit. Porto hosts a film festival.")
    evidence = statement_evidence(index, "Madrid hosts the annual tech summit.")
    assert evidence.value("slot_conflict") == 0.0
    assert "Madrid" in evidence.missing


def test_a_reworded_common_word_or_an_alias_is_no_slot_conflict() -> None:
    index = context_index(
        "The fund returns the money to savers. Savers were paid in March by the EU."
    )
    reworded = statement_evidence(index, "The fund returns the paid amounts to savers.")
    assert reworded.value("slot_conflict") == 0.0
    index = context_index("The European Union imposed tariffs on steel. The EU is a bloc.")
    alias = statement_evidence(index, "The EU imposed tariffs on steel.")
    assert alias.value("slot_conflict") == 0.0


def test_an_excluded_word_the_statement_also_excludes_is_no_conflict() -> None:
    index = context_index("The pool is open every day except Mondays.")
    evidence = statement_evidence(index, "The pool is open every day except Mondays.")
    assert evidence.value("excluded") == 0.0


def test_clauses_split_at_semicolons_and_contrasts() -> None:
    parts = [text for text, _ in clauses("A is red; B is blue, but C is green")]
    assert parts == ["A is red", "B is blue", "but C is green"]


def test_align_counts_words_read_by_value_as_covered_everywhere() -> None:
    statement = "The firm has 500 staff."
    content = [t for t in tokenize(statement) if t.is_content]
    found = align(
        ["The firm employs around 450-550 staff."],
        statement,
        content,
        [1.0] * len(content),
        [True] * len(content),
        [t.text == "500" for t in content],
    )
    assert found.coverage == 1.0
    assert not found.slot_note


def test_no_more_than_is_a_bound_not_a_negation() -> None:
    text = "Take no more than 3,000 mg a day; do not exceed it."
    assert negation_count(tokenize(text)) == 1  # the "not" of "do not exceed"
    assert sentence_profile(text).negations == 1


def test_two_limits_of_one_direction_agree_only_on_their_value() -> None:
    (context,) = number_values("no more than 2,000 mg")
    (looser,) = number_values("up to 4,500 mg")
    (same,) = number_values("up to 2,000 mg")
    assert context.bound == looser.bound == "max"
    assert not supports(context, looser)
    assert not may_agree(context, looser)
    assert supports(context, same)
    (floor,) = number_values("more than 2 million")
    (value,) = number_values("2.5 million")
    (higher,) = number_values("over 3 million")
    assert supports(value, floor)  # a value past a lower bound still supports it
    assert supports(higher, floor)  # and so does a higher lower bound: a weaker claim


def test_a_slot_conflict_makes_an_unsupported_statement_no_and_leaves_a_supported_one() -> None:
    assert offline_verdict(
        support=0.2, rules=["slot_conflict"], support_threshold=0.5, unsure_margin=0.05
    ) == ("no", 0.2)
    assert offline_verdict(
        support=0.9, rules=["slot_conflict"], support_threshold=0.5, unsure_margin=0.05
    ) == ("yes", 0.9)


def test_the_fitted_weight_decides_and_the_reason_follows_the_verdict() -> None:
    context = "Ottawa is the capital of Canada. Toronto is the country's biggest city."
    statement = "Toronto is the capital of Canada."
    (default,) = OfflineModel().judge_statements(context=context, statements=[statement])
    assert default["verdict"] == "no"
    assert "'Ottawa' is" in default["reason"]
    params = OfflineParams()
    weights = dict(zip(params.statement_features, params.statement_weights, strict=True))
    weights["slot_conflict"] = 0.0
    ignoring = params.model_copy(update={"statement_weights": list(weights.values())})
    (judged,) = OfflineModel(ignoring).judge_statements(context=context, statements=[statement])
    assert judged["verdict"] == "yes"
    assert "Ottawa" not in judged["reason"]


def test_a_conflicting_number_is_named_beside_the_passage_value_nearest_it() -> None:
    result = _judge("The museum is open from 9 am to 5 pm.", "The museum is open until 8 pm.")
    assert result.score == 0.0
    assert "'20:00' where the passage says '17:00'" in _reasons(result)
