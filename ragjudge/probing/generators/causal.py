"""Must-fail kind `causal`: an association stated as a cause (`is linked to` -> `causes`).

Where a context reports that two things go together, the variant says that one brings about
the other: `X is associated with Y` -> `X causes Y` (the verb agreeing with `is`/`are`, in
the tense of `was`/`were`), `X correlates with Y` -> `X causes Y`, `an association between`
-> `a causal link between`, `X has coincided with Y` -> `X has caused Y` (a plain `X
coincided with Y` is left: which side caused the other is a guess, read by hand), `X,
associated with Y` -> `X, causing Y`; de `ein Zusammenhang zwischen` -> `ein kausaler
Zusammenhang zwischen`; fr `est associé à` -> `cause`, `une corrélation entre` -> `un lien
de causalité entre`; es `está asociado con` -> `causa`, `una correlación entre` -> `una
relación causal entre`. A negated or hedged association is skipped, and so is a context that
may state the cause itself: a cause word in the sentence or a neighbour, or a sentence
elsewhere with a cause word and a word of each side of the association (of the effect alone
where the subject is a pronoun).
"""

from __future__ import annotations

import random
import re

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._probe import Skip, Variant
from ragjudge.probing._registry import Pool, generator
from ragjudge.probing._text import content_words, sentences, words
from ragjudge.probing.generators._rewrite import Replace, rewrite, rules

__all__ = ["causal"]

#: `be` + association -> a causal verb of the same person and tense.
_CAUSES = {
    "is": "causes",
    "are": "cause",
    "was": "caused",
    "were": "caused",
    "has been": "has caused",
    "have been": "have caused",
}
_LINKED = r"(?:associated|linked|correlated|connected|tied)"
_OBJECT = r"(?= (?!to\b|with\b|by\b|in\b)[\w$£€])"


#: What an association in a study is with: an outcome, a rate, a risk, a change.
_OUTCOME = re.compile(
    r"(?<!\w)(?:risks?|rates?|higher|lower|increased|decreased|reduced|greater|incidence|"
    r"mortality|deaths?|diseases?|cancers?|obesity|depression|diabetes|outcomes?|symptoms?|"
    r"levels?|growth|declines?|rises?|loss|improvements?|prevalence|likelihood|odds|injur\w+|"
    r"infections?|poorer|worse|fewer|disorders?|illness\w*|dementia|stroke|anxiety|weight|"
    r"asthma|blood pressure|heart attacks?|survival|performance|scores?|sales|prices?|"
    r"unemployment|crime|violence|poverty|effects?|complications?|problems?|attacks?|harm|"
    r"damage|cancellations?|closures?|layoffs|shortages?|surges?|spikes?|increases?|"
    r"decreases?)(?!\w)",
    re.IGNORECASE,
)


def _outcome(new: str | Replace) -> Replace:
    """`new` where an outcome word follows within six words (an association in a study, not
    a person's membership or a term of learning theory); None elsewhere."""

    def replace(match: re.Match[str]) -> str | None:
        tail = " ".join(match.string[match.end() :].split()[:6])
        if not _OUTCOME.search(tail):
            return None
        return match.expand(new) if isinstance(new, str) else new(match)

    return replace


def _en_causes(match: re.Match[str]) -> str | None:
    return _CAUSES[" ".join(match.group(1).lower().split())]


def _fr_object(article: str) -> str:
    return {
        "au": "le",
        "aux": "les",
        "à la": "la",
        "à l'": "l'",
        "à l’": "l'",
        "à un": "un",
        "à une": "une",
        "à des": "des",
    }.get(" ".join(article.lower().split()), "")


def _fr_causes(match: re.Match[str]) -> str:
    verb = "causent" if match.group(1).lower() == "sont" else "cause"
    return f"{verb} {_fr_object(match.group(2))}".replace("' ", "'").rstrip()


def _es_causes(match: re.Match[str]) -> str:
    verb = "causan" if match.group(1).lower() in ("están", "son") else "causa"
    article = {
        "al": "el",
        "a la": "la",
        "a los": "los",
        "a las": "las",
        "a un": "un",
        "a una": "una",
    }
    rest = article.get(" ".join(match.group(2).lower().split()), match.group(2))
    return f"{verb} {rest}".rstrip()


_TABLE: dict[str, list[tuple[str, Replace]]] = {
    "en": [
        (rf"(is|are|was|were|has been|have been) (?:[a-z]+ly )?{_LINKED} (?:with|to){_OBJECT}",
         _outcome(_en_causes)),
        (rf"correlates (?:positively |negatively |strongly )?with{_OBJECT}", _outcome("causes")),
        (rf"correlate (?:positively |negatively |strongly )?with{_OBJECT}", _outcome("cause")),
        (r"(an?) (?:(?:strong|significant|clear|positive|negative|close) )?"
         r"(?:association|correlation) between", _outcome("a causal link between")),
        (rf"(has|have) coincided with{_OBJECT}", _outcome(r"\1 caused")),
        (rf"(?<=\w, )(?:(?:often|strongly|closely) )?{_LINKED} (?:with|to){_OBJECT}",
         _outcome("causing")),
        (rf"(?:is|are) a risk factor for{_OBJECT}",
         lambda m: "causes" if m.group(0).lower().startswith("is") else "cause"),
    ],
    "de": [
        (r"(ein|einen) (?:(?:starken|deutlichen|signifikanten) )?Zusammenhang zwischen",
         lambda m: f"{m.group(1)} kausal{'er' if m.group(1).lower() == 'ein' else 'en'} "
         "Zusammenhang zwischen"),
        (r"(der|den) Zusammenhang zwischen",
         lambda m: f"{m.group(1)} kausal{'e' if m.group(1).lower() == 'der' else 'en'} "
         "Zusammenhang zwischen"),
        (r"(eine) Korrelation zwischen", r"\1 kausale Beziehung zwischen"),
    ],
    "fr": [
        (r"(est|sont) (?:associée?s?|liée?s?|corrélée?s?) (au|aux|à la|à l['’]|à une?|à des)",
         _fr_causes),
        (r"(une) (?:association|corrélation) entre", "un lien de causalité entre"),
    ],
    "es": [
        (r"(está|están|es|son) (?:asociad[oa]s?|relacionad[oa]s?|vinculad[oa]s?) "
         r"(?:con |a )?(al|a la|a los|a las|a una?|el|la|los|las|una?)(?= )", _es_causes),
        (r"(una) (?:asociación|correlación) entre", "una relación causal entre"),
    ],
}  # fmt: skip
_RULES = rules(_TABLE)

_REFUSE = {
    "en": r"not|n['’]t|no|never|without|weak|weakly|may|might|could|possibly|perhaps|if|"
    r"whether|unclear|suggest\w*|hypothes\w*",
    "de": r"nicht|kein\w*|nie|kann|könnte|möglicherweise|vielleicht|ob",
    "fr": r"ne|n['’]|pas|jamais|peut|pourrait|peut-être|si",
    "es": r"no|nunca|puede|podría|quizás|tal vez|si",
}
_REFUSE_RE = {
    lang: re.compile(rf"(?<![\w'’])(?:{p})(?!\w)|n['’]t(?!\w)", re.IGNORECASE)
    for lang, p in _REFUSE.items()
}
#: Words that speak of causes: a context that has them may already make the causal claim.
_CAUSE_WORDS = re.compile(
    r"^(?:caus\w*|kausal\w*|causalit\w*|causé\w*|causa\w*|verursach\w*|leads?|led|"
    r"results?|resulted|ursache|provoqu\w*)$",
    re.IGNORECASE,
)


def _safe(sentence: str, lang: str) -> bool:
    """No negated or hedged association."""
    return not _REFUSE_RE[lang].search(sentence)


def _speaks_of_causes(row: GoldRecord, sentence: str, span: str) -> bool:
    """Whether the context may itself state the cause `sentence` would be made to claim: a
    cause word in the sentence or a neighbour, or in any context sentence that shares a
    content word with each side of the association (`span` splits the two)."""
    head, _, tail = sentence.partition(span)
    cause, effect = _stems(head), _stems(tail)
    pointed = bool(_POINTER.match(head))  # "It is a policy, associated with": any cause
    for passage in row.contexts:
        found = sentences(" ".join(passage.split()))
        for i, other in enumerate(found):
            if not any(_CAUSE_WORDS.match(w) for w in words(other)):
                continue
            near = any(sentence in s for s in found[max(0, i - 1) : i + 2])
            said = _stems(other)
            if near or ((pointed or said & cause) and said & effect):
                return True
    return False


def _stems(text: str) -> set[str]:
    """The content words of `text`, cut to five letters ("infection", "infections")."""
    return {w[:5] for w in content_words(text)}


#: A sentence whose subject points elsewhere: the cause may be named by any other word.
_POINTER = re.compile(
    r"\s*(?:it|this|that|these|those|they|he|she|es|dies|cela|ce|ceci|esto|eso|ello)\b", re.I
)


@generator(
    kind="causal",
    expect="fail",
    summary="an association stated as a cause ('is linked to' -> 'causes')",
)
def causal(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A context sentence whose reported association is made a causal claim; never where the
    context speaks of causes near it or between the same things."""
    del pool
    made = rewrite(row, rng=rng, table=_RULES, guard=_safe, nothing="no association to make causal")
    if isinstance(made, Variant):
        sentence = made.answer.replace(made.after, made.before, 1)
        if _speaks_of_causes(row, sentence, made.before):
            return Skip("the context speaks of causes")
    return made
