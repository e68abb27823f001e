"""Offline NLTK resources shipped with ragjudge: Punkt English parameters and English stopwords.

The files under `ragjudge/lexical/_data/` are the NLTK `punkt_tab/english` model and the NLTK
`stopwords/english` list (as bundled in llama-index-core's `_static/nltk_cache`). They are read
from the installed package, never downloaded, and never looked up on `nltk.data.path`.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nltk.tokenize.destructive import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktSentenceTokenizer

__all__ = ["DATA_DIR", "english_stopwords", "punkt_english", "treebank_word_tokenizer"]

DATA_DIR = Path(__file__).resolve().parent / "_data"
_PUNKT_DIR = DATA_DIR / "punkt_tab" / "english"
_STOPWORDS_FILE = DATA_DIR / "stopwords" / "english"


def _lines(path: Path) -> list[str]:
    with path.open(encoding="utf-8") as f:
        return [line[:-1] if line.endswith("\n") else line for line in f]


def _require_nltk() -> None:
    try:
        import nltk  # noqa: F401
    except ImportError as exc:  # pragma: no cover - nltk is a dependency
        raise ImportError(
            "ragjudge.lexical needs `nltk` (the Punkt sentence splitter). "
            "Install it with `pip install 'nltk>=3.9.1'`."
        ) from exc


@functools.cache
def punkt_english() -> PunktSentenceTokenizer:
    """Return NLTK's Punkt sentence splitter with the English `punkt_tab` parameters.

    Equivalent to the tokenizer behind `nltk.sent_tokenize(text)` (language `"english"`), but
    loaded from the files shipped inside ragjudge, so nothing is downloaded.

    Returns:
        A shared, read-only `PunktSentenceTokenizer`.
    """
    _require_nltk()
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    params = PunktParameters()
    params.collocations = {
        tuple(line.split("\t")) for line in _lines(_PUNKT_DIR / "collocations.tab")
    }
    params.sent_starters = set(_lines(_PUNKT_DIR / "sent_starters.txt"))
    params.abbrev_types = set(_lines(_PUNKT_DIR / "abbrev_types.txt"))
    for line in _lines(_PUNKT_DIR / "ortho_context.tab"):
        word, flags = line.split("\t")
        params.ortho_context[word] = int(flags)
    return PunktSentenceTokenizer(params)


@functools.cache
def treebank_word_tokenizer() -> NLTKWordTokenizer:
    """Return the word tokenizer behind `nltk.word_tokenize` (applied per Punkt sentence)."""
    _require_nltk()
    from nltk.tokenize.destructive import NLTKWordTokenizer

    return NLTKWordTokenizer()


@functools.cache
def english_stopwords() -> frozenset[str]:
    """Return NLTK's English stopword list (the `stopwords/english` corpus file) as a set."""
    return frozenset(w.strip() for w in _lines(_STOPWORDS_FILE) if w.strip())
