"""Causality: a statement that makes a cause of what the aligned context sentence only links
("pollutants have caused asthma" where the passage says they "have been connected to" it;
"his rhetoric has caused a rise in attacks" where it "has coincided with" one). Such a claim is
surer than its passage, and the verdict is no, as for a hedge stated as certain
(`ragjudge.offline.model.offline_verdict`): the statement is not to be inferred from the
passage, which says a link and no more."""

from __future__ import annotations

import re

__all__ = ["conflict"]

_CAUSE = re.compile(
    r"(?i)\b(?:caus(?:e|es|ed|ing)|led to|leads? to|leading to|result(?:s|ed)? in|"
    r"responsible for|because of|due to|trigger(?:s|ed)?|produc(?:e|es|ed)|"
    r"verursach\w*|führte zu|führt zu|auslös\w*|caus[ée]\w*|provoqu\w*|entraîn\w*|"
    r"caus[óa]\w*|provoc[óa]\w*|ocasion\w*)\b"
)
_LINK = re.compile(
    r"(?i)\b(?:associated with|linked (?:to|with)|connected (?:to|with)|correlated with|"
    r"correlates with|coincided with|coincides with|related to|tied to|accompanied by|"
    r"in line with|association with|link (?:to|with|between)|correlation|"
    r"verbunden mit|in zusammenhang mit|zusammenhängen|associée?s? (?:à|avec)|liée?s? à|"
    r"corrélée?s?|asociad[oa]s? (?:a|con)|relacionad[oa]s? con|vinculad[oa]s? (?:a|con))\b"
)


def conflict(statement: str, sentence: str) -> str:
    """A cause the statement claims where the sentence says only a link.

    Args:
        statement: The statement text.
        sentence: A context sentence aligned with it.

    Returns:
        The reason ("'caused': the passage only links them ('connected to')"), or "".
    """
    cause = _CAUSE.search(statement)
    if not cause or _CAUSE.search(sentence) or _LINK.search(statement):
        return ""
    link = _LINK.search(sentence)
    if not link:
        return ""
    return f"'{cause.group(0).lower()}': the passage only links them ('{link.group(0).lower()}')"
