"""`DeterministicFaithfulness`: ROUGE-L / token overlap / BLEU faithfulness, no LM."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, get_args

from ragjudge.exceptions import ConfigurationError
from ragjudge.lexical._scorer import Compat, SentenceScorer, SentenceScores, Variant

__all__ = ["DeterministicFaithfulness", "Row"]

logger = logging.getLogger(__name__)

Row = tuple[str, Sequence[str]] | Mapping[str, Any]

_RESULT_KEYS = (
    "rouge_faithfulness",
    "token_overlap_faithfulness",
    "bleu_faithfulness",
    "rouge_p_by_sentence",
    "token_overlap_p_by_sentence",
    "bleu_score_by_sentence",
)


def _passages(contexts: str | Sequence[str] | None) -> tuple[str, ...]:
    if contexts is None:
        return ()
    if isinstance(contexts, str):
        return (contexts,)
    items = tuple(contexts)
    for k, c in enumerate(items):
        if not isinstance(c, str):
            raise TypeError(f"`contexts[{k}]` must be a str. Got {type(c).__name__}.")
    return items


def _row_pair(row: Row, index: int) -> tuple[str, tuple[str, ...]]:
    if isinstance(row, Mapping):
        if "answer" not in row:
            raise ValueError(f"Row {index} has no `answer` field.")
        answer, contexts = row["answer"], row.get("contexts", row.get("context"))
    else:
        try:
            answer, contexts = row
        except (TypeError, ValueError):
            raise TypeError(
                f"Row {index} must be an `(answer, contexts)` tuple or a mapping with `answer` "
                f"and `contexts`. Got {type(row).__name__}."
            ) from None
    if not isinstance(answer, str):
        raise TypeError(f"Row {index}: `answer` must be a str. Got {type(answer).__name__}.")
    return answer, _passages(contexts)


# Worker-process state (one scorer per process, so each worker keeps its own context cache).
_WORKER: dict[str, SentenceScorer] = {}


def _worker_init(compat: Compat, variant: Variant) -> None:
    _WORKER["scorer"] = SentenceScorer(compat=compat, variant=variant)


def _worker_score(pairs: list[tuple[str, tuple[str, ...]]]) -> list[SentenceScores]:
    return _WORKER["scorer"].score_many(pairs)


class DeterministicFaithfulness:
    """Faithfulness from ROUGE-L precision, token overlap and BLEU; no LM, fully reproducible.

    Each answer sentence (NLTK Punkt, English) is scored against the contexts. The order of
    the passages changes no score, except with `compat="continuous-eval"`, which reproduces
    continuous-eval float for float and so scores against the passages joined with `"\\n"` in
    their order, as it does (see `SentenceScorer`). A sentence counts as faithful for a score
    when the score is >= `threshold`;
    `rouge_faithfulness` and `token_overlap_faithfulness` are the fraction of faithful
    sentences, `bleu_faithfulness` is the plain mean of the sentence BLEU scores.

    Modes:
        - `compat="reference"` (default): the definition's original form. ROUGE-L precision
          (summary level, `"."` segments, case-sensitive words), token overlap over
          lower-cased word tokens (`\\w+`, every other non-space character its own token:
          punctuation kept, no stopword removal;
          `|distinct sentence tokens in context| / |distinct sentence tokens|`), and NLTK
          `sentence_bleu` on raw strings (characters, unsmoothed).
        - `compat="continuous-eval"`: reproduces continuous-eval 0.3.14.post2 float for float:
          token overlap drops NLTK English stopwords, deletes ASCII punctuation, splits
          contractions and reads numbers as floats.
        - `variant="words"`: ragjudge's better variant over lower-cased content words
          (`\\w+` words minus NLTK English stopwords): ROUGE-L precision of the sentence
          against the passages (union LCS length over them / sentence length, bit-parallel,
          any length; against one passage its LCS),
          token overlap (distinct content words found in the context), and word-level BLEU
          (1-4 grams, NLTK `method1`-style smoothing, no brevity penalty).

    Where the reference breaks, this class returns defined results: an empty or
    whitespace-only answer gives `0.0` for the three aggregates and empty lists; empty
    contexts give `0.0` for every sentence score; segments of any length work (iterative LCS).

    Args:
        compat: `"reference"` or `"continuous-eval"`.
        variant: `"default"` or `"words"` (`"words"` requires `compat="reference"`).
        threshold: Per-sentence faithfulness threshold for ROUGE-L and token overlap.

    Example:
        >>> m = DeterministicFaithfulness()
        >>> r = m(answer="William Shakespeare wrote 'Romeo and Juliet'. He is born in Ireland",
        ...       contexts=["William Shakespeare is the author of 'Romeo and Juliet'."])
        >>> r["rouge_faithfulness"], r["token_overlap_p_by_sentence"]
        (0.5, [0.875, 0.2])
    """

    def __init__(
        self,
        *,
        compat: Compat = "reference",
        variant: Variant = "default",
        threshold: float = 0.5,
    ) -> None:
        if compat not in get_args(Compat):
            raise ConfigurationError(
                "The `compat` parameter of DeterministicFaithfulness must be one of "
                f"{list(get_args(Compat))}. Got {compat!r} instead."
            )
        if variant not in get_args(Variant):
            raise ConfigurationError(
                "The `variant` parameter of DeterministicFaithfulness must be one of "
                f"{list(get_args(Variant))}. Got {variant!r} instead."
            )
        if variant == "words" and compat != "reference":
            raise ConfigurationError(
                "`variant='words'` is ragjudge's own definition and has no compat mode; "
                "use `DeterministicFaithfulness(variant='words')`."
            )
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise ConfigurationError(
                "The `threshold` parameter of DeterministicFaithfulness must be a float. "
                f"Got {threshold!r} instead."
            )
        self.compat: Compat = compat
        self.variant: Variant = variant
        self.threshold = float(threshold)
        self._scorer = SentenceScorer(compat=compat, variant=variant)

    def get_params(self) -> dict[str, Any]:
        """Return the constructor arguments (JSON-able)."""
        return {"compat": self.compat, "variant": self.variant, "threshold": self.threshold}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"DeterministicFaithfulness({args})"

    def _finish(self, s: SentenceScores) -> dict[str, Any]:
        rouge = s["rouge_p_by_sentence"]
        overlap = s["token_overlap_p_by_sentence"]
        bleu = s["bleu_score_by_sentence"]
        n = len(rouge)
        t = self.threshold
        return {
            "rouge_faithfulness": sum(p >= t for p in rouge) / n if n else 0.0,
            "token_overlap_faithfulness": sum(p >= t for p in overlap) / n if n else 0.0,
            "bleu_faithfulness": sum(bleu) / n if n else 0.0,
            "rouge_p_by_sentence": rouge,
            "token_overlap_p_by_sentence": overlap,
            "bleu_score_by_sentence": bleu,
        }

    def __call__(self, *, answer: str, contexts: Sequence[str]) -> dict[str, Any]:
        """Score one answer.

        Args:
            answer: The generated answer.
            contexts: The retrieved passages (a single string is taken as one passage).

        Returns:
            A dict with exactly the six keys `rouge_faithfulness`, `token_overlap_faithfulness`,
            `bleu_faithfulness`, `rouge_p_by_sentence`, `token_overlap_p_by_sentence`,
            `bleu_score_by_sentence`.

        Raises:
            TypeError: If `answer` or a context is not a string.
        """
        a, c = _row_pair((answer, contexts), 0)
        return self._finish(self._scorer.score(answer=a, context=c))

    def batch(self, rows: Iterable[Row], *, workers: int = 1) -> list[dict[str, Any]]:
        """Score many rows; results come back in input order.

        Context processing (segmentation, tokens, n-gram counts) is cached across sentences and
        rows, so rows that share a document are much cheaper. With `workers > 1` rows are
        grouped by context and scored in that many processes.

        Args:
            rows: `(answer, contexts)` tuples or mappings with `answer` and `contexts`.
            workers: Number of processes (`1` scores in this process; `0` or less means
                `os.cpu_count()`).

        Returns:
            One result dict per row (see `__call__`), in input order.
        """
        pairs = [_row_pair(r, k) for k, r in enumerate(rows)]
        if workers <= 0:
            workers = os.cpu_count() or 1
        if workers == 1 or len(pairs) < 2 * workers:
            return [self._finish(s) for s in self._scorer.score_many(pairs)]
        # Group rows by context so each worker's cache sees repeated documents.
        order = sorted(range(len(pairs)), key=lambda k: (pairs[k][1], k))
        n_chunks = workers * 8
        size = -(-len(order) // n_chunks)
        chunks = [order[i : i + size] for i in range(0, len(order), size)]
        results: list[SentenceScores | None] = [None] * len(pairs)
        with ProcessPoolExecutor(
            max_workers=workers, initializer=_worker_init, initargs=(self.compat, self.variant)
        ) as pool:
            for chunk, scored in zip(
                chunks,
                pool.map(_worker_score, [[pairs[k] for k in ch] for ch in chunks]),
                strict=False,
            ):
                for k, s in zip(chunk, scored, strict=False):
                    results[k] = s
        return [self._finish(s) for s in results if s is not None]
