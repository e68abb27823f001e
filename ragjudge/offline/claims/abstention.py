"""The abstention claim: "the context does not say", "I cannot answer this from the passages".

An abstention claims something of the context itself: that it does not answer the question.
Its words are never in the context, so reading it as any other statement fails it always. It
is read here instead: the question it declines (what the extracted statement carries after
its colon, or the abstention's own topic: "the context does not mention the price") is looked
up in the context.

- Most of the question's content words absent from the whole context: the context does not
  bear on it, and the abstention is supported.
- One sentence holding nearly all of them: the context speaks of exactly what was asked, so
  it most likely answers it, and the abstention is contradicted.
- Anything between (the topic is there but spread out, or partly): words cannot tell whether
  the answer is there, and the verdict is unsure.

`NONCOMMITTAL` (a reply that declines without naming the context: "I don't know") is read
the same way, and answer relevancy (`ragjudge.offline.tasks`) uses it to find answers that
commit to nothing.
"""

from __future__ import annotations

import re

from ragjudge.offline.claims.reading import Reading
from ragjudge.offline.text import tokenize

__all__ = ["CONTEXT_SILENT", "NONCOMMITTAL", "is_abstention", "read", "with_question"]

#: A reply that declines to answer without naming the context.
NONCOMMITTAL = re.compile(
    r"\b(i (do not|don't|cannot|can't|am not able to|am unable to) (know|say|answer|help|"
    r"determine|provide|tell|find|be sure)|i'?m (not sure|unsure|unable)|no idea|"
    r"(cannot|can't|unable to) (answer|determine|provide|help|find)|not (enough|sufficient) "
    r"information|(there is|there's) no information|as an ai|i have no (information|knowledge)|"
    r"unaware of|beyond my knowledge|i (would|must) (decline|refuse))\b",
    re.IGNORECASE,
)

_SOURCE = (
    r"(?:the |this |these |provided |given |supplied |retrieved |above |available )*"
    r"(?:context|passages?|texts?|documents?|sources?|excerpts?|information|articles?)"
    r"(?:\s+(?:provided|given|above|supplied|retrieved))?"
)
_SOURCE_DE = (
    r"(?:der|die|das|den|dem|gegebene[nr]?|vorliegende[nr]?|\s)*"
    r"(?:Kontext|Passagen?|Texte?|Quellen?|Dokumente?)(?:\s+oben)?"
)
_SOURCE_FR = (
    r"(?:le|la|les|l'|ce|ces|fourni[es]*|donné[es]*|\s)*"
    r"(?:contexte|passages?|textes?|documents?|sources?)"
    r"(?:\s+(?:fourni[es]*|donné[es]*|ci-dessus))?"
)
_SOURCE_ES = (
    r"(?:el|la|los|las|este|estos|proporcionad[oa]s?|dad[oa]s?|\s)*"
    r"(?:contexto|pasajes?|textos?|documentos?|fuentes?)"
    r"(?:\s+(?:proporcionad[oa]s?|dad[oa]s?|anterior(?:es)?))?"
)

#: A reply saying the context does not give the answer, in English, German, French, Spanish.
CONTEXT_SILENT = re.compile(
    "|".join(
        (
            # English
            rf"\b{_SOURCE}\s+(?:does|do|did)\s*(?:not|n't)\s+(?:say|mention|specify|state|"
            r"answer|provide|give|contain|include|discuss|address|indicate|tell|cover|reveal|name|"
            r"list|explain|describe|report|identify)",
            rf"\b{_SOURCE}\s+(?:says|mentions|gives|contains|provides|names|lists)\s+"
            r"(?:nothing|no)\b",
            rf"\b{_SOURCE}\s+(?:is|are)\s+silent",
            r"\b(?:not|never)\s+(?:mentioned|specified|stated|given|provided|addressed|"
            r"discussed|covered)\s+(?:in|by)\s+" + _SOURCE,
            r"\b(?:no|not any)\s+(?:information|mention|details?|data|indication)\s+"
            r"(?:is given |is provided |was given )?(?:about|on|of|regarding|as to|in)\b",
            r"\b(?:cannot|can't|can not|unable to)\s+(?:answer|determine|tell|say|find|know)"
            r".{0,40}\b(?:from|based on|in|using|with)\s+" + _SOURCE,
            r"\bgives no information\b",
            # German
            rf"\b{_SOURCE_DE}\s+(?:sagt|sagen|erwähnt|erwähnen|nennt|nennen|beantwortet|"
            r"beantworten|enthält|enthalten|gibt|geben)\b[^.]{0,40}\b(?:nichts|nicht|keine[n]?)\b",
            r"\bkeine (?:Angaben|Informationen|Auskunft|Hinweise)\b",
            r"\b(?:lässt sich|kann)[^.]{0,40}nicht (?:beantworten|sagen|entnehmen)\b",
            r"\bgeht [^.]{0,60}nicht hervor\b|\bnicht zu entnehmen\b",
            # French
            rf"\b{_SOURCE_FR}\s+(?:ne\s+|n['’])(?:le\s+|l['’]|en\s+|y\s+)?"
            r"(?:dit|disent|mentionne|mentionnent|précise|précisent|répond|répondent|donne|"
            r"donnent|contient|contiennent|indique|indiquent|nomme|nomment|explique|expliquent)"
            r"\s+(?:pas|rien)\b",
            r"\baucune (?:information|indication|mention|précision)\b",
            r"\bne (?:permet|permettent) pas de (?:répondre|savoir|dire)\b",
            # Spanish
            rf"\b{_SOURCE_ES}\s+no\s+(?:lo\s+|la\s+|le\s+)?(?:dice|dicen|menciona|mencionan|"
            r"especifica|especifican|responde|responden|indica|indican|contiene|contienen|"
            r"da|dan|proporciona|proporcionan)\b",
            r"\b(?:ninguna|no hay) (?:información|mención|indicación)\b",
            r"\bno (?:da|dan|ofrece|ofrecen|contiene|contienen|proporciona|proporcionan) "
            r"(?:ninguna |ningún |más )?(?:información|dato|datos|detalles?)\b",
            r"\bno (?:se puede|es posible) (?:responder|saber|determinar)\b",
        )
    ),
    re.IGNORECASE,
)

#: The abstention's own words ("context", "mention", "answer" ...): not its topic.
_OWN_WORDS = frozenset(
    """context contexts passage passages text texts document documents source sources excerpt
    excerpts information article articles say says said mention mentions mentioned specify
    specified state stated answer answers provide provided give given gives contain contains
    include discuss address indicate tell cover reveal silent detail details data indication
    name names list lists explain describe report identify geht hervor entnehmen
    question know determine find able unable nothing sure unsure idea retrieved supplied
    available above ci dessus
    kontext passage passagen text texte quelle quellen dokument dokumente sagt sagen erwähnt
    nennt beantwortet beantworten enthält gibt angaben informationen auskunft hinweise frage
    nichts keine gegebene vorliegende
    contexte passages textes documents dit disent mentionne précise répond répondent donne
    indiquent nomme nomment explique expliquent
    contient indique aucune information indication mention précision question fourni fournie
    donné permet répondre savoir
    contexto pasaje pasajes textos fuentes fuente dice dicen menciona especifica responde
    indica contiene proporciona información mención indicación pregunta ninguna responder saber
    determinar proporcionado dado responden respond
    this that it these those dazu darüber hierzu davon dies diese dieser dieses die der das
    sujet cela ceci ça ce cette esto eso ello esta este""".split()
)

#: The share of the topic's words the context must lack for the abstention to be supported.
ABSENT_SHARE = 0.5
#: The share of the topic's words one sentence must hold for it to contradict the abstention.
ANSWERED_SHARE = 0.8
#: The separator `with_question` puts between an abstention and the question it declines.
_ASKED = ": "


def is_abstention(text: str) -> bool:
    """Whether a text declines to answer, naming the context or not.

    Example:
        >>> is_abstention("The passages do not mention this."), is_abstention("It opened.")
        (True, False)
    """
    return bool(CONTEXT_SILENT.search(text) or NONCOMMITTAL.search(text))


def with_question(statement: str, question: str) -> str:
    """An abstention as a self-contained statement: one that names nothing it declines gets
    the question; any other statement is returned as it is.

    Example:
        >>> with_question("The context does not say.", "When did it open?")
        'The context does not say: When did it open?'
        >>> with_question("The passages do not give the price.", "What does it cost?")
        'The passages do not give the price.'
    """
    question = question.strip()
    if not question or _ASKED in statement or not is_abstention(statement):
        return statement
    if _topic(statement):
        return statement
    return statement.rstrip(" .!;:") + _ASKED + question


def _topic(statement: str) -> list[str]:
    """The content stems of what the abstention declines: the question after its colon, else
    its own words less the words of declining."""
    text = statement
    if _ASKED in statement:
        head, _, asked = statement.partition(_ASKED)
        if is_abstention(head + "."):
            text = asked
    stems: dict[str, None] = {}
    for token in tokenize(text):
        if token.is_content and token.norm not in _OWN_WORDS and token.stem not in _OWN_WORDS:
            stems[token.stem] = None
    return list(stems)


def read(
    statement: str, *, context_stems: frozenset[str], sentence_stems: list[list[str]]
) -> Reading | None:
    """Read an abstention against the context.

    Args:
        statement: The statement.
        context_stems: Every stem of the context (`ContextIndex.stems`).
        sentence_stems: The stems of each context sentence (`ContextIndex.sentence_stems`).

    Returns:
        The reading ("yes": the context does not bear on the question; "no": a sentence speaks
        of exactly what was asked; "unsure"), or None when the statement is no abstention.
    """
    head = statement.partition(_ASKED)[0] if _ASKED in statement else statement
    if not is_abstention(head):
        return None
    topic = _topic(statement)
    if not topic:
        return Reading("unsure", "an abstention that names no question to look up")
    absent = [s for s in topic if s not in context_stems]
    if len(absent) / len(topic) >= ABSENT_SHARE:
        return Reading(
            "yes",
            f"the context does not speak of what was asked "
            f"({len(absent)} of {len(topic)} of its words are not in it)",
        )
    wanted = set(topic)
    best = max((len(wanted & set(s)) for s in sentence_stems), default=0)
    if len(topic) >= 2 and best / len(topic) >= ANSWERED_SHARE:
        return Reading(
            "no",
            f"a sentence of the context speaks of what was asked ({best} of its "
            f"{len(topic)} words), so it likely answers it",
        )
    return Reading(
        "unsure",
        "the context speaks of what was asked, but words cannot tell whether it answers it",
    )
