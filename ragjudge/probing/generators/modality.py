"""Must-fail kind `modality`: a hedge made certain (`may` -> `will`, `possibly` dropped).

A hedged claim becomes a certain one where the verb form stays right: `may`, `might` and a
hedging `could` before a base verb become `will` (not `can`: read by hand, a generic `can`
states a law or an ability as often as a doubt, and `will` then says no more); `is likely
to` becomes `will`, `is expected to` becomes `is certain to` (a forecast's `will` would say
no more); `possibly`, `probably`, `allegedly` go, or become `certainly`, unless another
modal stays; `suggests`/`indicates that` becomes `proves that`; `is believed to` becomes `is
known to` (de `kann`, `könnte` -> `wird`; fr `peut`, `pourrait` -> `va`; es `puede`,
`podría` -> `va a`). Past hedges (`may have been`), a `could` or `might` told in the past,
negated or conditional hedges (`if`, `when`, `as ... changes`), a sentence with two hedges
and questions are skipped.
"""

from __future__ import annotations

import random
import re

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._probe import Skip, Variant
from ragjudge.probing._registry import Pool, generator
from ragjudge.probing.generators._rewrite import Replace, rewrite, rules

__all__ = ["modality"]

#: Verbs a hedging `could` goes with (`could lead to`): `could` as a past `can` is left alone.
_HEDGED_VERBS = (
    r"be|lead|cause|result|help|reduce|increase|affect|become|change|trigger|mean|make|"
    r"improve|harm|damage|prevent|explain|contribute|raise|lower|allow|pose|delay"
)
#: A base-form verb after a modal (not `have`, which makes a past hedge), one that tells of
#: an event: a guess at a state (`might owe`, `may contain`) made `will` reads as a future,
#: and a voiced view (`critics might say`) is not a doubt about a fact.
_BASE = (
    r"(?!have\b|not\b|also\b|well\b|only\b|never\b|be able\b|on\b|in\b|at\b|of\b|to\b|"
    r"for\b|with\b|by\b|from\b|the\b|an?\b|"
    r"owe|contain|include|exist|belong|seem|know|remain|lie|own|resemble|"
    r"say|argue|object|claim|think|contend|ask|wonder|call|describe\b)[a-z]{2,}\b"
)

_PAST = re.compile(
    r"(?<!\w)(?:was|were|had|did|[a-z]{3,}ed|gave|took|came|went|said|made|found|thought|"
    r"told|knew|saw|became|began|felt|left|brought|held|wrote|stood|heard|met|ran|led|won|"
    r"lost|sent|spent|built|got|ago)(?!\w)",
    re.IGNORECASE,
)
_MODAL = re.compile(
    r"(?<!\w)(?:can|could|may|might|would|should|appears?|seems?|appeared|seemed|likely|"
    r"unlikely)(?!\w)",
    re.IGNORECASE,
)


def _will(match: re.Match[str]) -> str | None:
    """A modal hedge -> `will`; not in a sentence told in the past (`could` as `was able
    to`, `believed they might` as a past future)."""
    return None if _PAST.search(match.string) else "will"


def _unhedge(new: str) -> Replace:
    """A hedging adverb -> `new`, unless a modal stays beside it (`can potentially`)."""

    def replace(match: re.Match[str]) -> str | None:
        return None if _MODAL.search(match.string) else new

    return replace


_TABLE: dict[str, list[tuple[str, Replace]]] = {
    "en": [
        (rf"(?:may|might)(?= {_BASE})", _will),
        (rf"could(?= (?:{_HEDGED_VERBS})\b)", _will),
        (r"(?:is|are) likely to(?= [a-z])", "will"),
        # `expected to` about a future event reads as `will` already (a forecast either way):
        # made certain instead
        (r"(is|are) expected to(?= [a-z])", r"\1 certain to"),
        # (`perhaps` and `seemingly` are not dropped: read as stock softeners, `perhaps
        # something to gain`, or a seeming the sentence itself goes on to deny)
        (r"(?:possibly|potentially|presumably|arguably) ", _unhedge("")),
        (r"probably", _unhedge("certainly")),
        (r"(?<!the )most likely(?= (?:will|would|is|was|are|were|be|has|had|have|[a-z]+ed)\b)",
         _unhedge("certainly")),
        (r"(?:allegedly|supposedly) ", _unhedge("")),
        (r"(?<=will )likely ", _unhedge("")),
        (r"(it is) (?:possible|likely|probable) that", r"\1 certain that"),
        (r"it is (?:believed|thought) that", "it is known that"),
        (r"(is|are|was|were) (?:believed|thought) to(?= (?:be|have)\b)", r"\1 known to"),
        (r"indicates? that", lambda m: "proves that" if m.group(0)[8] == "s" else "prove that"),
        (r"suggests? that", lambda m: "proves that" if m.group(0)[7] == "s" else "prove that"),
    ],
    "de": [
        (r"(?:kann|könnte)(?= (?!nicht)[a-zäöü])", "wird"),
        (r"(?:können|könnten)(?= (?!nicht)[a-zäöü])", "werden"),
        (r"(?:möglicherweise|vielleicht|eventuell)", "sicher"),
        (r"wahrscheinlich", "sicher"),
    ],
    "fr": [
        (r"(?:peut|pourrait)(?= (?!pas|être\b|-être)[a-zéèê]+(?:er|ir|re)\b)", "va"),
        (r"(?:peuvent|pourraient)(?= (?!pas)[a-zéèê]+(?:er|ir|re)\b)", "vont"),
        (r"(?:probablement|peut-être|possiblement)", "certainement"),
    ],
    "es": [
        (r"(?:puede|podría)(?= (?!que)[a-záéíóú]+(?:ar|er|ir)\b)", "va a"),
        (r"(?:pueden|podrían)(?= (?!que)[a-záéíóú]+(?:ar|er|ir)\b)", "van a"),
        (r"(?:probablemente|posiblemente)", "sin duda"),
    ],
}  # fmt: skip
_RULES = rules(_TABLE)

_REFUSE = {
    "en": r"not|n['’]t|no|never|be wrong|cannot|if|unless|whether|while|although|though|even|"
    r"may have|might have|could have|than (?:you|one|we|I) (?:might|may|could)|"
    r"would|as well|may or may not|whatever|however|wherever|whoever|as it may|be that as|"
    # a concessive `may ... but` (`X may lobby, but ...` means X does), a hedge inside a
    # relative clause (`those who could contribute`), the reader's own `may`/`can` (a
    # permission, `you may cancel`) and idioms (`see what you may find`)
    r"but|yet|(?:who|which|that|what) (?:\w+ )?(?:may|might|could|can)|"
    r"(?:you|one|we|I) (?:may|might|could|can)|"
    # a hedge tied to a condition or a covariation (`can change as the hand ages`, `may rise
    # when rates fall`): `will` there reads as the consequence, not as new certainty
    r"when|whenever|as (?:\w+ ){1,5}(?:change|grow|increase|rise|fall|decline|age|develop)s?|"
    # a claim already limited to some (`some may benefit`, `in some instances ... may`):
    # `may` there says that some do, and `will` says little more
    r"some|sometimes|certain cases|occasionally|"
    # a hedge under another hedge or a risk (`at greater risk of potentially fatal`,
    # `reportedly ... supposedly`) and a view (`they feel it might`)
    r"(?:risks?|chances?|danger|possibility|prone)\b[^.;]*?(?:potentially|possibly)|"
    r"reportedly|apparently|"
    r"feel|feels|think|thinks|believe|believes|hopes?|fears?|"
    r"worr(?:y|ies)|wish(?:es)?|"
    # `perhaps` and `seemingly` (not edited themselves) leave a sentence hedged
    r"perhaps|seemingly|"
    # `can` as ability or a slogan (`can help explain`, `can make a difference`), and records
    # that `indicate` what they show (a report, not a hedge)
    r"can (?:help|make a difference|explain|be used)|(?:records?|data|figures|"
    r"documents?|census|accounts?) (?:\w+ )?indicates?",
    "de": r"nicht|kein\w*|nie|ob|wenn|falls|aber|jedoch|doch|zwar|manche\w*|einige\w*|manchmal",
    "fr": r"ne|n['’]|pas|jamais|si|mais|pourtant|certes|certain\w*|quelques|parfois",
    "es": r"no|nunca|si|que\s+\w+\s+pueda|pero|aunque|sin embargo|algun\w*|a veces",
}
_REFUSE_RE = {
    lang: re.compile(rf"(?<![\w'’])(?:{p})(?!\w)|n['’]t(?!\w)|['’]d(?!\w)", re.IGNORECASE)
    for lang, p in _REFUSE.items()
}


def _safe(sentence: str, lang: str) -> bool:
    """No negation, no condition, no past hedge (`may have been`), one hedge only."""
    if _REFUSE_RE[lang].search(sentence):
        return False
    hedges = sum(len(rule.pattern.findall(sentence)) for rule in _RULES.get(lang, []))
    return hedges == 1


@generator(
    kind="modality",
    expect="fail",
    summary="a hedge made certain in a context sentence (may -> will, possibly dropped)",
)
def modality(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A context sentence whose hedged claim is stated as certain."""
    del pool
    made = rewrite(row, rng=rng, table=_RULES, guard=_safe, nothing="no hedge to make certain")
    if isinstance(made, Variant) and _stated(made, row):
        return Skip("the context states it as certain")
    return made


def _stated(made: Variant, row: GoldRecord) -> bool:
    """Whether a passage has the certain form too (`will be` where the edit wrote `will` before
    `be`): the context may then support the certain claim."""
    at = made.answer.find(made.after)
    follow = re.match(r"\s+([^\W\d_]+)", made.answer[at + len(made.after) :]) if at >= 0 else None
    if not made.after.strip() or follow is None:
        return False
    certain = re.compile(
        rf"(?<!\w){re.escape(made.after.strip())}\s+{re.escape(follow.group(1))}(?!\w)", re.I
    )
    return any(certain.search(passage) for passage in row.contexts)
