"""Comparison: a rank (first / second, largest / second-largest, most / second most), a
superlative or comparative turned to its opposite (largest / smallest, stronger / weaker) or
a multiplier (twice / half) that differs from the aligned context sentence's."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ragjudge.offline.claims._words import head, same_word, tokens
from ragjudge.offline.text import Token

__all__ = ["conflict"]

#: Ordinal words and their ranks (stems of the inflected forms: "zweites", "première").
_ORDINALS = {
    **dict.fromkeys(("first", "erst", "premier", "première", "primer", "primero", "primera"), 1),
    **dict.fromkeys(("second", "zweit", "deuxième", "seconde", "segundo", "segunda"), 2),
    **dict.fromkeys(("third", "dritt", "troisième", "tercer", "tercero", "tercera"), 3),
    **dict.fromkeys(("fourth", "viert", "quatrième", "cuarto", "cuarta"), 4),
    **dict.fromkeys(("fifth", "fünft", "cinquième", "quinto", "quinta"), 5),
    **dict.fromkeys(("sixth", "sechst", "sixième", "sexto", "sexta"), 6),
    **dict.fromkeys(("seventh", "siebt", "septième", "séptimo", "séptima"), 7),
    **dict.fromkeys(("eighth", "acht", "huitième", "octavo", "octava"), 8),
    **dict.fromkeys(("ninth", "neunt", "neuvième", "noveno", "novena"), 9),
    **dict.fromkeys(("tenth", "zehnt", "dixième", "décimo", "décima"), 10),
}
_NUMERAL_ORDINAL_RE = re.compile(r"(\d+)(?:st|nd|rd|th|\.)?")
_GERMAN_ENDINGS = ("", "e", "er", "es", "en", "em")
#: Words that make the adjective after them a superlative after an article ("the most
#: popular", "la plus grande", "la ciudad más grande").
_MOST = frozenset("most plus más".split())
#: Gradable adjectives in pairs of opposites, each with its comparative and superlative
#: (English, German) or its base form (French, Spanish: "plus grand", "más grande").
_PAIRS = (
    ("large larger largest", "small smaller smallest"),
    ("big bigger biggest", "small smaller smallest"),
    ("high higher highest", "low lower lowest"),
    ("long longer longest", "short shorter shortest"),
    ("tall taller tallest", "short shorter shortest"),
    ("old older oldest", "young younger youngest"),
    ("strong stronger strongest", "weak weaker weakest"),
    ("fast faster fastest", "slow slower slowest"),
    ("warm warmer warmest", "cold colder coldest"),
    ("hot hotter hottest", "cold colder coldest"),
    ("heavy heavier heaviest", "light lighter lightest"),
    ("rich richer richest", "poor poorer poorest"),
    ("wide wider widest", "narrow narrower narrowest"),
    ("good better best", "bad worse worst"),
    ("deep deeper deepest", "shallow shallower shallowest"),
    ("thick thicker thickest", "thin thinner thinnest"),
    ("early earlier earliest", "late later latest"),
    ("groß größer größt", "klein kleiner kleinst"),
    ("hoch höher höchst", "niedrig niedriger niedrigst"),
    ("lang länger längst", "kurz kürzer kürzest"),
    ("alt älter ältest", "jung jünger jüngst"),
    ("stark stärker stärkst", "schwach schwächer schwächst"),
    ("schnell schneller schnellst", "langsam langsamer langsamst"),
    ("warm wärmer wärmst", "kalt kälter kältest"),
    ("gut besser best", "schlecht schlechter schlechtest"),
    ("grand", "petit"),
    ("haut", "bas"),
    ("long", "court"),
    ("fort", "faible"),
    ("rapide", "lent"),
    ("chaud", "froid"),
    ("riche", "pauvre"),
    ("meilleur", "pire"),
    ("grande", "pequeño"),
    ("alto", "bajo"),
    ("largo", "corto"),
    ("fuerte", "débil"),
    ("rápido", "lento"),
    ("caliente", "frío"),
    ("rico", "pobre"),
    ("mayor", "menor"),
    ("mejor", "peor"),
)
#: Word -> (the pair's key, the side, the degree: 0 base, 1 comparative, 2 superlative).
_DEGREES: dict[str, tuple[int, int, int]] = {}
for _pair_id, _pair in enumerate(_PAIRS):
    for _side_id, _forms in enumerate(_pair):
        for _rung, _form in enumerate(_forms.split()):
            _DEGREES.setdefault(_form, (_pair_id, _side_id, _rung))
#: Multipliers: word -> factor ("N times" read from its number).
_MULTIPLIERS = {
    **dict.fromkeys(("half", "halb", "moitié", "mitad"), 0.5),
    **dict.fromkeys(("twice", "double", "doubled", "doppelt", "doble"), 2.0),
    **dict.fromkeys(("triple", "tripled", "thrice", "dreifach", "triplé"), 3.0),
    **dict.fromkeys(("quadruple", "quadrupled", "vierfach", "cuádruple"), 4.0),
}
_TIMES = frozenset("times mal fois veces".split())


def _ordinal(token: Token) -> int:
    """The rank an ordinal token says ("second", "zweites", "2nd"), or 0."""
    if token.norm in _ORDINALS:
        return _ORDINALS[token.norm]
    for form, rank in _ORDINALS.items():
        if token.norm.startswith(form) and token.norm[len(form) :] in _GERMAN_ENDINGS:
            return rank
    match = _NUMERAL_ORDINAL_RE.fullmatch(token.norm)
    if match and token.norm != match.group(1) and not token.norm.endswith("."):
        return int(match.group(1))
    return 0


def _degree(word: str) -> tuple[int, int, int] | None:
    """A gradable adjective's (pair, side, degree), inflected or not ("größere", "grandes")."""
    for cut in range(0, 3):
        found = _DEGREES.get(word[: len(word) - cut] if cut else word)
        if found is not None:
            return found
    return None


def _superlative(tokens: Sequence[Token], i: int) -> str:
    """The key of a superlative at token i: the word itself ("largest", "größte"), or the
    adjective after "most" / "plus" / "más" said after an article; "" if none."""
    t = tokens[i]
    if t.norm in _MOST:
        k = head(tokens, i + 1, reach=2)
        return tokens[k].norm if k >= 0 else ""
    found = _degree(t.norm)
    if found is not None and found[2] == 2:
        return t.norm
    if t.norm.endswith("est") and len(t.norm) > 5 and t.is_content:
        return t.norm  # "greatest", "longest-running"
    return ""


@lru_cache(maxsize=4096)
def _ranks(tokens: tuple[Token, ...]) -> tuple[tuple[str, int, str], ...]:
    """The ranks a text claims: (key, rank, phrase), the key being what is ranked ("album" in
    "the second album", "largest" in "the second-largest city", "popular" in "the second most
    popular"); a superlative without an ordinal is rank 1."""
    out: list[tuple[str, int, str]] = []
    ranked: set[int] = set()
    for i, t in enumerate(tokens):
        rank = _ordinal(t)
        german = ""
        if not rank:
            for form, r in _ORDINALS.items():  # "zweitgrößte"
                if r > 1 and t.norm.startswith(form) and _degree(t.norm[len(form) :]):
                    rank, german = r, t.norm[len(form) :]
                    break
        if not rank:
            continue
        if german:
            out.append((german, rank, t.norm))
            continue
        k = head(tokens, i + 1, reach=3)
        if k < 0:
            continue
        key, end = _superlative(tokens, k) or tokens[k].norm, k
        if tokens[k].norm in _MOST:
            end = head(tokens, k + 1, reach=2)
        for m in range(k + 1, min(len(tokens), k + 3)):  # "la segunda ciudad más grande"
            if tokens[m].norm in _MOST and _superlative(tokens, m):
                key, end = _superlative(tokens, m), head(tokens, m + 1, reach=2)
        end = max(end, k)
        ranked.update(range(i, end + 1))
        out.append((key, rank, " ".join(u.norm for u in tokens[i : end + 1])))
    for i, t in enumerate(tokens):
        if i in ranked:
            continue
        key = _superlative(tokens, i)
        if key and (t.norm not in _MOST or _after_article(tokens, i)):
            out.append((key, 1, t.norm if t.norm not in _MOST else f"{t.norm} {key}"))
    return tuple(out)


def _after_article(tokens: Sequence[Token], i: int) -> bool:
    """Whether an article or possessive stands at most two words before token i."""
    articles = {"the", "its", "his", "her", "their", "our", "le", "la", "les", "el", "los", "las"}
    return any(tokens[m].norm in articles for m in range(max(0, i - 3), i))


def _ranked(mine: Sequence[Token], theirs: Sequence[Token]) -> str:
    """Another rank of the same thing in the sentence, and never the statement's."""
    claimed = _ranks(tuple(mine))
    said = _ranks(tuple(theirs)) if claimed else ()  # most statements claim no rank
    for key, rank, phrase in claimed:
        same = [(r, p) for k, r, p in said if same_word(k, key)]
        if same and all(r != rank for r, _ in same):
            return f"'{phrase}' where the passage says '{same[0][1]}'"
    return ""


def _opposite(mine: Sequence[Token], theirs: Sequence[Token]) -> str:
    """A comparative or superlative whose opposite the sentence says, and never it."""
    said: dict[tuple[int, int, int], str] = {}
    for t in theirs:
        found = _degree(t.norm)
        if found is not None:
            said.setdefault(found, t.norm)
    for t in mine:
        found = _degree(t.norm)
        if found is None or found in said:
            continue
        key, side, degree = found
        if degree == 0 and len(_PAIRS[key][side].split()) > 1:
            continue  # an English or German base form compares nothing
        opposite = said.get((key, 1 - side, degree))
        if opposite:
            return f"'{t.norm}' where the passage says '{opposite}'"
    return ""


def _multipliers(tokens: Sequence[Token]) -> dict[float, str]:
    """The multipliers a text says, factor -> word ("twice", "3 times")."""
    out: dict[float, str] = {}
    for i, t in enumerate(tokens):
        after = tokens[i + 1].norm if i + 1 < len(tokens) else ""
        if t.norm in _MULTIPLIERS:
            out.setdefault(_MULTIPLIERS[t.norm], t.norm)
        elif t.is_number and after in _TIMES:
            try:
                out.setdefault(float(t.norm), f"{t.text} {after}")
            except ValueError:
                continue
    return out


def conflict(statement: str, sentence: str) -> str:
    """Another rank, the opposite comparison or another multiplier than the sentence says.

    Args:
        statement: The statement text.
        sentence: A context sentence aligned with it.

    Returns:
        The reason ("'second largest' where the passage says 'largest'"), or "".
    """
    mine = tokens(statement)
    theirs = tokens(sentence)
    found = _ranked(mine, theirs) or _opposite(mine, theirs)
    if found:
        return found
    own, said = _multipliers(mine), _multipliers(theirs)
    if own and said and not set(own) & set(said):
        return f"'{next(iter(own.values()))}' where the passage says '{next(iter(said.values()))}'"
    return ""
