"""Offline implementations of the relevancy, recall and rubric signatures.

Each handler answers one signature (recognized by its output fields, see
`ragjudge.offline.engine.register_task`) from the offline model's statement extraction and
verdicts plus a lexical similarity. Importing this module registers the handlers; the judge
programs import it, so the offline judge knows every signature they use.

What the offline judge cannot do, and what it does instead:

* It cannot *write* questions. `GenerateQuestions` recasts the answer's own statements as
  questions, so offline question-mode relevancy amounts to the lexical similarity between the
  asked question and the answer (the program says so in `JudgeResult.details`).
* Its similarity is lexical: content-word cosine (stop words removed, light stemming) plus a
  small bonus or penalty for whether the kind of answer matches the kind of question (a year
  for "when", a number for "how many", yes/no for a yes/no question). The weights were chosen on
  the derived relevancy pairs of the shared dev data (character trigrams were tried and dropped:
  they added noise on short texts).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from ragjudge.offline.claims.abstention import NONCOMMITTAL
from ragjudge.offline.engine import register_task
from ragjudge.offline.model import OfflineModel

__all__ = [
    "answer_kinds",
    "is_noncommittal",
    "lexical_similarity",
    "question_kind",
    "recast_as_question",
    "reference_statements",
    "to_rating",
]

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)
_STOP = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves s t d ll re ve m one also well get got make made many much thing things way
    whose whether answer question""".split()
)
_SUFFIXES = ("ingly", "edly", "ing", "ies", "ied", "ed", "es", "s", "ly")
_YESNO_START = frozenset(
    "is are was were did do does can could has have had will would should shall may".split()
)
_WH = re.compile(r"\b(what|which|who|whom|whose|where|when|why|how)\b")
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_MONTH = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november|"
    r"december|century|decade)\b"
)
_NUMBER_WORD = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|hundred|"
    r"thousand|million|billion|dozen)\b"
)
#: Weight of the answer-kind match (+1 match, -1 mismatch) added to the word cosine.
KIND_WEIGHT = 0.05


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
    return word


def _content(text: str) -> list[str]:
    words = (m.group(0).lower().replace("’", "'") for m in _TOKEN.finditer(text))
    bare = (w[:-2] if w.endswith("'s") else w for w in words)
    return [_stem(w) for w in bare if w not in _STOP]


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    if not a or not b:
        return 0.0
    dot = sum(count * b[key] for key, count in a.items())
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


def question_kind(text: str) -> str | None:
    """The kind of answer a question asks for: time, number, yesno, reason, entity or None.

    Example:
        >>> question_kind("When was the Eiffel Tower built?")
        'time'
    """
    low = text.lower().strip()
    words = [m.group(0) for m in _TOKEN.finditer(low)]
    if not words:
        return None
    if re.search(r"\b(what year|which year|when|what date|which century)\b", low):
        return "time"
    if re.search(r"\bhow (many|much|long|old|far|tall|big|large|high)\b", low):
        return "number"
    if words[0] in _YESNO_START and not _WH.search(low):
        return "yesno"
    if re.search(r"\bwhy\b", low):
        return "reason"
    if _WH.search(low):
        return "entity"
    return None


def answer_kinds(text: str) -> set[str]:
    """The kinds of question an answer could answer (see `question_kind`).

    Example:
        >>> sorted(answer_kinds("In 1889, in Paris."))
        ['entity', 'number', 'time']
    """
    stripped, low = text.strip(), text.lower()
    if re.match(r"^(yes|no)\b", low.strip()):
        return {"yesno"}
    kinds = set()
    if _YEAR.search(stripped) or _MONTH.search(low):
        kinds.add("time")
    if _NUMBER_WORD.search(low):
        kinds.add("number")
    if re.search(r"\b[A-Z][a-z]", stripped):
        kinds.add("entity")
    if re.search(r"\b(because|due to|since|so that|as a result|in order to)\b", low):
        kinds.add("reason")
    return kinds


def lexical_similarity(question: str, text: str) -> float:
    """Lexical similarity in [0, 1] of a question and an answer (or another question).

    The cosine of content-word counts plus a small bonus (or penalty) when the kind of answer
    `text` gives matches (or does not match) the kind of answer `question` asks for. Clipped to
    [0, 1].

    Args:
        question: The question asked.
        text: An answer, or a question generated from one.

    Returns:
        The similarity.

    Example:
        >>> lexical_similarity("Where was Einstein born?", "Einstein was born in Ulm.") > 0.5
        True
    """
    words = _cosine(Counter(_content(question)), Counter(_content(text)))
    kind = question_kind(question)
    other = question_kind(text)
    offered = {other} if other is not None and other != "entity" else answer_kinds(text)
    match = 0.0 if kind is None else (1.0 if kind in offered else -1.0)
    score = words + KIND_WEIGHT * match
    return min(1.0, max(0.0, score))


def is_noncommittal(answer: str) -> bool:
    """True for an evasive answer: "I don't know", refusals, "not enough information".

    Example:
        >>> is_noncommittal("I don't know the answer to that."), is_noncommittal("Paris.")
        (True, False)
    """
    return not answer.strip() or bool(NONCOMMITTAL.search(answer))


def recast_as_question(statement: str) -> str:
    """Turn a statement into a question about it, with a wh-word fitting the statement's kind.

    Example:
        >>> recast_as_question("Einstein was born in 1879.")
        'When: Einstein was born in 1879?'
    """
    text = statement.strip().rstrip(".!?;:")
    if not text:
        return ""
    kinds = answer_kinds(text)
    if "yesno" in kinds:
        return f"Is it so that {text}?"
    if "time" in kinds:
        return f"When: {text}?"
    if "number" in kinds:
        return f"How many: {text}?"
    if "reason" in kinds:
        return f"Why: {text}?"
    return f"What: {text}?"


def reference_statements(model: OfflineModel, *, question: str, reference: str) -> list[str]:
    """Statements of a reference; a bare short answer becomes one statement with the question.

    Example:
        >>> from ragjudge.offline.model import OfflineModel
        >>> reference_statements(OfflineModel(), question="Capital of France?", reference="Paris")
        ['Capital of France: Paris.']
    """
    text = reference.strip()
    if not text:
        return []
    if len(_TOKEN.findall(text)) <= 4 and question.strip():
        return [f"{question.strip().rstrip('?.! ')}: {text.rstrip('.')}."]
    statements = model.extract_statements(question=question, answer=text)
    return statements or [text]


def to_rating(value: float) -> int:
    """Map a value in [0, 1] to a 1-5 rating (1 + 4 * value, rounded half up).

    Example:
        >>> to_rating(0.0), to_rating(0.5), to_rating(1.0)
        (1, 3, 5)
    """
    clipped = min(1.0, max(0.0, value))
    return math.floor(1 + 4 * clipped + 0.5)


def _text(inputs: dict[str, Any], name: str) -> str:
    value = inputs.get(name, "")
    return value if isinstance(value, str) else str(value)


def _strings(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)] if value else []


def _generate_questions(model: OfflineModel, inputs: dict[str, Any]) -> dict[str, Any]:
    answer = _text(inputs, "answer")
    try:
        count = max(1, int(inputs.get("count") or 3))
    except (TypeError, ValueError):
        count = 3
    statements = model.extract_statements(question="", answer=answer) or [answer]
    questions = [q for q in (recast_as_question(s) for s in statements[:count]) if q]
    return {"questions": questions, "noncommittal": is_noncommittal(answer)}


def _rate_relevancy(model: OfflineModel, inputs: dict[str, Any]) -> dict[str, Any]:
    del model
    question, answer = _text(inputs, "question"), _text(inputs, "answer")
    if is_noncommittal(answer):
        return {"reasoning": "the answer evades or refuses the question", "relevancy_score": 1}
    similarity = lexical_similarity(question, answer)
    rating = to_rating(min(1.0, similarity / 0.6))
    reasoning = f"lexical similarity between question and answer is {similarity:.2f}"
    return {"reasoning": reasoning, "relevancy_score": rating}


def _extract_reference(model: OfflineModel, inputs: dict[str, Any]) -> dict[str, Any]:
    statements = reference_statements(
        model, question=_text(inputs, "question"), reference=_text(inputs, "reference")
    )
    return {"reference_statements": statements}


def _judge_attribution(model: OfflineModel, inputs: dict[str, Any]) -> dict[str, Any]:
    statements = _strings(inputs.get("reference_statements"))
    verdicts = model.judge_statements(context=_text(inputs, "context"), statements=statements)
    return {"attributions": verdicts}


def _supported_share(verdicts: list[dict[str, Any]]) -> float:
    if not verdicts:
        return 0.0
    return sum(float(v.get("confidence") or 0.0) for v in verdicts) / len(verdicts)


def _rate_faithfulness(model: OfflineModel, inputs: dict[str, Any]) -> dict[str, Any]:
    question, context, answer = (_text(inputs, k) for k in ("question", "context", "answer"))
    statements = model.extract_statements(question=question, answer=answer)
    if not statements:
        return {"reasoning": "the answer makes no checkable claim", "faithfulness_score": 3}
    verdicts = model.judge_statements(context=context, statements=statements)
    whole = model.judge_answer(question=question, context=context, answer=answer)
    share = _supported_share(verdicts)
    value = 0.5 * share + 0.5 * float(whole.get("confidence") or 0.0)
    supported = sum(1 for v in verdicts if v.get("verdict") == "yes")
    reasoning = (
        f"{supported} of {len(verdicts)} statements are supported (mean support {share:.2f}); "
        f"whole-answer support {float(whole.get('confidence') or 0.0):.2f}"
    )
    return {"reasoning": reasoning, "faithfulness_score": to_rating(value)}


def _rate_recall(model: OfflineModel, inputs: dict[str, Any]) -> dict[str, Any]:
    statements = reference_statements(
        model, question=_text(inputs, "question"), reference=_text(inputs, "reference")
    )
    if not statements:
        return {"reasoning": "the reference is empty", "recall_score": 1}
    verdicts = model.judge_statements(context=_text(inputs, "context"), statements=statements)
    share = _supported_share(verdicts)
    covered = sum(1 for v in verdicts if v.get("verdict") == "yes")
    reasoning = (
        f"{covered} of {len(verdicts)} reference statements are in the context "
        f"(mean support {share:.2f})"
    )
    return {"reasoning": reasoning, "recall_score": to_rating(share)}


register_task({"questions", "noncommittal"}, _generate_questions)
register_task({"reasoning", "relevancy_score"}, _rate_relevancy)
register_task({"reference_statements"}, _extract_reference)
register_task({"attributions"}, _judge_attribution)
register_task({"reasoning", "faithfulness_score"}, _rate_faithfulness)
register_task({"reasoning", "recall_score"}, _rate_recall)
