"""ROUGE-L precision, summary level, with an iterative LCS (no recursion, any segment length).

The definition follows the `rouge` 1.0.1 package used by continuous-eval (`exclusive=True`):
both texts are split into segments on `"."`, the answer's LCS words with every context segment
are pooled into one set, and precision is `|pooled words| / |distinct answer words|`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "lcs_length",
    "lcs_positions",
    "lcs_word_set",
    "rouge_l_precision",
    "rouge_segments",
    "union_lcs_length",
]

# Above this many cells a numpy table is used instead of Python lists.
_NUMPY_CELLS = 4096


def rouge_segments(text: str) -> list[list[str]]:
    """Split `text` the way `rouge` 1.0.1 does: on `"."`, then words on single spaces.

    Empty segments are dropped; a whitespace-only segment yields the single word `""`, exactly
    as in the reference implementation.

    Args:
        text: Any string.

    Returns:
        One list of words per segment.
    """
    return [" ".join(seg.split()).split(" ") for seg in text.split(".") if len(seg) > 0]


def lcs_length(pattern: Sequence[str], text: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token sequences (bit-parallel).

    Hyyrö's bit-vector algorithm with Python integers as bit sets: one pass over `text`, a few
    integer operations per token, no table, no recursion; any length.

    Args:
        pattern: The shorter sequence ideally (its length is the bit width).
        text: The other sequence.

    Returns:
        The LCS length.
    """
    if not pattern or not text:
        return 0
    masks: dict[str, int] = {}
    for i, tok in enumerate(pattern):
        masks[tok] = masks.get(tok, 0) | (1 << i)
    full = (1 << len(pattern)) - 1
    v = full
    get = masks.get
    for tok in text:
        m = get(tok)
        if m is None:
            continue
        u = v & m
        v = ((v + u) | (v - u)) & full
    return len(pattern) - bin(v).count("1")


def lcs_positions(pattern: Sequence[str], text: Sequence[str]) -> set[int]:
    """The positions of `pattern` on one longest common subsequence with `text`.

    The bit-parallel pass of `lcs_length`, keeping each step's bit vector: the LCS length of
    `pattern[:i]` and `text[:j]` is the number of zero bits among the low `i` bits of the
    `j`-th vector, which is all a backtrack needs. The path is a function of the two
    sequences alone (a match is taken first, then `pattern` is shortened first).

    Args:
        pattern: The sequence whose positions are returned (an answer sentence's words).
        text: The other sequence (a passage's words).

    Returns:
        `lcs_length(pattern, text)` positions of `pattern`.
    """
    masks: dict[str, int] = {}
    for i, tok in enumerate(pattern):
        masks[tok] = masks.get(tok, 0) | (1 << i)
    seen = [tok for tok in text if tok in masks]  # other words never change the vector
    if not seen:
        return set()
    full = (1 << len(pattern)) - 1
    vectors = [full]
    v = full
    for tok in seen:
        u = v & masks[tok]
        v = ((v + u) | (v - u)) & full
        vectors.append(v)

    def length(i: int, j: int) -> int:
        return i - (vectors[j] & ((1 << i) - 1)).bit_count()

    out: set[int] = set()
    i, j = len(pattern), len(seen)
    while i > 0 and j > 0:
        here = length(i, j)
        if pattern[i - 1] == seen[j - 1] and here == length(i - 1, j - 1) + 1:
            out.add(i - 1)
            i -= 1
            j -= 1
        elif length(i - 1, j) == here:
            i -= 1
        else:
            j -= 1
    return out


def union_lcs_length(pattern: Sequence[str], passages: Sequence[Sequence[str]]) -> int:
    """How many positions of `pattern` lie on its LCS with at least one passage.

    Summary-level ROUGE-L's union LCS (Lin, 2004), by position: the words of a sentence that
    one passage or another says in the sentence's order. A set over the passages, so their
    order does not matter; against one passage it is `lcs_length(pattern, passage)`.

    Args:
        pattern: An answer sentence's words.
        passages: Each passage's words.

    Returns:
        The union LCS length.
    """
    if len(passages) == 1:
        return lcs_length(pattern, passages[0])
    found: set[int] = set()
    for passage in passages:
        if len(found) == len(pattern):
            break
        found |= lcs_positions(pattern, passage)
    return len(found)


def lcs_word_set(x: Sequence[str], y: Sequence[str], common: set[str] | frozenset[str]) -> set[str]:
    """Return the set of words on the reference LCS path between `x` (context) and `y` (answer).

    Dynamic programming, then an iterative backtrack from the bottom-right corner: on a match go
    diagonally; otherwise move along `x` only if `T[i-1][j] > T[i][j-1]`, else along `y`.

    Args:
        x: Context segment words (table rows).
        y: Answer segment words (table columns).
        common: `set(x) & set(y)`; rows whose word is not in it are shared, not recomputed.

    Returns:
        The words on the path (a subset of `common`).
    """
    n, m = len(x), len(y)
    if n == 0 or m == 0 or not common:
        return set()
    if len(common) == 1:
        return set(common)
    if n * m > _NUMPY_CELLS and m > 32:
        return _lcs_numpy(x, y, common)
    zero = [0] * (m + 1)
    rows: list[list[int]] = [zero]
    prev = zero
    rng = range(1, m + 1)
    for xi in x:
        if xi not in common:
            rows.append(prev)  # no match in this row: identical to the previous row
            continue
        cur = [0] * (m + 1)
        left = 0
        for j in rng:
            if y[j - 1] == xi:
                left = prev[j - 1] + 1
            else:
                up = prev[j]
                if up > left:
                    left = up
            cur[j] = left
        rows.append(cur)
        prev = cur
    out: set[str] = set()
    i, j = n, m
    while i > 0 and j > 0:
        xi = x[i - 1]
        if xi == y[j - 1]:
            out.add(xi)
            i -= 1
            j -= 1
        elif rows[i - 1][j] > rows[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return out


def _lcs_numpy(x: Sequence[str], y: Sequence[str], common: set[str] | frozenset[str]) -> set[str]:
    n, m = len(x), len(y)
    vocab = {w: k for k, w in enumerate(common)}
    ycodes = np.array([vocab.get(w, -1) for w in y], dtype=np.int32)
    dtype = np.int16 if min(n, m) < 32000 else np.int32
    table = np.zeros((n + 1, m + 1), dtype=dtype)
    prev = table[0]
    for i, xi in enumerate(x, start=1):
        code = vocab.get(xi)
        if code is None:
            table[i] = prev
        else:
            cand = np.where(ycodes == code, prev[:-1] + 1, prev[1:])
            np.maximum.accumulate(cand, out=table[i, 1:])
        prev = table[i]
    out: set[str] = set()
    i, j = n, m
    while i > 0 and j > 0:
        xi = x[i - 1]
        if xi == y[j - 1]:
            out.add(xi)
            i -= 1
            j -= 1
        elif table[i - 1, j] > table[i, j - 1]:
            i -= 1
        else:
            j -= 1
    return out


def rouge_l_precision(
    answer_segments: Sequence[Sequence[str]],
    context_segments: Sequence[Sequence[str]],
    context_segment_sets: Sequence[frozenset[str]],
    context_vocab: frozenset[str],
) -> float:
    """Summary-level ROUGE-L precision of an answer sentence against the joined contexts.

    Args:
        answer_segments: `rouge_segments(sentence)`.
        context_segments: `rouge_segments(context)`.
        context_segment_sets: `frozenset` of each context segment (cached per context).
        context_vocab: Union of all context words (cached per context).

    Returns:
        Precision in [0, 1]; 0.0 when either side has no segments.
    """
    if not answer_segments or not context_segments:
        return 0.0
    answer_vocab: set[str] = set()
    for seg in answer_segments:
        answer_vocab.update(seg)
    reachable = answer_vocab & context_vocab
    if not reachable:
        return 0.0
    union: set[str] = set()
    answer_sets = [set(seg) for seg in answer_segments]
    for cseg, cset in zip(context_segments, context_segment_sets, strict=False):
        for aseg, aset in zip(answer_segments, answer_sets, strict=False):
            common = aset & cset
            if not common or common <= union:
                continue  # this pair cannot add a word to the union
            union |= lcs_word_set(cseg, aseg, common)
        if len(union) == len(reachable):
            break
    return len(union) / len(answer_vocab)
