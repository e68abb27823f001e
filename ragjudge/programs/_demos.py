"""Few-shot demos from labeled gold rows, one annotator per metric (`CompileSpec.demo`).

A labeled row becomes one `dspy.Example` carrying the fields of every signature of its judge
that the label soundly fills, so DSPy renders it as a demo for each predictor (a demo lacking a
predictor's output fields is left out of that predictor's prompt). Each example carries its
label as `gold_label` (compile balances demo sets on it; no signature reads it). The label is
the row's label for the judge's metric (`ragjudge.data.gold_label`): people's for
faithfulness, derived ones (docs/derived-gold.md) for relevancy and recall.

- Faithfulness: every statement of a faithful answer is supported; a statement overlapping a
  labeled hallucinated span is not; an unfaithful one-statement answer's statement is not.
  Rows whose statements cannot be labeled soundly (unfaithful, several statements, no spans)
  are not used.
- Answer relevancy: an on-topic row is a rating of 5 and, for question generation, the asked
  question as the one question the answer answers; an off-topic row is a rating of 1 (which
  question its answer does answer is unknown, so it is no question-generation demo).
- Context recall: the reference's statements (what extraction should give, whatever the
  label); a covered reference is a rating of 5 with every statement attributable; an
  uncovered one is a rating of 1, its statement unattributable when it has one.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import dspy

from ragjudge.data._gold import GoldRecord
from ragjudge.data._labels import gold_label
from ragjudge.offline.model import OfflineModel
from ragjudge.signatures import StatementVerdict

__all__ = ["faithfulness_demo", "recall_demo", "relevancy_demo"]

MAX_STATEMENTS = 6
SUPPORTED = "The context directly states this."


@functools.lru_cache(maxsize=1)
def _segmenter() -> OfflineModel:
    """The offline judge's statement segmenter (built once)."""
    return OfflineModel()


def _statements(question: str, text: str) -> list[str] | None:
    """`text` split into statements, or None when it has none or too many for a demo."""
    statements = _segmenter().extract_statements(question=question, answer=text)
    if not statements or len(statements) > MAX_STATEMENTS:
        return None
    return list(statements)


def _locate(answer: str, statements: Sequence[str]) -> list[tuple[int, int]] | None:
    spans, cursor = [], 0
    for statement in statements:
        start = answer.find(statement, cursor)
        if start < 0:
            start = answer.find(statement.rstrip(". "), cursor)
        if start < 0:
            return None
        spans.append((start, start + len(statement)))
        cursor = start + 1
    return spans


def _verdict(statement: str, supported: bool, span: str = "") -> StatementVerdict:
    if supported:
        reason = SUPPORTED
    elif span:
        reason = f"The context does not support {span}."
    else:
        reason = "The context does not support this statement."
    return StatementVerdict(
        statement=statement,
        reason=reason,
        verdict="yes" if supported else "no",
        confidence=0.95 if supported else 0.05,
    )


def _faithfulness_verdicts(
    row: GoldRecord, label: int, statements: list[str]
) -> list[StatementVerdict] | None:
    """Each statement's verdict as the row's label and hallucinated spans fix it, or None."""
    if label == 1:
        return [_verdict(s, True) for s in statements]
    if row.hallucinated_spans:
        located = _locate(row.answer, statements)
        if located is None:
            return None
        verdicts = []
        for statement, (start, end) in zip(statements, located, strict=True):
            hits = [s for s in row.hallucinated_spans if s.start < end and s.end > start]
            shown = ", ".join(f"'{h.text.strip()}'" for h in hits[:2])
            verdicts.append(_verdict(statement, not hits, shown))
        return None if all(v.verdict == "yes" for v in verdicts) else verdicts
    if len(statements) == 1:
        return [_verdict(statements[0], False)]
    return None


def faithfulness_demo(row: GoldRecord) -> dspy.Example | None:
    """A faithfulness-labeled row as a demo for every faithfulness signature, or None.

    Example:
        >>> row = GoldRecord(id="a", question="Where was Einstein born?", faithful=1,
        ...                  contexts=["Einstein was born in Ulm."], answer="In Ulm.")
        >>> demo = faithfulness_demo(row)
        >>> demo.verdict, demo.gold_label
        ('yes', 1)
    """
    label = gold_label(row, "faithfulness")
    statements = None if label is None else _statements(row.question, row.answer)
    if label is None or statements is None:
        return None
    verdicts = _faithfulness_verdicts(row, label, statements)
    if verdicts is None:
        return None
    unsupported = [v.statement for v in verdicts if v.verdict == "no"]
    if unsupported:
        reasoning = (
            "Not every claim is supported: "
            + "; ".join(f"'{s}'" for s in unsupported[:3])
            + " cannot be inferred from the context."
        )
    else:
        reasoning = "Every claim of the answer can be directly inferred from the context."
    return dspy.Example(
        question=row.question,
        answer=row.answer,
        context=row.context,
        statements=statements,
        verdicts=verdicts,
        reasoning=reasoning,
        verdict="yes" if label == 1 else "no",
        confidence=0.95 if label == 1 else 0.05,
        gold_label=label,
    )


def relevancy_demo(row: GoldRecord) -> dspy.Example | None:
    """An answer-relevancy-labeled row (derived gold) as a demo, or None without a label.

    Example:
        >>> row = GoldRecord(id="a~on", question="Where is Ulm?", answer="In Germany.",
        ...                  meta={"derived": {"metric": "answer_relevancy", "label": 1}})
        >>> demo = relevancy_demo(row)
        >>> demo.questions, demo.relevancy_score, demo.gold_label
        (['Where is Ulm?'], 5, 1)
    """
    label = gold_label(row, "answer_relevancy")
    if label is None or not row.question.strip() or not row.answer.strip():
        return None
    if label == 1:
        return dspy.Example(
            question=row.question,
            answer=row.answer,
            count=1,
            questions=[row.question],
            noncommittal=False,
            reasoning="The answer responds directly to what the question asks.",
            relevancy_score=5,
            gold_label=1,
        )
    return dspy.Example(
        question=row.question,
        answer=row.answer,
        reasoning="The answer does not respond to what the question asks.",
        relevancy_score=1,
        gold_label=0,
    )


def recall_demo(row: GoldRecord) -> dspy.Example | None:
    """A context-recall-labeled row (derived gold) as a demo, or None.

    Example:
        >>> row = GoldRecord(id="a~recall", question="Where was Einstein born?",
        ...                  contexts=["Einstein was born in Ulm."], answer="",
        ...                  reference="Einstein was born in Ulm.",
        ...                  meta={"derived": {"metric": "context_recall", "label": 1}})
        >>> demo = recall_demo(row)
        >>> [a.verdict for a in demo.attributions], demo.recall_score
        (['yes'], 5)
    """
    label = gold_label(row, "context_recall")
    reference = row.reference or ""
    statements = None if label is None else _statements(row.question, reference)
    if label is None or statements is None:
        return None
    fields = {
        "question": row.question,
        "context": row.context,
        "reference": reference,
        "reference_statements": statements,
        "gold_label": label,
    }
    if label == 1:
        fields["attributions"] = [_verdict(s, True) for s in statements]
        fields["reasoning"] = "Every key fact of the reference is in the context."
        fields["recall_score"] = 5
    else:
        if len(statements) == 1:
            fields["attributions"] = [_verdict(statements[0], False)]
        fields["reasoning"] = "A key fact of the reference is not in the context."
        fields["recall_score"] = 1
    return dspy.Example(**fields)
