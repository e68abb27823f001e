"""The short answer: a yes or no, a name or a number that is right or wrong only as the answer
to its question.

"Bohr", "1879" or "No" says nothing on its own, and every word of a wrong one can be in the
context. Extraction therefore keeps a short answer with its question (`fuse`: "Who was born
first, Einstein or Bohr? → Bohr"); the support model reads the answer's words as any
statement's (a yes or no has none: the question's, `words_read`), and `read` reads it with the
question, for what words can tell of a right answer:

- A name that is one the question gives whole ("Who did Howard Ashman work with?" → "Howard
  Ashman"): it answers nothing, and is contradicted; where only a clause that states, not
  asks, gives it ("..., New South Wales, Australia, ... active in which country?"), it may be
  the answer, and is unsure.
- One of the question's two options ("A or B?", "between A and B"): where the question asks
  which came first (born first, older, founded earlier) or last, the year each option's own
  sentences give decides; a measure words cannot take ("closer", "more valuable") is left to
  the support model; else an option whose rival's sentences say more of what was asked is
  unsure (the rival's sentences may only say more words of it).
- A number: each value of its kind in the context scores the words of what was asked near it,
  as a sliding window does (rare words more, near ones more; a lifespan's first year is a
  birth, its last a death); an answer another value outscores is unsure.
- Yes or no: "both X and Y <something>" asks whether each one's sentences say it; "X and Y
  ... the same <thing>" compares the year, nationality, place or named kind ("family
  Araceae") each one's sentences give; any other question is read as a claim, answered where
  one sentence holds nearly all its words, yes unless one of the two negates it. What words
  cannot settle is unsure.

A sentence that makes a two-option question's choice ("Stanford University is located in
Chestnut Hill." for "Which university is located in Chestnut Hill, Boston College or Stanford
University?") is kept with its question too (`with_choice`) and read as the option it names,
so that an answer reads alike short or in a sentence.

Anything else (a name or number where the context puts it, or one the context does not give)
is left to the support model, as any statement.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from ragjudge.offline.claims._words import content_stems, same_word, tokens
from ragjudge.offline.claims.abstention import is_abstention
from ragjudge.offline.claims.reading import Reading
from ragjudge.offline.numbers import MONTHS
from ragjudge.offline.text import negation_count

if TYPE_CHECKING:
    from ragjudge.offline.index import ContextIndex

__all__ = ["ANSWERED", "MAX_WORDS", "fuse", "read", "split", "with_choice", "words_read"]

#: What `fuse` puts between a question and its short answer.
ANSWERED = " → "
#: The most words a short answer has.
MAX_WORDS = 4

_YES = frozenset("yes yeah yep ja oui sí si".split())
_NO = frozenset("no nope nein non".split())
_WH = re.compile(
    r"(?i)^\s*(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|"
    r"could|has|have|had|will|would|should|in what|in which|on what|at what|from what|for what|"
    r"since when|between|wer|was|wann|wo|welche[rsmn]?|wie|qui|que|quel(?:le)?s?|quand|où|"
    r"combien|qué|quién|cuándo|dónde|cuál|cuánto|cuántos|cuántas)\b"
)
_ASKING = re.compile(r"(?i)\b(?:what|which|who|whom|whose|when|where|how)\b")
_EARLY = re.compile(
    r"(?i)\b(?:first|earlier|earliest|older|oldest|before|previously|sooner|longer ago)\b"
)
_LATE = re.compile(
    r"(?i)\b(?:later|latest|younger|youngest|newer|newest|more recent(?:ly)?|last)\b"
)
_GRADED = re.compile(
    r"(?i)\b(?:more|less|fewer|further|farther|closer|nearer|most|least|better|best|worse|"
    r"worst|larger|largest|bigger|biggest|smaller|"
    r"smallest|higher|highest|lower|lowest|longer|longest|shorter|shortest|taller|tallest)\b"
)
#: A word a sentence making a choice may add to the question's: an adverb that says how sure
#: it is ("actually", "definitely"), none that orders or grades ("earlier", "only").
_ASIDE = re.compile(r"(?i)(?!(?:early|only|lately|likely|family)$)[a-z]+ly")
#: A question that asks to choose ("Which ..., A or B?"), not one that asks to compare ("What is
#: the difference between A and B?").
_CHOOSING = re.compile(r"(?i)\b(?:which|who|whom|whose)\b|\bor\b[^?]*\?\s*$")
_YEAR = re.compile(r"(?<!\d)(1[0-9]{3}|20[0-9]{2})(?!\d)")
#: A year glued to the next date's day where a text lost the dash between two dates:
#: "(24 January 171217 August 1786)".
_GLUED_YEAR = re.compile(rf"(?i)(?<!\d)(?:1[0-9]{{3}}|20[0-9]{{2}})[0-9]{{1,2}}\s+(?:{MONTHS})\b")
#: What a question asks when a lifespan's year answers it: a birth or a death.
_LIFE_ASKED = frozenset(
    content_stems(
        "born birth died death dead passed lived life killed murdered executed assassinated"
    )
)
_OR = re.compile(r"\s+or\s+")
_BETWEEN = re.compile(r"(?i)\bbetween\s+(.+?)\s+and\s+(.+?)(?:,|\?|$| which| who)")
_SAME = re.compile(r"(?i)\bsame\s+(\w+)")
_BOTH = re.compile(r"(?i)\bboth\b")
_NAME_GLUE = frozenset("of the de del la le von van da di du 's &".split())
#: The share of a yes-no question's content words one sentence must hold to answer it.
ANSWERED_SHARE = 0.8
#: How far (in tokens) from a value a question's word still counts.
_WINDOW = 12
#: How far (in tokens) from the words of what was asked an answer still stands where the
#: question word does.
_SLOT = 6


def fuse(question: str, answer: str) -> str | None:
    """A short answer kept with its question, or None for an answer that is a claim of its own
    (longer than `MAX_WORDS` words, an abstention) or a question that is no question.

    Example:
        >>> fuse("When was Einstein born?", "1879.")
        'When was Einstein born? → 1879'
        >>> fuse("When was Einstein born?", "Einstein was born in Ulm in 1879.") is None
        True
    """
    q, a = question.strip(), answer.strip().rstrip(".!;")
    if not q or not a or ANSWERED in a or is_abstention(a):
        return None
    if _sentence(a) or "\n" in a:
        return None
    if not (q.endswith("?") or _WH.match(q)):
        return None
    return f"{q}{ANSWERED}{a}"


def with_choice(statement: str, question: str) -> str:
    """A statement that makes a two-option question's choice in a sentence, kept with its
    question as a short answer is (`fuse`), so that it reads as the choice it makes; any other
    statement as it is. It names one option and not the other, negates nothing, and its other
    words are the question's (and one adverb at most: "was actually born first").

    Example:
        >>> q = "Who was born first, Ada Lovelace or Charles Babbage?"
        >>> with_choice("Ada Lovelace was born first.", q)
        'Who was born first, Ada Lovelace or Charles Babbage? → Ada Lovelace was born first.'
        >>> with_choice("Ada Lovelace was not born first.", q)
        'Ada Lovelace was not born first.'
        >>> with_choice("Ada Lovelace wrote the first program.", q)
        'Ada Lovelace wrote the first program.'
    """
    q = question.strip()
    if not q or ANSWERED in statement or not _CHOOSING.search(q):
        return statement
    options = _options(q)
    if len(options) != 2:
        return statement
    words, asked = content_stems(statement), content_stems(q)
    stems = [content_stems(o) for o in options]
    named = [o for o in stems if o and o <= words]
    if len(named) != 1 or negation_count(list(tokens(statement))):
        return statement
    if words & (stems[1] if named[0] == stems[0] else stems[0]):
        return statement  # it says something of the other too ("is younger than Elytis")
    rest = words - named[0]
    extra = [t.norm for t in tokens(statement) if t.is_content and t.stem in rest - asked]
    if not rest or len(extra) > 1 or not all(_ASIDE.fullmatch(w) for w in extra):
        return statement
    return f"{q}{ANSWERED}{statement.strip()}"


def split(statement: str) -> tuple[str, str] | None:
    """A fused statement's question and answer (`fuse`), or None for any other statement.

    Example:
        >>> split("When was Einstein born? → 1879")
        ('When was Einstein born?', '1879')
    """
    question, sep, answer = statement.rpartition(ANSWERED)
    return (question, answer) if sep and question else None


def words_read(question: str, answer: str) -> str:
    """The words of a short answer that the support model reads as any statement's: the
    answer's own, or the question's for a yes or no (which says nothing but of the question).

    Example:
        >>> words_read("Is Paris in France?", "Yes")
        'Is Paris in France?'
        >>> words_read("Where is Paris?", "France")
        'France'
    """
    return question if _polar(answer) else answer


def read(statement: str, index: ContextIndex, *, contradicted: bool = False) -> Reading | None:
    """Read a short answer with its question against the context, or a sentence that makes a
    two-option question's choice (`with_choice`) as that choice.

    Args:
        statement: The statement (`fuse`'s or `with_choice`'s form; any other is no short
            answer).
        index: The context's index.
        contradicted: Whether the context contradicts the answer's own words, read as any
            statement's: a sentence says more than its choice, so a right choice leaves it to
            its words, and so does a choice words cannot make where they contradict it.

    Returns:
        The reading, or None when the statement is no short answer.
    """
    parts = split(statement)
    if parts is None:
        return None
    question, answer = parts
    sentences = _sentences(index)
    polar = _polar(answer)
    if polar:
        return _read_polar(question, polar, sentences)
    option, other = _choice(question, answer)
    sentence = _sentence(answer)  # a choice made in a sentence (`with_choice`)
    chosen = option if sentence else answer
    own = [t for t in tokens(chosen) if t.is_content]
    if not own:  # "F.E.A.R": letters and stops, read as any statement
        return None
    if any(t.stem not in index.stems for t in own):
        return None  # read as any statement: the context does not give it
    if other:
        reading = _read_options(question, chosen, other, sentences)
        if not sentence or reading is None or reading.outcome == "no":
            return reading
        return None if reading.outcome == "yes" or contradicted else reading
    if sentence:
        return None  # a sentence (`with_choice`) that makes no choice: as any statement
    if _echoes(answer, _asking_clauses(question)):
        return Reading("no", f"'{answer}' only repeats a name the question asks about")
    if _echoes(answer, [question], whole=False):  # given in a clause that states, not asks
        if _says_asked(question, answer, sentences):
            return None  # and a sentence gives it where it says what was asked: as any statement
        return Reading("unsure", f"'{answer}' is a name the question itself gives")
    if any(t.is_number for t in own):
        return _read_value(question, answer, sentences)
    return None  # a name the context gives: read as any statement


def _echoes(answer: str, clauses: list[str], *, whole: bool = True) -> bool:
    """Whether a name answering a question is one the question's clauses give whole (not a word
    of a longer name: "Donington" of "Donington School F.C." may be its answer), or, unless
    `whole`, as a run of words within a longer name."""
    said = [t for t in tokens(answer) if t.is_content]
    if not said or not any(t.is_capital for t in said):
        return False  # "magazine": a kind, not a name
    wanted = [t.norm for t in tokens(answer)]
    for name in (name for clause in clauses for name in _capital_runs(clause)):
        words = [t.norm for t in tokens(name)]
        if words == wanted or (
            not whole and any(words[k : k + len(wanted)] == wanted for k in range(len(words)))
        ):
            return True
    return False


def _says_asked(question: str, answer: str, sentences: list[str]) -> bool:
    """Whether one sentence of the context says what a clause of the question asks
    (`ANSWERED_SHARE` of its content words) with the answer where the question word stands: at
    most `_SLOT` tokens after the clause's last word where the clause ends with it ("... best
    known as the singer of which band?": "... the singer and principal songwriter of the band
    Radiohead."), before its first word where it opens with it ("What is a resort in Palm
    Beach?": "Mar-a-Lago is a resort ..."). A question word inside a clause ("the stadium
    which is shared with ...") asks nothing."""
    own = content_stems(answer)
    for clause in _asking_clauses(question):
        words = list(tokens(clause))
        at = next((k for k, t in enumerate(words) if _ASKING.fullmatch(t.norm)), -1)
        if at < 0:
            continue
        before = [t.stem for t in words[:at] if t.is_content]
        after = [t.stem for t in words[at + 1 :] if t.is_content]
        if before and len(after) > 1:
            continue  # a question word inside the clause: a relative ("which is shared")
        anchor = before[-1] if before else after[0] if after else ""
        asked = content_stems(clause) - own
        if not anchor or anchor in own:
            continue
        for sentence in sentences:
            toks = tokens(sentence)
            stems = {t.stem for t in toks}
            if not own <= stems or len(asked & stems) < ANSWERED_SHARE * len(asked):
                continue
            here = [k for k, t in enumerate(toks) if t.stem == anchor]
            mine = [k for k, t in enumerate(toks) if t.stem in own]
            gaps = [k - j if before else j - k for j in here for k in mine]
            if any(0 < g <= _SLOT for g in gaps):
                return True
    return False


def _asking_clauses(question: str) -> list[str]:
    """The clauses of a question that ask (those with its question word), where it has any: a
    long question states facts in its other clauses ("..., New South Wales, Australia, ...
    active in which country?"), and a name given there may well be the answer."""
    clauses = re.split(r"[,;:]\s+|\s+[-–—]\s+", question)
    asking = [c for c in clauses if _ASKING.search(c)]
    return asking or clauses


def _capital_runs(text: str) -> list[str]:
    """The names of a text: runs of capitalized words and the small words that glue them."""
    runs: list[str] = []
    current: list[str] = []
    for word in re.findall(r"[\w'’.-]+|[,;:?!()\"/]", text):
        bare = word.strip(".'’")
        if bare[:1].isupper() or (bare[:1].isdigit() and current):
            current.append(bare)
        elif current and bare.lower() in _NAME_GLUE:
            current.append(bare)
        else:
            while current and current[-1].lower() in _NAME_GLUE:
                current.pop()
            if current:
                runs.append(" ".join(current))
            current = []
    if current:
        runs.append(" ".join(current))
    return runs


def _sentences(index: ContextIndex) -> list[str]:
    """The context's sentences, with sentences glued without a space ("Boston.Stanford") cut."""
    out: list[str] = []
    for sentence in index.sentences:
        out.extend(p for p in re.split(r"(?<=[a-z0-9)\]\"”])\.(?=[A-Z\"“])", sentence) if p)
    return out


def _polar(answer: str) -> str:
    words = re.findall(r"\w+", answer.lower())
    if not words or len(words) > 2:
        return ""
    if words[0] in _YES:
        return "yes"
    if words[0] in _NO:
        return "no"
    return ""


def _mentions(name: str, sentences: list[str], *, rival: str = "") -> list[str]:
    """The sentences on a thing: each that names it (by the name's rarest word in the context),
    with the sentence after it, which goes on about it ("It is a documentary ..."); those that
    open with the name first (its own sentences)."""
    words = [t.norm for t in tokens(name) if not t.is_number and len(t.norm) > 1]
    if not words:
        return []
    named = [[any(same_word(t.norm, w) for t in tokens(s)) for s in sentences] for w in words]
    counts = [sum(row) for row in named]
    if not any(counts):
        return []
    found = named[min((c, i) for i, c in enumerate(counts) if c)[1]]
    theirs = set(_mentions(rival, sentences)[:1]) if rival else set()
    out: dict[int, None] = {}

    def opens(i: int) -> bool:
        return any(same_word(t.norm, w) for t in tokens(sentences[i][:80]) for w in words)

    for i in sorted(range(len(sentences)), key=lambda i: (not opens(i), i)):
        if found[i]:
            out.setdefault(i, None)
            if i + 1 < len(sentences) and sentences[i + 1] not in theirs:
                out.setdefault(i + 1, None)
    return [sentences[i] for i in out]


# -- options -----------------------------------------------------------------------------------


def _name_run(words: list[str], *, backward: bool) -> str:
    """The name at the end (`backward`) or start of a run of words: capitalized words and the
    small words that glue a name ("Arthur's Magazine", "The Saimaa Gesture")."""
    run: list[str] = []
    seq = list(reversed(words)) if backward else words
    for w in seq:
        if backward and run and w[-1:] in ",;:":
            break  # the clause before the name
        bare = w.strip(",;:?\"'()")
        if not run and not backward and bare.lower() == "the":
            run.append(bare)
        elif bare and (bare[0].isupper() or bare[0].isdigit()):
            run.append(bare)
        elif bare.lower() in _NAME_GLUE and run:
            run.append(bare)
        else:
            break
    if backward:
        run.reverse()
    while run and run[-1].lower() in _NAME_GLUE:
        run.pop()
    while run and (run[0].lower() in _NAME_GLUE - {"the"} or _WH.fullmatch(run[0])):
        run.pop(0)
    return " ".join(run)


def _options(question: str) -> list[str]:
    """The two things a question asks to choose between ("A or B?", "between A and B")."""
    q = question.strip().rstrip("?").strip()
    between = _BETWEEN.search(q + "?")
    if between:
        return [between.group(1).strip(), between.group(2).strip()]
    parts = _OR.split(q)
    if len(parts) != 2:
        return _pair(q) if re.search(r"(?i)\bwhich one\b|\bwho\b", q) else []
    left = _name_run(parts[0].split(), backward=True)
    if not left and ", " in parts[0]:  # "Hole, the band that ... of, or The Wolfhounds"
        left = _name_run(parts[0].split(", ", 1)[1].split(), backward=False)
    right = _name_run(parts[1].split(), backward=False)
    return [left, right] if left and right else []


def _overlap(answer: str, option: str) -> int:
    """How many words an answer shares with an option, where one holds the other (0 else)."""
    a, o = content_stems(answer), content_stems(option)
    return len(a & o) if a and o and (a <= o or o <= a) else 0


def _choice(question: str, answer: str) -> tuple[str, str]:
    """The option the answer chose and the one it did not, when it chose one of the question's
    two (`("", "")` else)."""
    options = _options(question)
    if len(options) != 2:
        return "", ""
    first, second = (_overlap(answer, o) for o in options)
    if first == second:
        return "", ""
    mine, other = options if first > second else options[::-1]
    return mine, other


def _sentence(answer: str) -> bool:
    """Whether an answer is longer than a short answer (`MAX_WORDS` words)."""
    return len(re.findall(r"\w+", answer)) > MAX_WORDS


def _first_year(sentences: list[str]) -> int | None:
    """The first year of a thing's first sentence (and the one after, where an abbreviation
    such as "ca." cut it)."""
    found = _YEAR.search(" ".join(sentences[:2]))
    return int(found.group(1)) if found else None


def _read_options(question: str, answer: str, other: str, sentences: list[str]) -> Reading | None:
    mine = _mentions(answer, sentences, rival=other)
    theirs = _mentions(other, sentences, rival=answer)
    early, late = bool(_EARLY.search(question)), bool(_LATE.search(question))
    if early != late:
        a, b = _first_year(mine), _first_year(theirs)
        if a is None or b is None or a == b:
            return Reading("unsure", f"the context gives no year to order '{answer}' and '{other}'")
        right = (a < b) == early
        order = "earlier" if a < b else "later"
        return Reading(
            "yes" if right else "no",
            f"'{answer}' ({a}) comes {order} than '{other}' ({b})",
        )
    if _GRADED.search(question):  # a measure words cannot take ("closer", "more valuable")
        return Reading("unsure", f"words cannot grade '{answer}' against '{other}'")
    asked = content_stems(question) - content_stems(answer) - content_stems(other)
    have = len(asked & set().union(*map(content_stems, mine))) if mine else 0
    rival = len(asked & set().union(*map(content_stems, theirs))) if theirs else 0
    if have > rival:
        return None  # its sentences say more of what was asked: read as any statement
    if have < rival:
        return Reading("unsure", f"the sentences on '{other}' say more of what was asked")
    return Reading("unsure", f"words cannot choose between '{answer}' and '{other}'")


# -- values ------------------------------------------------------------------------------------


def _asked_words(question: str) -> set[str]:
    """The stems of what a question asks, its lower-case content words (names say what it is
    about, not what it asks): those of the clause before a closing "in what year?" or "how
    many X?", else those of the whole question ("What year did the chairman die?")."""
    q = question.strip().rstrip("?. ")
    tail = re.search(
        r"(?i)(?:,|\b(?:in|on|at|by|from|of|since|to))?\s*(?:what|which|how)\b[^,]*$", q
    )
    if tail and tail.start() > len(q) // 3:
        clause = re.split(r",|\b(?:who|that|which|whose)\b", q[: tail.start()])[-1]
        words = list(tokens(clause))
        names = [k for k, t in enumerate(words) if t.is_capital and not t.sentence_initial]
        after = words[names[-1] + 1 :] if names else []  # "Paul v. Clinton was born": born
        if not any(t.is_content for t in after):
            after = words
        found = [*after, *tokens(tail.group(0))]
    else:
        found = list(tokens(q))
    return {t.stem for t in found if t.is_content and not t.is_capital and not t.is_number}


def _life_marks(sentence: str) -> dict[int, str]:
    """A lifespan's years, as words: "(15 June 1892 – 6 February 1975)" holds a birth and a
    death."""
    marks: dict[int, str] = {}
    for paren in re.finditer(r"\(([^()]*)\)", sentence):
        years = list(_YEAR.finditer(paren.group(1)))
        glued = _GLUED_YEAR.search(paren.group(1))
        if glued and years and years[-1].start() > glued.start():  # "171217 August 1786"
            born = glued.start()
        elif len(years) >= 2 and re.search(r"[–—-]|\bto\b", paren.group(1)):
            born = years[0].start()
        else:
            continue
        marks[paren.start(1) + born] = "born"
        marks[paren.start(1) + years[-1].start()] = "die"
    return marks


def _values(text: str) -> list[tuple[int, str, str]]:
    """The numbers written in digits in a text, as `(token offset, value, unit)`: the unit is
    the word after the number ("275 years", "$268 million") or "%"; a number glued to letters
    by a hyphen ("LST-510") is a name, not a value."""
    toks = tokens(text)
    out = []
    for k, t in enumerate(toks):
        if not any(c.isdigit() for c in t.text) or not t.is_number:
            continue
        if t.start > 0 and text[t.start - 1] == "-" and text[max(0, t.start - 2)].isalpha():
            continue
        if text[t.start + len(t.text) : t.start + len(t.text) + 1] == "%":
            unit = "%"
        else:
            unit = toks[k + 1].norm if k + 1 < len(toks) and toks[k + 1].is_content else ""
        out.append((k, t.norm.lstrip("$€£"), unit))
    return out


def _read_value(question: str, answer: str, sentences: list[str]) -> Reading | None:
    """A number read as a sliding window reads it: each value of its kind in the context
    scores the words of what was asked near it (rare words more, near ones more); an answer
    another value outscores is unsure. A year a lifespan gives answers only a question of a
    birth or a death: as the answer to any other it is unsure, and it outscores no answer."""
    own = _values(answer)
    asked = _asked_words(question) - content_stems(answer)
    if not own or not asked:
        return None
    year = bool(_YEAR.fullmatch(own[-1][1]))
    unit = own[-1][2] if not year else ""
    values = {v for _, v, _ in own}
    given = {v for _, v, _ in _values(question)}
    seen: dict[str, int] = {}
    for sentence in sentences:
        for stem in {t.stem for t in tokens(sentence)}:
            seen[stem] = seen.get(stem, 0) + 1
    best: dict[str, float] = {}
    lives: set[bool] = set()  # where the answer's year stands: in a lifespan (True) or not
    life_asked = bool(asked & _LIFE_ASKED)
    for sentence in sentences:
        places: dict[str, list[int]] = {}
        marks = _life_marks(sentence)
        toks = tokens(sentence)
        for k, t in enumerate(toks):
            if t.is_content:
                places.setdefault(t.stem, []).append(k)
            if t.start in marks:
                places.setdefault(marks[t.start], []).append(k)
        for k, value, after in _values(sentence):
            life = toks[k].start in marks
            if value in values:
                lives.add(life)
            if life and not life_asked:
                continue  # a birth or a death answers no other question
            if value in given or bool(_YEAR.fullmatch(value)) != year:
                continue
            if unit and after != unit:
                continue  # another kind of value ("14 bachelor's degrees" for "85 majors")
            score = 0.0
            for stem in asked:
                near = [abs(k - j) for j in places.get(stem, ()) if abs(k - j) <= _WINDOW]
                if near:
                    rare = max(math.log((len(sentences) + 1) / (seen.get(stem, 0) + 0.5)), 0.1)
                    score += rare * (1.0 - min(near) / (_WINDOW + 1))
            best[value] = max(best.get(value, 0.0), round(score, 1))
    if year and lives == {True} and not life_asked:
        return Reading(
            "unsure", f"the context gives {answer} as a year of birth or death, not what was asked"
        )
    mine = max((best.get(v, 0.0) for v in values), default=0.0)
    rivals = {v: x for v, x in best.items() if v not in values}
    if not rivals:
        return None  # no other value of its kind: read as any statement
    rival, top = max(rivals.items(), key=lambda kv: kv[1])
    if mine >= top:
        return None  # as near what was asked as any other value: read as any statement
    return Reading("unsure", f"'{rival}' sits closer to what was asked than '{answer}'")


# -- yes or no ---------------------------------------------------------------------------------


def _read_polar(question: str, said: str, sentences: list[str]) -> Reading:
    pair = _pair(question, " ".join(sentences).lower())
    if pair:
        found = _pair_answer(question, pair, sentences)
    else:
        found = _claim_answer(question, sentences)
    if found is None:
        return Reading(
            "unsure", "words cannot tell whether the answer to the question is yes or no"
        )
    truth, why = found
    if truth == said:
        return Reading("yes", f"{said}: {why}")
    return Reading("no", f"the context answers {truth}: {why}")


def _pair(question: str, context: str = "") -> list[str]:
    """The two things a question asks about together ("Are X and Y both ..."); a name's last
    words that the context does not name with it are cut ("Kings of Leon American rock")."""
    q = question.strip().rstrip("?")
    for match in re.finditer(r"\s+and\s+", q):
        left = _name_run(q[: match.start()].split(), backward=True)
        right = _name_run(q[match.end() :].split(), backward=False).split()
        while context and len(right) > 1 and " ".join(right).lower() not in context:
            right.pop()
        if left and right:
            return [left, " ".join(right)]
    return []


def _pair_answer(question: str, pair: list[str], sentences: list[str]) -> tuple[str, str] | None:
    a = _mentions(pair[0], sentences, rival=pair[1])
    b = _mentions(pair[1], sentences, rival=pair[0])
    if not a or not b:
        return None
    same = _SAME.search(question)
    if same:
        thing = same.group(1).lower()
        values = [_attribute(thing, s[0]) for s in (a, b)]
        if not all(values):
            return None
        equal = values[0] == values[1]
        why = f"'{pair[0]}': {values[0]}, '{pair[1]}': {values[1]}"
        return ("yes" if equal else "no"), why
    if not _BOTH.search(question):
        return None
    wanted = content_stems(question) - content_stems(pair[0]) - content_stems(pair[1])
    if not wanted:
        return None
    said = [_says_all(wanted, s) for s in (a, b)]
    if all(said):
        return "yes", f"the context says it of both '{pair[0]}' and '{pair[1]}'"
    if any(said):
        missing = pair[1] if said[0] else pair[0]
        return "no", f"the context does not say it of '{missing}'"
    return None


def _says_all(wanted: set[str], sentences: list[str]) -> bool:
    """Whether a thing's sentences say what was asked of it: every word of it, or all but one
    of four or more."""
    have = [t.norm for s in sentences[:2] for t in tokens(s)]
    stems = {t.stem for s in sentences[:2] for t in tokens(s)}
    missing = [w for w in wanted if w not in stems and not any(same_word(w, h) for h in have)]
    return not missing or (len(missing) == 1 and len(wanted) >= 4)


def _attribute(thing: str, sentence: str) -> str:
    """The value a sentence gives a thing: a year; a nationality ("is an American musician");
    the name after the thing's own word ("the family Araceae"); a place ("founded in Arizona")."""
    if thing == "year":
        found = _YEAR.search(sentence)
        return found.group(1) if found else ""
    if thing in ("nationality", "citizenship", "origin"):
        found = re.search(r"\b(?:is|was|are|were) an? ([A-Z][\w-]+)", sentence)
        return found.group(1) if found else ""
    after = re.search(rf"(?i)\b{re.escape(thing)}\w*\s+(?:of\s+)?([A-Z]\w+)", sentence)
    if after:
        return after.group(1)
    if thing in ("state", "country", "city", "place", "town", "region", "location", "county"):
        found = re.search(r"\bin ([A-Z]\w+)", sentence)
        return found.group(1) if found else ""
    return ""


def _claim_answer(question: str, sentences: list[str]) -> tuple[str, str] | None:
    wanted = content_stems(question)
    if len(wanted) < 2:
        return None
    best, top = None, 0
    for k, sentence in enumerate(sentences):
        have = content_stems(sentence)
        if k and re.match(r"(?i)(?:he|she|it|they|his|her|its|their)\b", sentence):
            have |= content_stems(sentences[k - 1])  # "She won ...": the sentence before names her
        if len(wanted & have) > top:
            best, top = sentence, len(wanted & have)
    if best is None or top / len(wanted) < ANSWERED_SHARE:
        return None
    asked_negated = negation_count(list(tokens(question))) > 0
    says_negated = negation_count(list(tokens(best))) > 0
    truth = "no" if asked_negated != says_negated else "yes"
    return truth, f"one sentence holds {top} of the question's {len(wanted)} words"
