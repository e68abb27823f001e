"""The probe generators: one per kind, registered by name with the verdict it must get.

A generator is a function `(row, *, rng, pool) -> Variant | Skip`. It reads words only
(`ragjudge.probing._text`, `ragjudge.probing._lexicon`) and knows nothing of any judge: the probe
package imports no judge internals (`tests/probing/test_independence.py`), so a blind spot in a
judge's parsing cannot hide its own probes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._probe import Expect, Skip, Variant

__all__ = ["GENERATORS", "ORDER", "Generator", "Pool", "generator", "kinds", "resolve_kinds"]


class Pool(Protocol):
    """The other rows a generator may borrow from (an unrelated passage, another question)."""

    def unrelated(self, row: GoldRecord, rng: random.Random) -> GoldRecord | None:
        """A row of another group that shares (almost) no content word with `row`."""
        ...


Make = Callable[..., "Variant | Skip"]


@dataclass(frozen=True)
class Generator:
    """One kind of probe.

    Attributes:
        kind: Its name (`number_value`, ...).
        expect: `fail` (must-fail: the variant is unfaithful) or `pass` (must-pass).
        summary: One line for the capability table and the docs.
        make: The function that makes a variant of a row.
    """

    kind: str
    expect: Expect
    summary: str
    make: Make

    def __call__(self, row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
        return self.make(row, rng=rng, pool=pool)


#: The order of the capability table: what an answer says (values, then words, then names and
#: structure, then the context and the question), must-fail kinds before must-pass ones.
ORDER = (
    "number_value", "date", "unit", "direction", "negation", "quantifier", "modality",
    "comparison", "causal", "entity_substitution", "role_swap", "attribution",
    "dropped_condition", "added_detail", "wrong_context", "short_answer_wrong",
    "false_abstention",
    "context_sentence", "number_format", "date_format", "clause_order", "split_merge",
    "synonym", "list_subset", "arithmetic", "abstention", "short_answer_right",
)  # fmt: skip

#: Every registered generator, by kind, in registration order (`kinds()` lists the
#: must-fail kinds first).
GENERATORS: dict[str, Generator] = {}


def generator(*, kind: str, expect: Expect, summary: str) -> Callable[[Make], Make]:
    """Register a generator function under `kind`.

    Example:
        >>> @generator(kind="doc_example", expect="pass", summary="the answer itself")
        ... def _same(row, *, rng, pool):
        ...     return Variant(answer=row.answer, before=row.answer, after=row.answer)
        >>> GENERATORS.pop("doc_example").expect
        'pass'
    """

    def register(make: Make) -> Make:
        if kind in GENERATORS:
            raise ValueError(f"probe kind {kind!r} is registered twice")
        GENERATORS[kind] = Generator(kind=kind, expect=expect, summary=summary, make=make)
        return make

    return register


def kinds(*, expect: Expect | None = None) -> list[str]:
    """The registered kinds (all generators imported), optionally only those of one `expect`."""
    import ragjudge.probing.generators  # noqa: F401  (registers every generator)

    rank = {kind: i for i, kind in enumerate(ORDER)}
    ordered = sorted(  # stable: kinds registered elsewhere come last, as registered
        GENERATORS.values(), key=lambda g: (g.expect == "pass", rank.get(g.kind, len(ORDER)))
    )
    return [g.kind for g in ordered if expect is None or g.expect == expect]


def resolve_kinds(names: Sequence[str] | None) -> list[Generator]:
    """The generators named (every one when `names` is None or empty); `must_fail` and
    `must_pass` name a whole side.

    Raises:
        ConfigurationError: For a name that is no kind.
    """
    from ragjudge.exceptions import ConfigurationError

    every = kinds()
    if not names:
        return [GENERATORS[k] for k in every]
    chosen: list[str] = []
    for name in names:
        if name in ("must_fail", "must_pass"):
            side = kinds(expect="fail" if name == "must_fail" else "pass")
            chosen += [k for k in side if k not in chosen]
        elif name in GENERATORS:
            if name not in chosen:
                chosen.append(name)
        else:
            raise ConfigurationError(
                f"`kinds`: unknown probe kind {name!r}; choose from must_fail, must_pass, "
                + ", ".join(every)
            )
    return [GENERATORS[k] for k in chosen]
