"""Probes made from rows: every kind asked of every row in a seeded order, until enough."""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict
from collections.abc import Sequence

import pydantic

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._probe import Probe, Skip
from ragjudge.probing._registry import Generator, resolve_kinds
from ragjudge.probing._text import content_words

__all__ = ["KindCount", "ProbeSet", "RowPool", "generate_probes"]


class KindCount(pydantic.BaseModel):
    """How generation went for one kind.

    Attributes:
        kind: The kind.
        expect: `fail` or `pass`.
        summary: The generator's one line.
        tried: Rows the generator was asked about.
        made: Probes made.
        skipped: Rows it could make nothing of, by reason.
    """

    kind: str
    expect: str
    summary: str
    tried: int = 0
    made: int = 0
    skipped: dict[str, int] = pydantic.Field(default_factory=dict)


class ProbeSet(pydantic.BaseModel):
    """The probes made from a set of rows, with what could not be made.

    Attributes:
        probes: The probes, kind by kind.
        counts: Per kind: rows tried, probes made, rows skipped by reason.
        rows: Rows read.
        seed: The seed the order of rows was drawn with.
        per_kind: The most probes of one kind (None: as many as the rows allow).
        seconds: Time spent generating.
    """

    probes: list[Probe]
    counts: list[KindCount]
    rows: int
    seed: int
    per_kind: int | None = None
    seconds: float = 0.0

    def per_second(self) -> float:
        """Probes made per second."""
        return len(self.probes) / self.seconds if self.seconds > 0 else float("inf")


class RowPool:
    """The rows a generator may borrow from: passages and questions of other groups."""

    def __init__(self, rows: Sequence[GoldRecord]) -> None:
        self._rows = [r for r in rows if r.contexts and any(c.strip() for c in r.contexts)]
        self._words: dict[str, set[str]] = {}

    def _content(self, row: GoldRecord) -> set[str]:
        if row.id not in self._words:
            self._words[row.id] = content_words(" ".join([row.question, row.answer, *row.contexts]))
        return self._words[row.id]

    def unrelated(self, row: GoldRecord, rng: random.Random) -> GoldRecord | None:
        """A row of another group whose passages share no content word with `row`'s question
        and answer (up to 20 draws; None when none is found)."""
        if not self._rows:
            return None
        own = content_words(f"{row.question} {row.answer}")
        group = _group(row)
        for _ in range(20):
            other = self._rows[rng.randrange(len(self._rows))]
            if _group(other) == group or other.id == row.id:
                continue
            if not own & content_words(" ".join(other.contexts)):
                return other
        return None


def _group(row: GoldRecord) -> str:
    return str(row.meta.get("group_id") or row.id)


def _order(rows: Sequence[GoldRecord], *, kind: str, seed: int) -> list[GoldRecord]:
    """The rows in the order `kind` tries them: a seeded shuffle within each source, the
    sources then taken in turn (so a cap per kind is spread over the sources)."""
    by_source: dict[str, list[GoldRecord]] = defaultdict(list)
    for row in rows:
        by_source[row.source].append(row)
    queues = []
    for source in sorted(by_source):
        queue = list(by_source[source])
        random.Random(f"{seed}|{kind}|{source}").shuffle(queue)
        queues.append(queue)
    ordered: list[GoldRecord] = []
    for i in range(max((len(q) for q in queues), default=0)):
        ordered += [q[i] for q in queues if i < len(q)]
    return ordered


def _probes_of(
    gen: Generator,
    rows: Sequence[GoldRecord],
    *,
    pool: RowPool,
    seed: int,
    limit: int | None,
    per_source: int | None,
) -> tuple[list[Probe], KindCount]:
    count = KindCount(kind=gen.kind, expect=gen.expect, summary=gen.summary)
    skipped: Counter[str] = Counter()
    made: list[Probe] = []
    from_source: Counter[str] = Counter()
    seen: set[tuple[str, str, tuple[str, ...]]] = set()
    for row in _order(rows, kind=gen.kind, seed=seed):
        if limit is not None and len(made) >= limit:
            break
        if per_source is not None and from_source[row.source] >= per_source:
            continue
        count.tried += 1
        out = gen(row, rng=random.Random(f"{seed}|{gen.kind}|{row.id}"), pool=pool)
        if isinstance(out, Skip):
            skipped[out.reason] += 1
            continue
        contexts = list(out.contexts) if out.contexts is not None else list(row.contexts)
        question = row.question if out.question is None else out.question
        # One test per answer: rows that share a passage (a dialogue's turns, one page under
        # several questions) make the same edit once. A variant read with its question (it
        # names one) is one test per question and context.
        key = (
            (question, out.answer, tuple(contexts))
            if out.question is not None
            else ("", out.answer, tuple(out.contexts or ()))
        )
        if key in seen:
            skipped["same variant as another row's"] += 1
            continue
        seen.add(key)
        from_source[row.source] += 1
        made.append(
            Probe(
                id=f"{row.id}::{gen.kind}",
                kind=gen.kind,
                expect=gen.expect,
                row_id=row.id,
                source=row.source,
                group_id=_group(row),
                language=out.language,
                question=question,
                contexts=contexts,
                answer=out.answer,
                before=out.before,
                after=out.after,
            )
        )
    count.made = len(made)
    count.skipped = dict(skipped.most_common())
    return made, count


def generate_probes(
    rows: Sequence[GoldRecord],
    *,
    kinds: Sequence[str] | None = None,
    per_kind: int | None = None,
    per_source: int | None = None,
    seed: int = 0,
) -> ProbeSet:
    """Make probes of every kind (or of `kinds`) from `rows`.

    Each generator tries the rows in a seeded order (the sources taken in turn) and stops
    after `per_kind` probes; a row it can make nothing of is skipped and counted by reason,
    never faked. The same rows, kinds and seed always give the same probes.

    Args:
        rows: Rows in any form `evaluate` reads, already loaded (`ragjudge.load_gold`).
        kinds: Kinds to make (`ragjudge.probing.KINDS`), or `must_fail` / `must_pass`;
            None for every kind.
        per_kind: The most probes of one kind; None for as many as the rows allow.
        per_source: The most probes of one kind from one source (None: no such cap).
        seed: The seed of the order rows are tried in (and of every random choice).

    Returns:
        The probes and, per kind, rows tried, probes made and rows skipped by reason.

    Raises:
        ConfigurationError: For an unknown kind or a `per_kind` below 1.

    Example:
        >>> from ragjudge.data import GoldRecord
        >>> row = GoldRecord(id="r1", question="When did it open?", answer="In 2019.",
        ...     contexts=["The museum opened to visitors on 2 October 2019."])
        >>> made = generate_probes([row], kinds=["context_sentence"])
        >>> made.probes[0].answer
        'The museum opened to visitors on 2 October 2019.'
    """
    from ragjudge.exceptions import ConfigurationError

    for name, cap in (("per_kind", per_kind), ("per_source", per_source)):
        if cap is not None and cap < 1:
            raise ConfigurationError(f"`{name}` must be at least 1, got {cap}")
    generators = resolve_kinds(kinds)
    start = time.perf_counter()
    pool = RowPool(rows)
    probes: list[Probe] = []
    counts: list[KindCount] = []
    for gen in generators:
        made, count = _probes_of(
            gen, rows, pool=pool, seed=seed, limit=per_kind, per_source=per_source
        )
        probes += made
        counts.append(count)
    return ProbeSet(
        probes=probes,
        counts=counts,
        rows=len(rows),
        seed=seed,
        per_kind=per_kind,
        seconds=time.perf_counter() - start,
    )
