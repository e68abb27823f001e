"""Names and roles: a statement that puts another name, date or word in a slot of its best
passage, or gives the passage's names other roles.

The module reads the statement's tokens against the context's index (`ContextIndex`: the
sentences of the best passage, their stems, content words and names) and reports:

- a substitution: a word the context lacks where the best passage has another word in the
  same slot (the same neighbours): a swapped name, weekday or month is an entity conflict
  ("Lyon is the capital" / "Paris is the capital"), another word a word conflict ("sells hats"
  / "sells shoes");
- two names in swapped roles around a one-way verb ("Jones defeated Smith" where the passage
  says "Smith defeated Jones"), a predicate said of another name opening a passage sentence,
  a name put where the sentence saying the rest has another, another agent of the same verb
  and patient (active or passive), a swapped run of a CJK statement, a role given plainly
  where the passage qualifies it ("president" / "vice president"), and a one-holder role
  ("CEO") the context gives to another name.

`conflict` runs the substitution rule, then the role rules in order, and returns the first
note of each kind; `ragjudge.offline.features` reads them as the entity and word conflicts.

`name_elsewhere` reads the statement against every context sentence: a name the context has,
where the sentences saying the rest of the statement put another name in its slot and never
this one ("Jones said the plan would fail" against "Smith said the plan would fail"), or a
sentence the statement copies but for its name, with another name in its place ("Last year,
Sivarajah said" against "Last year, El Al said"; a whole short sentence: "Photos by Patricia
Fleming." against "Photos by Jeffrey B. Roth."; the sentence's opening name: "Peter Franklin
Paul was a civil suit filed in 2004" against "Paul v. Clinton was a civil suit filed in
2004"), or a line the context gives to another speaker ("Dave Sharma says: August 9, 2018 at
6:34 pm From the ABC ..." against a comment thread's "Adrian Jackson says:"); the offline
judge reads it as rule "name_elsewhere" (the context says the claim of someone else).

`novel_places` finds the places a statement adds: a name after "in", "at", "near" or "from"
none of whose words the context has ("the people he photographed in Düsseldorf"); the offline
judge reads them as it reads a number or a date the context lacks (rule "novel_value").
"""

from __future__ import annotations

import re
from itertools import groupby, pairwise
from typing import TYPE_CHECKING

from ragjudge.offline.claims._copied import LEAST, SIDE
from ragjudge.offline.spans import same_name
from ragjudge.offline.statements import HEDGE_RE, SPECULATIVE_RE
from ragjudge.offline.text import (
    CJK_NEGATIONS,
    Token,
    is_cjk,
    is_hangul,
    is_initial,
    stem,
    tokenize,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ragjudge.offline.index import ContextIndex

__all__ = ["conflict", "name_elsewhere", "novel_places"]


def conflict(
    index: ContextIndex,
    best: int,
    statement: str,
    tokens: list[Token],
    content: list[Token],
    in_ctx: list[bool],
) -> tuple[str, str]:
    """The name or role conflict and the word conflict of a statement against its best passage.

    Args:
        index: The context's index.
        best: The statement's best passage (-1 when none).
        statement: The statement text (read as characters for a CJK statement).
        tokens: The statement's tokens.
        content: The statement's content tokens (those the support features count).
        in_ctx: Whether the context says each of `content`.

    Returns:
        `(entity, word)`: the first swapped name, date or role ("'Berlin' where the passage
        says 'vienna'"), and the first swapped word; "" where none.
    """
    entity, word = _substitutions(index, best, tokens, in_ctx, content)
    entity = (
        entity
        or _role_swap(index, best, tokens)
        or _subject_swap(index, best, tokens)
        or _anchor_swap(index, best, tokens, content)
        or _agent_swap(index, best, tokens)
        or _cjk_swap(index, best, statement)
        or _qualified_role(index, best, tokens)
        or _role_holder(index, tokens)
    )
    return entity, word


_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_WEEKDAYS_MONTHS = _WEEKDAYS | frozenset(
    "january february march april may june july august september october november december".split()
)
_MONTH_STEMS = frozenset(stem(w) for w in _WEEKDAYS_MONTHS - _WEEKDAYS)


#: Verbs too general to be a swapped word: "became mayor" says what "was elected mayor" says.
_LIGHT_VERBS = frozenset(
    stem(w) for w in "become became get got make made take took have has had go went".split()
)
#: Auxiliaries of the passive (as stems: "were" is "wer"), and with "has"/"have"/"had" those
#: skipped when comparing the word before a swapped word ("was fired" / "resigned").
_PASSIVE_AUXILIARIES = frozenset(stem(w) for w in "is was are were be been".split())
_AUXILIARIES = _PASSIVE_AUXILIARIES | {stem(w) for w in "has have had".split()}


def _substitutions(
    index: ContextIndex, best: int, tokens: list[Token], in_ctx: list[bool], content: list[Token]
) -> tuple[str, str]:
    """Words of the statement that the context lacks, where the best passage has another word
    in the same slot (same neighbours): a swapped name/date, or a swapped word."""
    if best < 0:
        return "", ""
    novel = {t.start for t, ok in zip(content, in_ctx, strict=True) if not ok and not t.is_number}
    if not novel:
        return "", ""
    stems = [t.stem for t in tokens]
    own = set(stems)
    passage = index.passage_stems[best]
    window = index.passage_sentences[best]
    names = frozenset().union(*(index.sentence_names[k] for k in window))
    pcontent = {s for k in window for s in index.sentence_content[k]}
    entity = word = ""
    for i, token in enumerate(tokens):
        if token.start not in novel:
            continue
        left = stems[i - 1] if i > 0 else None
        if left in _AUXILIARIES and i > 1:  # "the CEO was fired" against "the CEO resigned"
            left = stems[i - 2]
        right = stems[i + 1] if i + 1 < len(stems) else None
        for j, other in enumerate(passage):
            if other in own or other not in pcontent:
                continue
            before = j - 2 if j > 1 and passage[j - 1] in _AUXILIARIES else j - 1
            l_ok = left is not None and before >= 0 and passage[before] == left
            r_ok = right is not None and j + 1 < len(passage) and passage[j + 1] == right
            is_name = (
                token.is_capital and not token.sentence_initial
            ) or token.norm in _WEEKDAYS_MONTHS
            other_name = other in names or other in _WEEKDAYS_MONTHS
            if l_ok and r_ok and _unspaced(token.norm) and _unspaced(other):
                is_name = other_name = True  # no capitals to tell: one word for another
            entity_slot = is_name and other_name and (l_ok or r_ok)
            # the statement's last word after the same content word ("sells hats" against
            # "sells shoes, bags and belts"), or after the same content word and function word
            # ("chief of oncology" against "chief of cardiology")
            end_slot = (
                right is None
                and l_ok
                and (
                    tokens[i - 1].is_content
                    or (
                        i > 1
                        and tokens[i - 2].is_content
                        and before > 0
                        and passage[before - 1] == stems[i - 2]
                    )
                )
            )
            if not (entity_slot or end_slot or (l_ok and r_ok)):
                continue
            note = f"'{token.text}' where the passage says '{other}'"
            if is_name and other_name:
                entity = entity or note
            elif token.stem not in _LIGHT_VERBS:  # "became mayor" / "was elected mayor"
                word = word or note
            break
        else:
            if token.norm in _WEEKDAYS:  # "on a Sunday" where it says "on Saturday, 3 May"
                days = {w for w in passage if w in _WEEKDAYS} - own
                if len(days) == 1:
                    entity = entity or f"'{token.text}' where the passage says '{days.pop()}'"
                    continue
            if i == 0 and right is not None:  # the subject: another word opens the sentence
                other_start = _opening_swap(index, window, own, pcontent, right)
                if other_start:
                    note = f"'{token.text}' where the passage says '{other_start}'"
                    # a name when the context also writes it capitalized inside a sentence;
                    # a month for another month ("July is the wettest" / "May is the wettest")
                    months = token.norm in _WEEKDAYS_MONTHS and other_start in _MONTH_STEMS
                    if months or (
                        token.is_capital and any(other_start in n for n in index.sentence_names)
                    ):
                        entity = entity or note
                    else:
                        word = word or note
    return entity, word


def _opening_swap(
    index: ContextIndex, window: tuple[int, ...], own: set[str], pcontent: set[str], right: str
) -> str:
    """The content word opening a passage sentence where the statement opens with another
    word before the same next word ("Lyon is the capital" against "Paris is the capital")."""
    for stems in (index.sentence_stems[k] for k in window):
        if len(stems) > 1 and stems[1] == right and stems[0] not in own and stems[0] in pcontent:
            return stems[0]
    return ""


# Verbs whose two sides can trade places without changing the claim.
_SYMMETRIC = frozenset(
    "and or with meet met marri marry wed play draw drew tie tied partner versus vs against "
    "collaborat share shar join face faced".split()
)
_ROLE_SPAN = 6  # the most tokens between the two names in the passage: one short clause
_ROLE_WORDS = 3  # ... and content words between them in the statement


def _role_swap(index: ContextIndex, best: int, tokens: list[Token]) -> str:
    """Two names on either side of the same verb, in the opposite order in the best passage
    ("Jones defeated Smith" where it says "Smith defeated Jones"); a passive on one side only
    ("Smith was defeated by Jones") keeps the meaning."""
    if best < 0:
        return ""
    names = [
        (i, t)
        for i, t in enumerate(tokens)
        if t.is_capital and t.is_content and not t.is_number and t.norm not in _WEEKDAYS_MONTHS
    ]
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            (i, first), (k, second) = names[a], names[b]
            between = [t for t in tokens[i + 1 : k] if t.is_content]
            if not 0 < len(between) <= _ROLE_WORDS or first.stem == second.stem:
                continue
            if any(t.is_capital or t.is_number or not t.norm.isalpha() for t in between):
                continue  # another name or a number between: not one verb's two sides
            verb = between[0].stem
            if verb in _SYMMETRIC or any(t.stem in _SYMMETRIC for t in tokens[i + 1 : k]):
                continue
            mine_passive = any(t.norm == "by" for t in tokens[i + 1 : k])
            for stems in (index.sentence_stems[k] for k in index.passage_sentences[best]):
                if _reversed_around(stems, second.stem, first.stem, verb, passive=mine_passive):
                    return (
                        f"'{first.text}' and '{second.text}' in swapped roles "
                        f"(the passage: {second.text} ... {between[0].text} ... {first.text})"
                    )
    return ""


_AGENT_GAP = 6  # the most tokens between a passive verb and its "by"


def _agent_swap(index: ContextIndex, best: int, tokens: list[Token]) -> str:
    """Another name doing the same thing to the same one ("Elon Musk founded Tesla" where the
    passage says "Tesla was founded in 2003 by Martin Eberhard"), in either voice on either
    side: the verb and what it is done to agree, who does it differs, and the passage never
    gives it to the statement's name."""
    capital = [t.is_capital and t.is_content and not t.is_number for t in tokens]
    if best < 0 or not any(capital):
        return ""
    stems = [t.stem for t in tokens]
    for i, verb in enumerate(tokens):
        if not verb.is_content or verb.is_capital or verb.is_number or verb.stem in _SYMMETRIC:
            continue
        mine = _agent_patient(stems, capital, i)
        if mine is None:
            continue
        agent, patient = mine
        other = ""
        for k in index.passage_sentences[best]:
            sentence = index.sentence_stems[k]
            names = index.sentence_names[k]
            flags = [s in names for s in sentence]
            for j, word in enumerate(sentence):
                if word != verb.stem:
                    continue
                theirs = _agent_patient(sentence, flags, j, patient_any=True)
                if theirs is None or not set(theirs[1]) & set(patient):
                    continue
                if same_name(theirs[0], agent, partial=True):
                    return ""  # the passage says it of the statement's name
                other = other or " ".join(theirs[0])
        if other:
            shown = dict.fromkeys(
                t.text for t, c in zip(tokens, capital, strict=True) if c and t.stem in agent
            )
            return f"'{' '.join(shown)}' where the passage says '{other}'"
    return ""


def _agent_patient(
    stems: list[str], names: list[bool], i: int, *, patient_any: bool = False
) -> tuple[list[str], list[str]] | None:
    """Who does what `stems[i]` says (a run of names) and to whom, in the active ("A founded
    P") or the passive ("P was founded (in 2003) by A"); None when either is missing. With
    `patient_any`, the patient is any word before the passive or after the active verb."""
    if i > 0 and stems[i - 1] in _PASSIVE_AUXILIARIES:
        by = next(
            (j for j in range(i + 1, min(len(stems), i + _AGENT_GAP)) if stems[j] == "by"), -1
        )
        if by < 0:
            return None
        agent = _name_run(stems, names, by + 1, step=1)
        patient = (
            stems[max(0, i - 4) : i - 1] if patient_any else _name_run(stems, names, i - 2, step=-1)
        )
    else:
        agent = _name_run(stems, names, i - 1, step=-1)
        start = i + 2 if i + 1 < len(stems) and stems[i + 1] in ("the", "a", "an") else i + 1
        patient = (
            stems[start : start + 4] if patient_any else _name_run(stems, names, start, step=1)
        )
    return (agent, patient) if agent and patient else None


def _name_run(stems: list[str], names: list[bool], start: int, *, step: int) -> list[str]:
    """The names from `start` on (step 1) or back (step -1), "and" between them included."""
    out: list[str] = []
    j = start
    while 0 <= j < len(stems) and (names[j] or (out and stems[j] == "and")):
        if names[j]:
            out.append(stems[j])
        j += step
    return out if step > 0 else out[::-1]


_SUBJECT_TAIL = 3  # content words of the predicate that must follow the other name
_SUBJECT_WORDS = 3  # ... which opens its sentence: at most this many content words before


def _subject_swap(index: ContextIndex, best: int, tokens: list[Token]) -> str:
    """The statement's predicate, said in the best passage of another name, never of its
    own ("John Park was appointed CEO in 2018" where it says "Maria Lopez was appointed CEO in
    2018; John Park became CFO"): the subject is a name the context writes, and the first
    content words after it follow another name opening a passage sentence, while no context
    sentence gives them to the statement's name."""
    if best < 0:
        return ""
    k = 0
    while k < len(tokens) and tokens[k].is_capital and tokens[k].is_content:
        if tokens[k].is_number or tokens[k].norm in _WEEKDAYS_MONTHS:
            return ""
        k += 1
    subject = {t.stem for t in tokens[:k]}
    if not any(subject & names for names in index.sentence_names):
        return ""
    tail = [t.stem for t in tokens[k:] if t.is_content][:_SUBJECT_TAIL]
    if len(tail) < _SUBJECT_TAIL:
        return ""
    other = ""
    window = index.passage_sentences[best]
    for j, content in enumerate(index.sentence_content):
        for m in range(1, len(content) - len(tail) + 1):
            if content[m] != tail[0] or content[m : m + len(tail)] != tail:
                continue
            before = content[max(0, m - _ROLE_SPAN) : m]
            if subject & set(before):
                return ""  # its own name says it (too)
            in_window = j in window
            opens = m <= _SUBJECT_WORDS  # the other name is its sentence's subject
            if in_window and opens and not other and before[-1] in index.sentence_names[j]:
                other = before[-1]
    if not other:
        return ""
    return f"'{tokens[k - 1].text}' where the passage says '{other}'"


def _anchor_swap(index: ContextIndex, best: int, tokens: list[Token], content: list[Token]) -> str:
    """A name the context has elsewhere, put where the sentence saying the rest of the
    statement has another ("Pierre Curie was born in Warsaw" where it says "Pierre Curie was
    born in Paris" and "Marie Curie was born in Warsaw"): every other content word is in that
    one sentence, and the two names share a neighbour."""
    if best < 0 or len(content) < 3:
        return ""
    wanted = {t.stem for t in content}
    window = index.passage_sentences[best]
    cover = {k: len(wanted.intersection(index.sentence_stems[k])) for k in window}
    top = max(cover.values(), default=0)
    if top != len(wanted) - 1 or top < 2:
        return ""
    stems = [t.stem for t in tokens]
    for anchor in (k for k in window if cover[k] == top):
        sentence = index.sentence_stems[anchor]
        token = next(t for t in content if t.stem not in sentence)
        if token.is_number or not token.is_capital or token.sentence_initial:
            continue
        if token.stem not in index.stems:
            continue  # absent from the context: the lexical features see it already
        i = next(n for n, t in enumerate(tokens) if t.start == token.start)
        left = stems[i - 1] if i > 0 else None
        right = stems[i + 1] if i + 1 < len(stems) else None
        names = index.sentence_names[anchor]
        flags = [s in names for s in sentence]
        capital = [t.is_capital and t.is_content and not t.is_number for t in tokens]
        mine = _name_run(stems, capital, i - 1, step=-1) + _name_run(stems, capital, i, step=1)
        for j, other in enumerate(sentence):
            if other not in names or other in wanted:
                continue
            l_ok = left is not None and j > 0 and sentence[j - 1] == left
            r_ok = right is not None and j + 1 < len(sentence) and sentence[j + 1] == right
            theirs = _name_run(sentence, flags, j - 1, step=-1) + _name_run(
                sentence, flags, j, step=1
            )
            if (l_ok or r_ok) and not same_name(mine, theirs):  # not "UK" / "United Kingdom"
                return f"'{token.text}' where the passage says '{other}'"
    return ""


def _reversed_around(
    stems: list[str], first: str, second: str, verb: str, *, passive: bool
) -> bool:
    """Whether `first ... verb ... second` occurs within one clause of a sentence's stems, in
    the same voice (a "by" between them or not, as `passive` says)."""
    for p, stem_ in enumerate(stems):
        if stem_ != first:
            continue
        for q in range(p + 2, min(len(stems), p + _ROLE_SPAN + 1)):
            if stems[q] != second:
                continue
            span = stems[p + 1 : q]
            if (
                verb in span
                and not any(s in _SYMMETRIC for s in span)
                and (("by" in span) == passive)
            ):
                return True
    return False


#: Words that make a role another one: "vice president" is not "president".
_ROLE_QUALIFIERS = frozenset(stem(w) for w in "vice deputy assistant associate".split())


def _qualified_role(index: ContextIndex, best: int, tokens: list[Token]) -> str:
    """A role the statement gives plainly where its passage only gives it qualified ("was
    elected president" against "was elected vice president")."""
    if best < 0:
        return ""
    passage = index.passage_stems[best]
    own = {t.stem for t in tokens}
    for token in tokens:
        if not token.is_content or token.is_number:
            continue
        places = [j for j, word in enumerate(passage) if word == token.stem]
        qualifiers = {passage[j - 1] if j > 0 else "" for j in places}
        if places and len(qualifiers) == 1:
            qualifier = qualifiers.pop()
            if qualifier in _ROLE_QUALIFIERS and qualifier not in own:
                return f"'{token.text}' where the passage says '{qualifier} {token.text}'"
    return ""


#: Roles one person holds at a time in an organisation: "X is the CEO" where the context gives
#: the CEO to another name is a swapped entity, not a missing word.
_ONE_HOLDER_ROLES = frozenset(
    stem(w)
    for w in "ceo cfo cto coo president chairman chairwoman chairperson captain coach mayor "
    "governor principal dean".split()
)
#: Words that may stand between a name and the role it holds ("Ibarra serves as CEO", "Park
#: was appointed the new CEO", "Lopez became president"): anything else between them ("Fox,
#: and chairman of Sky", "former CEO") and the name does not hold the role.
_ROLE_LINKS = frozenset(
    stem(w)
    for w in "serve serves served act acts acted become becomes became remain remains remained "
    "name named appoint appointed elect elected promote promoted is was are were be been has have "
    "had as the a an its their current new incumbent".split()
)


def _role_holder(index: ContextIndex, tokens: list[Token]) -> str:
    """A one-holder role ("Hoffmann is the CEO") that the context gives to another name and
    never to the statement's ("Ibarra serves as CEO, while Hoffmann is CTO")."""
    k = 0
    while k < len(tokens) and tokens[k].is_capital and tokens[k].is_content:
        k += 1
    subject = {t.stem for t in tokens[:k] if not t.is_number}
    role = next((t for t in tokens[k:] if t.stem not in _ROLE_LINKS), None)
    if not subject or role is None or role.stem not in _ONE_HOLDER_ROLES:
        return ""
    rest = {t.stem for t in tokens[tokens.index(role) + 1 :] if t.is_content}
    names = index.names
    others: list[tuple[str, int, str]] = []  # (block text, sentence, holder): first by content
    for j, stems in enumerate(index.sentence_stems):
        for m in (m for m, word in enumerate(stems) if word == role.stem):
            p = m - 1
            while p >= 0 and stems[p] in _ROLE_LINKS:
                p -= 1
            holder: list[str] = []
            while p >= 0 and stems[p] in names and stems[p] not in _ONE_HOLDER_ROLES:
                holder.insert(0, stems[p])
                p -= 1
            if subject & set(holder):
                return ""  # the context gives it to the statement's name
            block = index.sentence_block[j]
            before = j - 1 if j > 0 and index.sentence_block[j - 1] == block else j
            nearby = set(stems).union(index.sentence_stems[before])
            if holder and rest <= nearby:
                said = tokenize(index.sentences[j])
                name = next((t.text for t in said if t.stem == holder[-1]), holder[-1])
                others.append((index.blocks[block], j, name))
    if not others:
        return ""
    other = min(others)[2]
    return f"'{tokens[k - 1].text}' as {role.text} where the context gives it to '{other}'"


#: A CJK statement that says a passage sentence with one short run of characters swapped
#: ("星河电子在南昌设立了…" against "星河电子在合肥设立了…") names another place, person or thing.
_CJK_SWAP_MAX = 6
_CJK_SWAP_SHARED = 0.6


def _cjk_swap(index: ContextIndex, best: int, statement: str) -> str:
    """The swapped run of a CJK statement against a sentence of its best passage, as a note."""
    text = statement.strip().rstrip("。．.!！?？")
    if best < 0 or sum(1 for c in text if is_cjk(c)) < len(text) / 2:
        return ""
    for sentence in (index.sentences[k] for k in index.passage_sentences[best]):
        other = sentence.strip().rstrip("。．.!！?？")
        prefix = _shared(text, other)
        suffix = _shared(text[prefix:][::-1], other[prefix:][::-1])
        mine, theirs = text[prefix : len(text) - suffix], other[prefix : len(other) - suffix]
        if (
            prefix + suffix >= _CJK_SWAP_SHARED * len(text)
            and 0 < len(mine) <= _CJK_SWAP_MAX
            and 0 < len(theirs) <= _CJK_SWAP_MAX
            and _named(mine)
            and _named(theirs)
        ):
            return f"'{mine}' where the passage says '{theirs}'"
    return ""


def _shared(a: str, b: str) -> int:
    """The number of characters two strings open with alike."""
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


#: Chinese aspect and time words: "已经上市" against "可能在明年上市" is a hedge, not a name.
_CJK_ASPECT = frozenset("已经正在将会曾了")


def _named(run: str) -> bool:
    """Whether a CJK run can name something: an ideograph or katakana, and no digit (another
    number is the number rule's) or negation (the negation rule's)."""
    return (
        any(is_cjk(c) and not "\u3040" <= c <= "\u309f" for c in run)
        and not any(c.isdigit() or c in _CJK_ASPECT for c in run)
        and not any(n in run for n in CJK_NEGATIONS)
        and not HEDGE_RE.search(run)
        and not SPECULATIVE_RE.search(run)
    )


def _unspaced(word: str) -> bool:
    """A word of a script without capitals (Japanese, Chinese, Korean)."""
    return bool(word) and (is_cjk(word[0]) or is_hangul(word[0]))


#: The share of the statement's content words besides its names that a sentence must say to
#: be the sentence saying the rest; and how many it must say: all of two, or three and more.
_REST_SHARE = 0.75
_REST_ALL = 2
_REST_WORDS = 3
#: With fewer content words than `_REST_ALL` besides its names, a statement's words of every
#: kind ("we", "have", "to", ...), at least this many, must all be in the sentence.
_REST_SHORT = 5
#: Words too common to tie two names to one slot ("the Basic Law" / "the Federal Republic"),
#: and the pronoun "I", capitalized but no name.
_NO_SLOT = frozenset("the a an".split())
_FIRST_PERSON = frozenset("i i'm i'd i'll i've".split())


def name_elsewhere(index: ContextIndex, tokens: list[Token]) -> str:
    """A name of the statement that the context has, where every context sentence saying the
    rest of the statement puts another name in its slot and never has this one ("Jones said
    the plan would fail" where it says "Smith said the plan would fail" and names Jones
    elsewhere): the context says the claim, but of someone or something else.

    A name counts as said with a sentence when it is in it or in the sentence before it in the
    same block (a "he" or "she" then points back to it); the other name is in the slot when it
    has the statement name's word before it or after it.

    Args:
        index: The context's index.
        tokens: The statement's tokens.

    Returns:
        A note ("'Jones' where the sentence saying the rest says 'smith'"), or "".
    """
    stems = [t.stem for t in tokens]
    runs = _statement_names(index, tokens)
    if not runs:
        return ""
    copied = _copied_name(index, tokens, stems, runs)
    if copied:
        return copied
    named = {s for i, j in runs for s in stems[i:j]}
    whole = _anchors(index, tokens, named, range(len(tokens)))
    for i, j in runs:
        run = stems[i:j]
        if not same_name(run, run):
            continue  # titles only ("King", "President"): a role, not a name
        # the sentences saying the rest of the statement; else, in a long statement, those
        # saying the words around the name ("..., according to Jones, senior director ...")
        near = range(max(0, i - _NEAR), min(len(tokens), j + _NEAR))
        for anchors in _anchor_sets(whole, index, tokens, named, near):
            if not anchors or any(_said_with(index, k, run) for k in anchors):
                continue
            left = stems[i - 1] if i > 0 else None
            right = stems[j] if j < len(stems) else None
            for k in anchors:
                other = _name_in_slot(index, k, left, right, named)
                if other and not same_name(run, other):  # not "EU" / "European Union"
                    shown = " ".join(t.text for t in tokens[i:j])
                    return f"'{shown}' where the sentence saying the rest says '{' '.join(other)}'"
    return ""


#: The most words of a name the context puts where a copying statement puts its own.
_SLOT_WORDS = 4
#: Small words inside a name ("University of Michigan", "Leonardo da Vinci").
_NAME_LINKS = frozenset("of de da di del der van von la le and v vs".split())
#: Small words a sentence may capitalize that name no one: articles and the pronoun "I".
_NOT_NAMING = frozenset("the a an".split()) | _FIRST_PERSON


def _copied_name(
    index: ContextIndex, tokens: list[Token], stems: list[str], runs: list[tuple[int, int]]
) -> str:
    """A name a statement puts in a context sentence it otherwise copies: the `SIDE` words on
    each side of the name read alike there (as in `ragjudge.offline.claims._copied`) with
    another name between them ("Last year, Sivarajah said that a route" where the context says
    "Last year, El Al said that a route"), or, for a name that ends the statement, the
    `LEAST` words before it read alike with another name after them ("She is married to
    saxophonist Stacey Kent." where it says "She is married to saxophonist Jim Tomlinson"), or,
    for a statement that is a whole sentence of the context but for its name, two words at
    least ("Photos by Patricia Fleming." where it says "Photos by Jeffrey B. Roth."), or the
    name's "says" with the words after it, said after another name (`_copied_speaker`), or,
    for a name that opens the statement, more words after it that another name opens a
    sentence with (`_copied_first`).
    The context's name may be small words it writes with capitals ("El Al"). Nothing is read
    where the context says the name beside either side too ("the House of Lancaster" and "the
    House of York"), where the statement's words around the name cross a sentence or a
    question ("... in Los Angeles? → Todd Phillips"), where the two names may be one ("EU" /
    "European Union"), or, at the statement's end, where the sentence names it as well (one of
    a list: "tries from Jonny May, Marshall and Purdy").

    Args:
        index: The context's index (`spaced_stems`).
        tokens: The statement's tokens.
        stems: Their stems.
        runs: The statement's names (`_statement_names`).

    Returns:
        A note ("'Sivarajah' where the sentence it copies says 'el al'"), or "".
    """
    for i, j in runs:
        note = (
            _copied_between(index, tokens, stems, i, j)
            or _copied_last(index, tokens, stems, i, j)
            or _copied_speaker(index, tokens, stems, i, j)
            or _copied_first(index, tokens, stems, i, j)
        )
        if note:
            return note
    return ""


def _copied_between(
    index: ContextIndex, tokens: list[Token], stems: list[str], i: int, j: int
) -> str:
    """`_copied_name` of the name at `tokens[i:j]`, read with words on both sides."""
    run = stems[i:j]
    lo, hi = max(0, i - SIDE), min(len(tokens), j + SIDE)
    before, after = " ".join(stems[lo:i]), " ".join(stems[j:hi])
    if not (before and after) or hi - lo - (j - i) < LEAST or not _one_clause(tokens[lo:hi]):
        return ""
    mine = " ".join(run)
    if f" {before} {mine} " in index.spaced_stems or f" {mine} {after} " in index.spaced_stems:
        return ""
    slot = f"((?:\\S+ ){{0,{_SLOT_WORDS - 1}}}\\S+)"
    pattern = re.compile(f" {re.escape(before)} {slot} {re.escape(after)} ")
    for found in pattern.finditer(index.spaced_stems):
        theirs = found.group(1).split()
        if len(theirs) > 1 and theirs[0] in _NO_SLOT:
            theirs = theirs[1:]  # "according to the Guardian": the name after its article
        k = index.spaced_stems.count("\n", 0, found.start())
        if set(theirs) & set(run) or same_name(run, theirs):
            continue  # one name, or one written in short ("EU" / "European Union")
        if not _name_words(index, k).issuperset(theirs):
            continue
        return _copied_note(tokens[i:j], index, k, theirs)
    return ""


def _copied_last(index: ContextIndex, tokens: list[Token], stems: list[str], i: int, j: int) -> str:
    """`_copied_name` of the name at `tokens[i:j]` that ends the statement, read with the words
    before it."""
    # fewer words where the statement is a whole sentence of the context but for its name
    # ("Photos by Patricia Fleming." where it says "Photos by Jeffrey B. Roth.")
    whole = 2 <= i < LEAST
    lo = max(0, i - LEAST)
    if j < len(tokens) or not (i >= LEAST or whole) or not _one_clause(tokens[lo:j]):
        return ""
    run, before = stems[i:j], " ".join(stems[lo:i])
    if f" {before} {' '.join(run)} " in index.spaced_stems:
        return ""
    start = "(?:^|\\n) " if whole else " "
    for found in re.finditer(f"{start}{re.escape(before)} ([^\\n]*)", index.spaced_stems):
        k = index.spaced_stems.count("\n", 0, found.start(1))
        if run[-1] in index.sentence_stems[k]:
            continue  # the sentence names it too: one of a list, or an apposition
        rest = found.group(1).split()
        theirs = _leading_name(index, k, rest)
        if whole and theirs != rest:
            continue  # the sentence goes on after its name
        if theirs and theirs[-1] != run[-1] and not same_name(run, theirs):
            return _copied_note(tokens[i:j], index, k, theirs)
    return ""


#: The words after a name that opens the statement that must read alike after another name
#: opening a context sentence: more than inside a sentence, for a statement's first name is
#: often one its extraction put for a pronoun.
_FIRST_WORDS = 6


def _copied_first(
    index: ContextIndex, tokens: list[Token], stems: list[str], i: int, j: int
) -> str:
    """`_copied_name` of a name that opens the statement, read with the `_FIRST_WORDS` words after
    it, where another name opens a context sentence before them ("Peter Franklin Paul was a
    civil suit filed in 2004" where it says "Paul v. Clinton was a civil suit filed in 2004")."""
    after = stems[j : j + _FIRST_WORDS]
    if i or len(after) < _FIRST_WORDS or not _one_clause(tokens[: j + _FIRST_WORDS]):
        return ""
    run, rest = stems[i:j], " ".join(after)
    if f" {' '.join(run)} {rest} " in index.spaced_stems:
        return ""
    for k, slot in _lines_before(index, re.compile(f"(?= {re.escape(rest)} )")):
        if (
            not slot
            or run[-1] in index.sentence_stems[k][len(slot) :]
            or _leading_name(index, k, slot) != slot
        ):
            continue  # the sentence names it too, or no name opens it
        if not same_name(run, slot):
            return _copied_note(tokens[i:j], index, k, slot)
    return ""


#: Verbs that give a line to its speaker or writer, as stems ("writes" reads as "author").
_SPEAKING = frozenset("say said comment answer author".split())


def _copied_speaker(
    index: ContextIndex, tokens: list[Token], stems: list[str], i: int, j: int
) -> str:
    """`_copied_name` of a name said to say what the context gives to another: the name's "says"
    and the words after it (`LEAST` at least, twice as many where the statement has them) read
    alike in the context, line breaks aside, after another name ("Dave Sharma says: August 9,
    2018 at 6:34 pm From the ABC" where a comment thread has "Adrian Jackson says:", a line
    "August 9, 2018 at 6:34 pm" and "From the ABC ...")."""
    after = stems[j + 1 : j + 1 + 2 * LEAST]
    if j >= len(tokens) or stems[j] not in _SPEAKING or len(after) < LEAST:
        return ""
    run = stems[i:j]
    said = r"[ \n]+".join(map(re.escape, [stems[j], *after]))
    if re.search(f" {re.escape(' '.join(run))} {said} ", index.spaced_stems):
        return ""
    for k, before in _lines_before(index, re.compile(f" {said} ")):
        theirs = _speaker(index, k, before)
        if theirs and not set(theirs) & set(run) and not same_name(run, theirs):
            return _copied_note(tokens[i:j], index, k, theirs)
    return ""


def _lines_before(index: ContextIndex, found: re.Pattern[str]) -> Iterator[tuple[int, list[str]]]:
    """Each place a pattern matches in the context's spaced stems, as its sentence and the stems
    of that sentence before it."""
    spaced = index.spaced_stems
    for match in found.finditer(spaced):
        at = match.start()
        line = spaced.rfind("\n", 0, at) + 1
        yield spaced.count("\n", 0, line), spaced[line:at].split()


def _speaker(index: ContextIndex, k: int, words: list[str]) -> list[str]:
    """The capitalized words (as stems) that end `words`, the stems of sentence `k` before its
    "says": its speaker, whose name may open the line ("Charles Everett says")."""
    caps = {t.stem for t in tokenize(index.sentences[k]) if t.is_capital and t.is_content}
    n = len(words)
    while n and words[n - 1] in caps:
        n -= 1
    return words[n:]


def _leading_name(index: ContextIndex, k: int, words: list[str]) -> list[str]:
    """The name that `words` (stems of sentence `k`) open with, small words between two of its
    words included ("University of Michigan"); [] where they open with none."""
    named = _name_words(index, k)
    name: list[str] = []
    for n, word in enumerate(words):
        linking = word in _NAME_LINKS and bool(name) and n + 1 < len(words)
        if not (word in named or (linking and words[n + 1] in named)):
            break
        name.append(word)
    return name


def _copied_note(tokens: list[Token], index: ContextIndex, k: int, theirs: list[str]) -> str:
    """The note of a name put where sentence `k` has `theirs` (stems), both as written."""
    written = {t.stem: t.text for t in reversed(tokenize(index.sentences[k]))}
    shown = " ".join(written.get(w, w) for w in theirs)
    return f"'{' '.join(t.text for t in tokens)}' where the sentence it copies says '{shown}'"


def _one_clause(tokens: list[Token]) -> bool:
    """Whether consecutive tokens stand in one sentence with at most a comma between two (no
    new sentence, question mark or arrow)."""
    return not any(
        b.sentence_initial or b.start - (a.start + len(a.text)) > 2 for a, b in pairwise(tokens)
    )


def _name_words(index: ContextIndex, k: int) -> frozenset[str]:
    """The stems context sentence `k` writes as names: its names, and small words it capitalizes
    inside it ("El Al"), articles, "I", weekdays and months aside (a date is the date rules')."""
    caps = {t.stem for t in tokenize(index.sentences[k]) if t.is_capital and not t.sentence_initial}
    return (_names_of(index, k) | (caps - _NOT_NAMING)) - _WEEKDAYS_MONTHS - _MONTH_STEMS


#: The words on each side of a name that a long statement's local anchors are read from.
_NEAR = 8


def _anchor_sets(
    whole: list[int], index: ContextIndex, tokens: list[Token], named: set[str], near: range
) -> Iterator[list[int]]:
    """The anchors of the whole statement, then, in a long statement and only when asked for,
    those of the words `near` a name."""
    yield whole
    if len(tokens) > 2 * _NEAR:
        yield _anchors(index, tokens, named, near)


def _anchors(index: ContextIndex, tokens: list[Token], named: set[str], span: range) -> list[int]:
    """The context sentences that say the words of `span` besides its names (the statement's
    rest, `_REST_SHARE` of them and `_REST_WORDS` at least), or [] where none does."""
    rest = {tokens[k].stem for k in span if tokens[k].is_content and tokens[k].stem not in named}
    short = len(rest) < _REST_ALL
    if short:  # a quote of small words ("We have to do it now," Casey said): all its words
        rest = {tokens[k].stem for k in span if tokens[k].stem not in named}
        if len(rest) < _REST_SHORT:
            return []
    said = [len(rest.intersection(sentence)) for sentence in index.sentence_stems]
    top = max(said, default=0)
    if short and top < len(rest):
        return []
    if top < _REST_SHARE * len(rest) or top < min(len(rest), _REST_WORDS):
        return []
    return [k for k, n in enumerate(said) if n == top]


def _name_in_slot(
    index: ContextIndex, k: int, left: str | None, right: str | None, named: set[str]
) -> list[str]:
    """A run of names of sentence `k`, not all of them the statement's, with `left` before it
    or `right` after it (neither an article nor the statement's edge); [] where none."""
    sentence = index.sentence_stems[k]
    names = _names_of(index, k) - _WEEKDAYS_MONTHS - _FIRST_PERSON
    j = 0
    while j < len(sentence):
        end = j
        while end < len(sentence) and sentence[end] in names:
            end += 1
        if end == j:
            j += 1
            continue
        before = sentence[j - 1] if j > 0 else None
        after = sentence[end] if end < len(sentence) else None
        if not set(sentence[j:end]) <= named and (_ties(left, before) or _ties(right, after)):
            return sentence[j:end]
        j = end
    return []


def _ties(mine: str | None, theirs: str | None) -> bool:
    """Whether a word beside the statement's name and one beside a passage name are one word
    that ties the two to one slot."""
    return mine is not None and mine not in _NO_SLOT and mine == theirs


def _said_with(index: ContextIndex, k: int, run: list[str]) -> bool:
    """Whether sentence `k`, or the sentence before it in its block, names `run`: a run of names
    there shares a word with it, titles aside ("Smith" for "John Smith", not "Mayor Helen
    Brandt" for "Mayor Oskar Lind"), or is its initials ("EU" for "European Union")."""
    near = [k - 1, k] if k > 0 and index.sentence_block[k - 1] == index.sentence_block[k] else [k]
    return any(
        same_name(run, theirs, partial=True) and not _given_only(run, theirs)
        for m in near
        for theirs in _name_runs(index.sentence_stems[m], _names_of(index, m))
    )


def _given_only(run: list[str], theirs: list[str]) -> bool:
    """Whether two runs share only the first word of the statement's longer name: a given name
    ("Tim Shipman" / "Sunday Times", "John Smith" / "John Brown") names no one person."""
    return len(run) > 1 and set(run) & set(theirs) == {run[0]}


def _names_of(index: ContextIndex, k: int) -> frozenset[str]:
    """The names of sentence `k`, its first word included where the context writes that word
    as a name inside a sentence ("Lind later spoke ...")."""
    stems = index.sentence_stems[k]
    first = frozenset(stems[:1]) & index.names
    return index.sentence_names[k] | first


def _name_runs(stems: list[str], names: frozenset[str]) -> list[list[str]]:
    """The runs of consecutive names of a sentence's stems."""
    return [list(run) for is_name, run in groupby(stems, key=names.__contains__) if is_name]


def _statement_names(index: ContextIndex, tokens: list[Token]) -> list[tuple[int, int]]:
    """The runs of names (token spans) of the statement that the context has: capitalized
    content words (not numbers, weekdays or months) with nothing but a space between them,
    all in the context and one at least written there as a name. The statement's first word
    counts where the context writes it as a name or a name follows it ("Richard Newby")."""
    flags = [_name_word(index, tokens, i) for i in range(len(tokens))]
    for i in range(1, len(tokens) - 1):  # an initial between two words of a name
        if is_initial(tokens[i].text) and flags[i - 1] and flags[i + 1]:
            flags[i] = True
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(tokens):
        if not flags[i]:
            i += 1
            continue
        j = i + 1
        while j < len(tokens) and flags[j] and _adjacent(tokens[j - 1], tokens[j]):
            j += 1
        run = [t.stem for t in tokens[i:j] if not is_initial(t.text)]
        if all(s in index.stems for s in run) and any(s in index.names for s in run):
            runs.append((i, j))
        i = j
    return runs


def _name_word(index: ContextIndex, tokens: list[Token], i: int) -> bool:
    """Whether `tokens[i]` can be a word of a name (see `_statement_names`)."""
    token = tokens[i]
    if not (token.is_capital and token.is_content) or token.is_number:
        return False
    if token.norm in _WEEKDAYS_MONTHS or token.norm in _FIRST_PERSON:
        return False
    if not token.sentence_initial or token.stem in index.names:
        return True
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    return after is not None and after.is_capital and after.is_content and not after.is_number


def _adjacent(a: Token, b: Token) -> bool:
    """Whether one space at most stands between two tokens, or an initial's stop and a space
    (no comma: "Mike McMahon, Pat Mills" are two names; "Gerald R. Ford" is one)."""
    return b.start - (a.start + len(a.text)) <= (2 if is_initial(a.text) else 1)


#: The words that put a place (or an organization) where or whence something happened.
_PLACING = frozenset("in at near from".split())


def novel_places(tokens: list[Token], novel: set[int]) -> list[str]:
    """The places a statement adds: a name after "in", "at", "near" or "from" (with "the" or
    not) whose every content word is novel, so the context names it nowhere ("won in Turin").

    Args:
        tokens: The statement's tokens (`tokenize`).
        novel: The `start` of each content token the context lacks.

    Returns:
        Each such name as written, in order.

    Example:
        >>> from ragjudge.offline.text import tokenize
        >>> tokens = tokenize("She sang the aria in New Orleans.")
        >>> novel_places(tokens, {t.start for t in tokens if t.text in ("New", "Orleans")})
        ['New Orleans']
        >>> novel_places(tokens, {t.start for t in tokens if t.text == "Orleans"})
        []
    """
    places: list[str] = []
    for i, token in enumerate(tokens[:-1]):
        if token.norm not in _PLACING:
            continue
        j = i + 1
        if tokens[j].norm == "the" and j + 1 < len(tokens):
            j += 1
        run: list[Token] = []
        while (
            j < len(tokens)
            and tokens[j].is_capital
            and not tokens[j].is_number
            and not tokens[j].sentence_initial
            and _adjacent(tokens[j - 1], tokens[j])
        ):
            run.append(tokens[j])
            j += 1
        # "Las Vegas", "São Paulo": "Las" and "São" are no content words
        named = [t for t in run if t.is_content]
        if named and all(t.start in novel for t in named):
            places.append(" ".join(t.text for t in run))
    return places
