"""Word lists several generators share, per language (`en`, `de`, `fr`, `es`).

A list that only one generator reads lives in that generator's module.
"""

from __future__ import annotations

__all__ = ["MONTHS", "month_number"]

#: Month names by language, January first (lowercase; a generator keeps the text's casing).
MONTHS: dict[str, tuple[str, ...]] = {
    "en": (
        "january", "february", "march", "april", "may", "june",
        "july", "august", "september", "october", "november", "december",
    ),
    "de": (
        "januar", "februar", "märz", "april", "mai", "juni",
        "juli", "august", "september", "oktober", "november", "dezember",
    ),
    "fr": (
        "janvier", "février", "mars", "avril", "mai", "juin",
        "juillet", "août", "septembre", "octobre", "novembre", "décembre",
    ),
    "es": (
        "enero", "febrero", "marzo", "abril", "mayo", "junio",
        "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre",
    ),
}  # fmt: skip


def month_number(word: str, lang: str | None = None) -> int | None:
    """The month (1-12) `word` names in `lang` (any covered language when None)."""
    lowered = word.lower()
    for code, months in MONTHS.items():
        if (lang is None or code == lang) and lowered in months:
            return months.index(lowered) + 1
    return None
