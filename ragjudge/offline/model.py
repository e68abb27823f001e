"""The offline judge's model: statement extraction, statement verdicts, answer verdicts.

Two logistic models over hand-designed lexical features (see `ragjudge.offline.features`):
one gives the probability that a statement is supported by its best-matching context passage,
the other the probability that a whole answer is faithful, from aggregates over its statements.
`fit_offline` fits both on gold rows; `OfflineParams` holds every fitted number.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pydantic

from ragjudge.offline.claims.reading import SUPPORT as READING_SUPPORT
from ragjudge.offline.directions import directions
from ragjudge.offline.features import (
    ANSWER_FEATURES,
    STATEMENT_FEATURES,
    ContextIndex,
    StatementEvidence,
    answer_evidence,
    answer_features,
    context_index,
)
from ragjudge.offline.head import TreeHead, fit_tree_head, head_features, head_matrix
from ragjudge.offline.statements import atomic_statements
from ragjudge.stats._agreement import auroc
from ragjudge.stats._folds import group_folds
from ragjudge.stats._logistic import fit_logistic
from ragjudge.stats._threshold import best_threshold

if TYPE_CHECKING:
    from ragjudge.offline.minilm import MiniLM

__all__ = [
    "STATEMENT_RULES",
    "CrossFit",
    "OfflineModel",
    "OfflineParams",
    "cross_fit_offline",
    "fit_offline",
    "offline_verdict",
    "statement_rules",
]

FloatArray = npt.NDArray[np.float64]

#: The default parameters: the hand-set statement model and an answer model fitted on the
#: public gold dev sets of six benchmarks by benchmarks/fit_default_params.py (which rewrites
#: the file and checks that it is reproducible).
DEFAULT_PARAMS_FILE = Path(__file__).with_name("default_params.json")
_DEFAULTS: dict[str, Any] = json.loads(DEFAULT_PARAMS_FILE.read_text(encoding="utf-8"))
_DEFAULT_STATEMENT_WEIGHTS: dict[str, float] = dict(
    zip(_DEFAULTS["statement_features"], _DEFAULTS["statement_weights"], strict=True)
)
_DEFAULT_STATEMENT_BIAS: float = _DEFAULTS["statement_bias"]
_DEFAULT_ANSWER_WEIGHTS: dict[str, float] = dict(
    zip(_DEFAULTS["answer_features"], _DEFAULTS["answer_weights"], strict=True)
)
_DEFAULT_ANSWER_BIAS: float = _DEFAULTS["answer_bias"]


class OfflineParams(pydantic.BaseModel):
    """Every fitted weight and threshold of the offline judge (JSON round-trips).

    Attributes:
        schema_version: Version of this layout. From 2 on, a statement is "no" exactly when the
            context contradicts it (negation, antonym, another number, name or date in the
            same slot), whatever its confidence, and "unsure" when the context does not say
            (below the threshold); files of version 1 keep their meaning ("no" below the
            threshold, "unsure" only within `unsure_margin` of it).
        statement_features: Feature names of the statement-level model, in weight order.
        statement_weights: Weights of the statement-level logistic model (raw feature scale).
        statement_bias: Its intercept.
        answer_features: Feature names of the answer-level model, in weight order.
        answer_weights: Weights of the answer-level logistic model (raw feature scale).
        answer_bias: Its intercept.
        support_threshold: A statement is supported when its confidence is at least this.
        unsure_margin: Verdict "unsure" when `|confidence - support_threshold| < unsure_margin`.
        answer_threshold: An answer is faithful when its confidence is at least this.
        paraphrase: Compute the paraphrase features with MiniLM embeddings
            (`ragjudge.offline.paraphrase`, extra `ragjudge[paraphrase]`); off, they are 0.
        answer_head: A tree head trained on gold by compile (`ragjudge.offline.head`): the
            answer confidence is then the mean of the logistic model's probability and the
            head's. None (the default) uses the logistic model alone.
    """

    model_config = pydantic.ConfigDict(extra="forbid")

    schema_version: int = 2
    statement_features: list[str] = pydantic.Field(default_factory=lambda: list(STATEMENT_FEATURES))
    statement_weights: list[float] = pydantic.Field(
        default_factory=lambda: [_DEFAULT_STATEMENT_WEIGHTS.get(n, 0.0) for n in STATEMENT_FEATURES]
    )
    statement_bias: float = _DEFAULT_STATEMENT_BIAS
    answer_features: list[str] = pydantic.Field(default_factory=lambda: list(ANSWER_FEATURES))
    answer_weights: list[float] = pydantic.Field(
        default_factory=lambda: [_DEFAULT_ANSWER_WEIGHTS.get(n, 0.0) for n in ANSWER_FEATURES]
    )
    answer_bias: float = _DEFAULT_ANSWER_BIAS
    support_threshold: float = pydantic.Field(
        default=_DEFAULTS["support_threshold"], ge=0.0, le=1.0
    )
    unsure_margin: float = pydantic.Field(default=_DEFAULTS["unsure_margin"], ge=0.0, le=0.5)
    answer_threshold: float = pydantic.Field(default=_DEFAULTS["answer_threshold"], ge=0.0, le=1.0)
    paraphrase: bool = False
    answer_head: TreeHead | None = None

    @pydantic.model_validator(mode="after")
    def _lengths_match(self) -> OfflineParams:
        if len(self.statement_features) != len(self.statement_weights):
            raise ValueError("statement_features and statement_weights differ in length")
        if len(self.answer_features) != len(self.answer_weights):
            raise ValueError("answer_features and answer_weights differ in length")
        return self

    def statement_vector(self) -> FloatArray:
        """Statement weights aligned to the current `STATEMENT_FEATURES` (unknown names -> 0).

        Returns:
            The weight vector.
        """
        return _aligned(self.statement_features, self.statement_weights, STATEMENT_FEATURES)

    def answer_vector(self) -> FloatArray:
        """Answer weights aligned to the current `ANSWER_FEATURES` (unknown names -> 0).

        Returns:
            The weight vector.
        """
        return _aligned(self.answer_features, self.answer_weights, ANSWER_FEATURES)


def _aligned(names: list[str], weights: list[float], order: tuple[str, ...]) -> FloatArray:
    table = dict(zip(names, weights, strict=True))
    return np.array([table.get(name, 0.0) for name in order], dtype=np.float64)


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def _quote(words: list[str], limit: int = 6) -> str:
    shown = ", ".join(f"'{w}'" for w in words[:limit])
    return shown + (f" and {len(words) - limit} more" if len(words) > limit else "")


class OfflineModel:
    """The offline judge: lexical support features through two logistic models.

    Args:
        params: Fitted parameters; None uses hand-set defaults.
    """

    def __init__(self, params: OfflineParams | None = None) -> None:
        self.params: OfflineParams = params if params is not None else OfflineParams()
        self._w_statement = self.params.statement_vector()
        self._w_answer = self.params.answer_vector()
        self._encoder = _encoder(self.params.paraphrase)

    def fingerprint(self) -> str:
        """A short stable hash of the parameters.

        Returns:
            12 hex characters.
        """
        payload = json.dumps(self.params.model_dump(mode="json"), sort_keys=True)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:12]

    def extract_statements(self, *, question: str, answer: str) -> list[str]:
        """Split an answer into atomic statements (see `ragjudge.offline.statements`).

        Args:
            question: The question (its named subject resolves a leading pronoun).
            answer: The answer text.

        Returns:
            The statements in order; [] when the answer has nothing to verify.
        """
        return [s.text for s in atomic_statements(question=question, answer=answer)]

    def statement_confidence(self, evidence: StatementEvidence) -> float:
        """Probability that a statement is supported, from its evidence, as the verdict reads it.

        A statement none of whose own words are in the context (`StatementEvidence.own_missing`)
        stays below the unsure band, however much of what it shares with its siblings is found
        (see `offline_verdict`).

        Args:
            evidence: The statement's evidence.

        Returns:
            A probability in [0, 1].
        """
        p = self.params
        return offline_verdict(
            support=self.statement_support(evidence),
            rules=statement_rules(evidence),
            support_threshold=p.support_threshold,
            unsure_margin=p.unsure_margin,
            schema_version=p.schema_version,
        )[1]

    def statement_support(self, evidence: StatementEvidence) -> float:
        """The statement model's probability of support, before any rule (`offline_verdict`).

        Args:
            evidence: The statement's evidence.

        Returns:
            A probability in [0, 1].
        """
        if evidence.reading is not None:  # a claim read on its own (`claims.reading`)
            return READING_SUPPORT[evidence.reading.outcome]
        z = float(np.dot(self._w_statement, evidence.features)) + self.params.statement_bias
        return _sigmoid(z)

    def judge_statements(self, *, context: str, statements: list[str]) -> list[dict[str, Any]]:
        """Judge each statement against the context.

        Args:
            context: The retrieved contexts joined with blank lines.
            statements: The statements to check.

        Returns:
            One dict per statement, same order, with `statement`, `reason`, `verdict`
            ("yes" | "no" | "unsure") and `confidence` (probability of support).
        """
        index = context_index(context)
        evidence = answer_evidence(index, statements, encoder=self._encoder)
        return [self._judge_one(index, s, e) for s, e in zip(statements, evidence, strict=True)]

    def _judge_one(
        self, index: ContextIndex, statement: str, evidence: StatementEvidence
    ) -> dict[str, Any]:
        p = self.params
        support = self.statement_support(evidence) if index.passages else 0.0
        rules = statement_rules(evidence) if index.passages else ["no_context"]
        verdict, confidence = offline_verdict(
            support=support,
            rules=rules,
            support_threshold=p.support_threshold,
            unsure_margin=p.unsure_margin,
            schema_version=p.schema_version,
        )
        if not index.passages:
            reason = "the context is empty, so nothing can be supported"
        else:
            reason = _statement_reason(evidence, verdict)
        return {
            **_verdict(statement, reason, verdict, confidence),
            "support": support,
            "rules": rules,
        }

    def judge_answer(self, *, question: str, context: str, answer: str) -> dict[str, Any]:
        """Judge a whole answer: is every claim in it supported by the context?

        Args:
            question: The question.
            context: The retrieved contexts joined with blank lines.
            answer: The answer.

        Returns:
            `{"reasoning": str, "verdict": "yes" | "no", "confidence": float}`.
        """
        index = context_index(context)
        statements = self.extract_statements(question=question, answer=answer)
        evidence = answer_evidence(index, statements, encoder=self._encoder)
        judged = [self._judge_one(index, s, e) for s, e in zip(statements, evidence, strict=True)]
        confidences = [float(v["confidence"]) for v in judged]
        features = answer_features(
            index=index,
            question=question,
            answer=answer,
            evidence=evidence,
            confidences=confidences,
            support_threshold=self.params.support_threshold,
        )
        confidence = self.answer_confidence(features, evidence=evidence, confidences=confidences)
        if not index.passages and statements:
            confidence = 0.0
        verdict = "yes" if confidence >= self.params.answer_threshold else "no"
        return {
            "reasoning": _answer_reasoning(judged, verdict),
            "verdict": verdict,
            "confidence": confidence,
        }

    def answer_confidence(
        self,
        features: Sequence[float],
        *,
        evidence: Sequence[StatementEvidence] = (),
        confidences: Sequence[float] = (),
    ) -> float:
        """Probability that an answer is faithful, from its answer-level features.

        Args:
            features: Values in `ANSWER_FEATURES` order.
            evidence: The statements' evidence, which a tree head (`OfflineParams.answer_head`)
                reads as well; ignored without one.
            confidences: The statements' support confidences, same order.

        Returns:
            A probability in [0, 1].
        """
        z = float(np.dot(self._w_answer, features)) + self.params.answer_bias
        head = self.params.answer_head
        if head is None:
            return _sigmoid(z)
        inputs = head_features(features, evidence, confidences)
        return 0.5 * (_sigmoid(z) + head.probability(inputs))


#: The rules that decide a statement's verdict whatever the support threshold.
STATEMENT_RULES = (
    "no_context",
    "contradicted",
    "speculated",
    "overclaim",
    "own_missing",
    "slot_conflict",
    "undecided",
    "novel_value",
    "name_elsewhere",
)
#: The rules of a statement the context does not say, however much else of it is found: none
#: of its own words, a number or date it lacks, a claim it gives to another name, a claim
#: surer than the context's (a hedge, condition or mere link dropped).
_NOT_SAID = ("own_missing", "novel_value", "name_elsewhere", "overclaim")
#: Rules by which the context says otherwise of an unsupported statement: another word in its
#: slot, or the claim given to another name.
_OTHERWISE = frozenset({"slot_conflict", "name_elsewhere"})


def statement_rules(evidence: StatementEvidence) -> list[str]:
    """The rules (`STATEMENT_RULES`) a statement's evidence triggers. A claim read on its own
    (an abstention, a short answer with its question: `ragjudge.offline.claims.reading`) is
    contradicted where the context says otherwise, undecided where words cannot tell."""
    if evidence.reading is not None:
        outcome = evidence.reading.outcome
        return {"no": ["contradicted"], "unsure": ["undecided"]}.get(outcome, [])
    flags = {
        "contradicted": evidence.contradicted,
        "speculated": evidence.speculated,
        "overclaim": bool(evidence.modality_note),
        "own_missing": evidence.own_missing,
        "slot_conflict": bool(evidence.slot_note),
        "novel_value": bool(evidence.novel_values),
        "name_elsewhere": bool(evidence.elsewhere_note),
    }
    return [rule for rule, on in flags.items() if on]


def offline_verdict(
    *,
    support: float,
    rules: Sequence[str],
    support_threshold: float,
    unsure_margin: float,
    schema_version: int = 2,
) -> tuple[str, float]:
    """The offline judge's verdict on one statement, and its confidence: the one rule that both
    judging and compiling (rescoring under another support threshold) apply.

    Args:
        support: The statement model's probability of support (`statement_support`).
        rules: The rules the evidence triggers (`statement_rules`; "no_context" for an empty
            context).
        support_threshold: A statement is supported when its confidence is at least this.
        unsure_margin: "unsure" within this distance of the threshold.
        schema_version: The params' schema: from 2 on, "no" means the context contradicts the
            statement, and a statement only planned in the context is "unsure".

    Returns:
        `(verdict, confidence)`: "yes", "no" or "unsure", and the probability of support.

    Example:
        >>> offline_verdict(support=0.9, rules=["speculated"], support_threshold=0.5,
        ...                 unsure_margin=0.05)
        ('unsure', 0.9)
    """
    if "no_context" in rules:
        return "no", 0.0
    confidence = support
    if any(rule in rules for rule in _NOT_SAID):
        # below the unsure band, whatever its siblings share or however much else is found
        confidence = min(confidence, max(0.0, support_threshold - unsure_margin) * 0.999)
    v2 = schema_version >= 2
    if v2 and ("contradicted" in rules or "overclaim" in rules):
        # the context says otherwise, however much else matches: the opposite, or the claim
        # only hedged, under a condition or as a link where the statement is sure of it
        verdict = "no"
    elif v2 and _OTHERWISE.intersection(rules) and confidence < support_threshold:
        # unsupported, and the aligned clause puts another word in the statement's slot (or
        # names it only as left out), or every sentence saying the rest gives the claim to
        # another name: the context says otherwise. The evidence's weight decides whether it
        # is unsupported; a statement supported despite a slot conflict stays "yes"
        verdict = "no"
    elif abs(confidence - support_threshold) < unsure_margin or (v2 and "undecided" in rules):
        verdict = "unsure"  # near the threshold, or the words cannot decide
    elif v2 and "speculated" in rules:
        verdict = "unsure"  # stated as done where the context only says it is planned
    elif confidence >= support_threshold:
        verdict = "yes"
    else:
        verdict = "unsure" if v2 else "no"  # v2: the context does not say
    return verdict, min(1.0, max(0.0, confidence))


def _verdict(statement: str, reason: str, verdict: str, confidence: float) -> dict[str, Any]:
    return {
        "statement": statement,
        "reason": reason,
        "verdict": verdict,
        "confidence": round(min(1.0, max(0.0, confidence)), 6),
    }


def _statement_reason(evidence: StatementEvidence, verdict: str) -> str:
    """A statement's reason. For a statement the context contradicts ("no"), what the judge
    found wrong comes first (a negation, another number or name in the passage), as the
    answer's reason quotes the first clause; then which words the context lacks. For one it
    does not say ("unsure"), the words it lacks come first."""
    if evidence.reading is not None:
        return evidence.reading.reason
    coverage = evidence.value("coverage_best")
    passage = evidence.best_passage + 1
    if evidence.missing:
        text = (
            f"{_quote(evidence.missing)} not found in the context "
            f"(best passage covers {coverage:.0%} of content words)"
        )
        if verdict == "yes":
            text = "mostly supported: " + text
    elif coverage >= 1.0:
        text = f"all content words found in passage {passage}"
    else:
        text = (
            "all content words appear in the context but not together "
            f"(best passage {passage} covers {coverage:.0%})"
        )
    found = [
        n for n in (evidence.negation_note, evidence.antonym_note, evidence.conflict_note) if n
    ]
    if evidence.slot_note and verdict != "yes":
        found.append(evidence.slot_note)
    if evidence.own_missing:
        found.append("nothing that only this statement says is in the context")
    unnamed = [v for v in evidence.novel_values if f"'{v}'" not in evidence.conflict_note]
    if unnamed:  # a value a conflict names already is said once
        found.append(f"{_quote(unnamed)}: a number, date or place the context does not give")
    if evidence.elsewhere_note:
        found.append(evidence.elsewhere_note + ": the context says it of another name")
    if evidence.modality_note:
        found.append(evidence.modality_note)
    elif evidence.speculated:
        found.append("the context only says it is planned or expected")
    elif evidence.hedged:
        found.append("a hedged or future claim the context does not make")
    notes = []
    if evidence.paraphrased:
        pairs = ", ".join(f"'{a}' as '{b}'" for a, b in evidence.paraphrased[:4])
        notes.append(f"read by meaning: {pairs}")
    if evidence.computed_note:
        notes.append(evidence.computed_note)
    if verdict == "unsure" and not evidence.contradicted and not evidence.slot_note:
        notes.append("the context does not say")
    parts = [*found, text, *notes] if verdict == "no" else [text, *found, *notes]
    text = "; ".join(parts)
    if verdict == "yes" and not evidence.missing:
        text = "supported: " + text
    return text


def _encoder(paraphrase: bool) -> MiniLM | None:
    """The MiniLM encoder when paraphrase evidence is on (ConfigurationError if not installed)."""
    if not paraphrase:
        return None
    from ragjudge.offline.minilm import MiniLM

    return MiniLM.load()


def _answer_reasoning(verdicts: list[dict[str, Any]], verdict: str) -> str:
    if not verdicts:
        return "the answer makes no verifiable statement"
    supported = sum(1 for v in verdicts if v["verdict"] == "yes")
    head = f"{supported} of {len(verdicts)} statements supported by the context"
    weakest = min(verdicts, key=lambda v: float(v["confidence"]))
    if verdict == "yes" and supported == len(verdicts):
        return head + "."
    if verdict == "yes":  # the answer-level evidence outweighs the statements' one by one
        head = (
            f"supported as a whole, though only {supported} of {len(verdicts)} statements "
            "were confirmed one by one"
        )
    elif supported == len(verdicts):
        head = (
            f"not supported as a whole, though {supported} of {len(verdicts)} statements "
            "were confirmed one by one"
        )
    return f'{head}; weakest: "{weakest["statement"]}" - {weakest["reason"]}.'


# --------------------------------------------------------------------------- fitting


@dataclass
class _RowData:
    """Precomputed evidence for one labeled row."""

    label: int
    question: str
    answer: str
    index: ContextIndex
    evidence: list[StatementEvidence]
    statement_labels: list[tuple[int, float]]  # (label, sample weight) or (-1, 0) if unknown


def _field(row: Any, name: str, default: Any = None) -> Any:
    if isinstance(row, Mapping):
        return row.get(name, default)
    return getattr(row, name, default)


def _span_bounds(span: Any) -> tuple[int, int]:
    return int(_field(span, "start", 0)), int(_field(span, "end", 0))


def _statement_labels(
    row: Any, spans: list[tuple[int, int]], label: int
) -> list[tuple[int, float]]:
    """Statement-level labels where the gold data makes them sound."""
    if label == 1:
        return [(1, 1.0)] * len(spans)
    bad = [_span_bounds(s) for s in (_field(row, "hallucinated_spans") or [])]
    if bad:
        out: list[tuple[int, float]] = []
        for a, b in spans:
            overlap = any(min(b, e) - max(a, s) > 0 for s, e in bad)
            out.append((0, 1.0) if overlap else (1, 0.5))
        return out
    if len(spans) == 1:
        return [(0, 1.0)]
    return [(-1, 0.0)] * len(spans)


def _prepare(rows: Sequence[Any], *, paraphrase: bool = False) -> list[_RowData]:
    encoder = _encoder(paraphrase)
    data: list[_RowData] = []
    for row in rows:
        label = _field(row, "faithful")
        if label is None:
            continue
        answer = str(_field(row, "answer", "") or "")
        contexts = _field(row, "contexts") or []
        index = context_index("\n\n".join(str(c) for c in contexts))
        statements = atomic_statements(
            question=str(_field(row, "question", "") or ""), answer=answer
        )
        spans = [(st.start, st.end) for st in statements]
        evidence = answer_evidence(index, [st.text for st in statements], encoder=encoder)
        data.append(
            _RowData(
                label=int(label),
                question=str(_field(row, "question", "") or ""),
                answer=answer,
                index=index,
                evidence=evidence,
                statement_labels=_statement_labels(row, spans, int(label)),
            )
        )
    return data


def _balanced_weights(y: FloatArray, base: FloatArray) -> FloatArray:
    sw = base.copy()
    for cls in (0.0, 1.0):
        mask = y == cls
        total = sw[mask].sum()
        if total > 0:
            sw[mask] *= 0.5 / total
    return sw


def _best_threshold(p: FloatArray, y: FloatArray) -> float:
    """The threshold maximizing balanced accuracy (`ragjudge.stats.best_threshold`, the
    highest of tied cuts); 0.5 when the labels are one class."""
    return best_threshold(p, y, ties="highest")[0]


def _statement_arrays(data: list[_RowData]) -> tuple[FloatArray, FloatArray, FloatArray]:
    xs, ys, ws = [], [], []
    for row in data:
        for ev, (label, weight) in zip(row.evidence, row.statement_labels, strict=True):
            if label < 0:
                continue
            xs.append(ev.features)
            ys.append(float(label))
            ws.append(weight)
    return (
        np.array(xs, dtype=np.float64).reshape(-1, len(STATEMENT_FEATURES)),
        np.array(ys, dtype=np.float64),
        np.array(ws, dtype=np.float64),
    )


def _answer_matrix(model: OfflineModel, data: list[_RowData]) -> FloatArray:
    rows = [_row_answer(model, row)[0] for row in data]
    return np.array(rows, dtype=np.float64).reshape(-1, len(ANSWER_FEATURES))


def _row_answer(model: OfflineModel, row: _RowData) -> tuple[list[float], list[float]]:
    """One row's answer features and its statements' confidences under `model`."""
    conf = [model.statement_confidence(e) for e in row.evidence]
    features = answer_features(
        index=row.index,
        question=row.question,
        answer=row.answer,
        evidence=row.evidence,
        confidences=conf,
        support_threshold=model.params.support_threshold,
    )
    return features, conf


def _answer_probabilities(model: OfflineModel, data: list[_RowData]) -> FloatArray:
    """The answer confidence of each row, as `OfflineModel.judge_answer` computes it."""
    out = []
    for row in data:
        features, conf = _row_answer(model, row)
        out.append(model.answer_confidence(features, evidence=row.evidence, confidences=conf))
    return np.array(out, dtype=np.float64)


def _attach_head(
    params: OfflineParams, data: list[_RowData], labels: FloatArray, *, seed: int
) -> OfflineParams:
    """`params` with a tree head fitted on the rows, and the answer threshold refitted to the
    blended confidence. The answer features and statement confidences do not depend on the
    head, so each row's are computed once."""
    answers = [_row_answer(OfflineModel(params), row) for row in data]
    xh = head_matrix(
        [head_features(f, row.evidence, c) for (f, c), row in zip(answers, data, strict=True)]
    )
    fitted = params.model_copy(update={"answer_head": fit_tree_head(xh, labels, seed=seed)})
    model = OfflineModel(fitted)
    p = np.array(
        [
            model.answer_confidence(f, evidence=row.evidence, confidences=c)
            for (f, c), row in zip(answers, data, strict=True)
        ],
        dtype=np.float64,
    )
    return fitted.model_copy(update={"answer_threshold": _best_threshold(p, labels)})


_MAX_STATEMENTS = 50000
_WEAK_LABEL_WEIGHT = 1.0


def fit_offline(
    rows: Sequence[Any],
    *,
    init: OfflineParams | None = None,
    seed: int = 0,
    regularization: float = 0.01,
    paraphrase: bool = False,
    statements: bool = True,
    head: bool = False,
) -> OfflineParams:
    """Fit the statement-level and the answer-level logistic models on gold rows.

    Statement labels come from where they are sound: every statement of a faithful answer is
    supported; statements overlapping `hallucinated_spans` are not (the others of such an answer
    count as supported at half weight); a single-statement unfaithful answer is unsupported.
    Answer labels come from `faithful`. Thresholds maximize balanced accuracy on the rows.

    Args:
        rows: Gold rows (`GoldRecord` or dicts) with question, contexts, answer, faithful,
            hallucinated_spans.
        init: Warm start: the fit starts from and is regularized toward these weights
            (default: regularized toward zero).
        seed: Seed for the (deterministic) subsampling of very large statement sets.
        regularization: L2 strength on standardized weights (see `cross_fit_offline`
            to choose it by cross-validation).
        paraphrase: Fit with the paraphrase features (MiniLM, extra `ragjudge[paraphrase]`);
            also on when `init` has them.
        statements: Fit the statement-level model too; False keeps `init`'s (or the
            defaults') statement weights and support threshold and fits the answer level only.
        head: Also fit a tree head on the answers (`ragjudge.offline.head`); see
            `cross_fit_offline` for whether it pays.

    Returns:
        The fitted parameters.

    Raises:
        ValueError: If there are no labeled rows or only one class.
    """
    paraphrase = _paraphrase(init, paraphrase)
    return _fit_prepared(
        _prepare(rows, paraphrase=paraphrase),
        init=init,
        seed=seed,
        regularization=regularization,
        paraphrase=paraphrase,
        statements=statements,
        head=head,
    )


def _paraphrase(init: OfflineParams | None, paraphrase: bool) -> bool:
    """Paraphrase features on when asked for or when the warm start has them."""
    return paraphrase or (init is not None and init.paraphrase)


def _start(init: OfflineParams | None, paraphrase: bool) -> OfflineParams:
    """The parameters a fit starts from: `init` or the defaults, with `paraphrase` set."""
    return (init or OfflineParams()).model_copy(update={"paraphrase": paraphrase})


def _fit_prepared(
    data: list[_RowData],
    *,
    init: OfflineParams | None,
    seed: int,
    regularization: float,
    paraphrase: bool = False,
    statements: bool = True,
    head: bool = False,
) -> OfflineParams:
    labels = np.array([r.label for r in data], dtype=np.float64)
    if len(data) == 0 or labels.min() == labels.max():
        raise ValueError("fit_offline needs labeled rows of both classes")
    base = _start(init, paraphrase)
    prior = None if init is None else base
    stage = (
        _fit_statement_model(data, base, prior, seed=seed, regularization=regularization)
        if statements
        else base
    )
    xa = _answer_matrix(OfflineModel(stage), data)
    a_prior = base.answer_vector() if prior else np.zeros(len(ANSWER_FEATURES))
    a_bias = base.answer_bias if prior else 0.0
    sw = _balanced_weights(labels, np.ones(len(labels)))
    signs = directions(ANSWER_FEATURES)  # each answer feature keeps its side
    wa, ba = fit_logistic(xa, labels, sw, a_prior, a_bias, regularization, signs=signs)
    pa = 1.0 / (1.0 + np.exp(-np.clip(xa @ wa + ba, -30, 30)))
    fitted = stage.model_copy(
        update={
            "answer_features": list(ANSWER_FEATURES),
            "answer_weights": [float(v) for v in wa],
            "answer_bias": float(ba),
            "answer_threshold": _best_threshold(pa, labels),
            "answer_head": None,
        }
    )
    return _attach_head(fitted, data, labels, seed=seed) if head else fitted


#: Candidate L2 strengths for `cross_fit_offline` (standardized weights).
REGULARIZATION_GRID: tuple[float, ...] = (0.01, 0.03, 0.1, 0.3, 1.0)
#: Candidates when warm-starting from `init`: up to strong pulls toward its weights.
INIT_REGULARIZATION_GRID: tuple[float, ...] = (0.01, 0.1, 1.0, 10.0, 100.0)
#: How much higher the out-of-fold ROC AUC with a tree head must be for `head=None` to keep it.
HEAD_MARGIN = 0.005


@dataclass
class CrossFit:
    """Grouped k-fold cross-fitting of the offline model (see `cross_fit_offline`).

    Attributes:
        regularization: The chosen L2 strength.
        scores: Out-of-fold ROC AUC of the answer confidence for each candidate strength.
        log_likelihood: Out-of-fold mean log-likelihood of the labels under the answer
            confidence for each candidate strength (what chooses it).
        folds: The fold of each row, in row order.
        fold_params: For each fold, the parameters fitted on the other folds (chosen strength,
            and the head when kept): scoring a row with its fold's parameters gives an
            out-of-fold score.
        head: Whether the tree head is kept (fit the final parameters with `head=True`).
        head_score: Out-of-fold ROC AUC with the head, when it was tried.
    """

    regularization: float
    scores: dict[float, float]
    folds: list[int]
    fold_params: list[OfflineParams]
    head: bool = False
    head_score: float | None = None
    log_likelihood: dict[float, float] = field(default_factory=dict)


def cross_fit_offline(
    rows: Sequence[Any],
    *,
    groups: Sequence[str] | None = None,
    init: OfflineParams | None = None,
    candidates: Sequence[float] | None = None,
    folds: int = 5,
    seed: int = 0,
    paraphrase: bool = False,
    head: bool | None = False,
) -> CrossFit:
    """Grouped k-fold cross-fitting of `fit_offline`, choosing its L2 strength.

    Each candidate strength is fitted on all folds but one and scored on the left-out fold;
    the out-of-fold answer confidences of all rows are pooled, and the candidate under which
    they give the labels the highest log-likelihood wins (ties: the stronger regularization).
    The log-likelihood scores the confidences themselves, where ROC AUC scores only their order
    (which barely moves with the strength, so ties by the fourth decimal flipped its choice).
    With `init`, the strength is how
    hard the weights are pulled toward `init`'s, so few rows of a new domain keep what
    transfers. The per-fold fits of the chosen strength are returned too: compiling tunes its
    policies and calibration on out-of-fold scores, which behave like scores on new rows.

    Args:
        rows: Labeled gold rows, as for `fit_offline`.
        groups: Group key of each row (rows of one group share a fold); None: one per row.
        init: Warm start, as for `fit_offline`.
        candidates: Strengths to try (default `REGULARIZATION_GRID`, or
            `INIT_REGULARIZATION_GRID` with `init`).
        folds: Number of folds (fewer when there are fewer groups).
        seed: Seed of the fold assignment and of the fits.
        paraphrase: As for `fit_offline`.
        head: Cross-fit a tree head (`ragjudge.offline.head`) on each fold's fitted weights too:
            True keeps it, None keeps it only when its pooled out-of-fold ROC AUC beats the
            logistic model's by `HEAD_MARGIN`, False does not try it.

    Returns:
        The `CrossFit`.

    Raises:
        ValueError: If a row has no label, or there is only one class.

    Example:
        >>> cv = cross_fit_offline(rows, groups=ids)  # doctest: +SKIP
        >>> params = fit_offline(rows, regularization=cv.regularization)  # doctest: +SKIP
    """
    grid = tuple(candidates or (INIT_REGULARIZATION_GRID if init else REGULARIZATION_GRID))
    paraphrase = _paraphrase(init, paraphrase)
    data = _prepare(rows, paraphrase=paraphrase)
    if len(data) != len(rows):
        raise ValueError("cross_fit_offline needs a label (faithful) on every row")
    labels = np.array([r.label for r in data], dtype=np.int64)
    if len(data) == 0 or labels.min() == labels.max():
        raise ValueError("cross_fit_offline needs labeled rows of both classes")
    keys = [str(g) for g in groups] if groups is not None else [str(i) for i in range(len(data))]
    fold = group_folds(keys, labels, folds=folds, seed=seed)
    parts = [int(f) for f in np.unique(fold)]
    scores: dict[float, float] = {}
    likelihood: dict[float, float] = {}
    fitted: dict[float, list[OfflineParams]] = {}
    for lam in grid:
        oof = np.full(len(data), 0.5)
        fitted[lam] = []
        for f in parts:
            train = [d for d, g in zip(data, fold, strict=True) if g != f]
            test = np.flatnonzero(fold == f)
            if len({d.label for d in train}) < 2:  # a fold holding a whole class
                params = _start(init, paraphrase)
            else:
                params = _fit_prepared(
                    train, init=init, seed=seed, regularization=lam, paraphrase=paraphrase
                )
            fitted[lam].append(params)
            oof[test] = _answer_probabilities(OfflineModel(params), [data[i] for i in test])
        scores[lam] = auroc(labels, oof)
        likelihood[lam] = _log_likelihood(labels, oof)
    best = max(likelihood.values())
    chosen = max(lam for lam, v in likelihood.items() if v >= best - 1e-9)
    cross = CrossFit(
        regularization=chosen,
        scores=scores,
        folds=[parts.index(int(f)) for f in fold],
        fold_params=fitted[chosen],
        log_likelihood=likelihood,
    )
    if head is not False:
        _cross_fit_head(cross, data, labels, fold, parts, seed=seed, keep=head is True)
    return cross


def _log_likelihood(labels: npt.NDArray[np.int64], p: FloatArray) -> float:
    """The mean log-likelihood of 0/1 labels under probabilities `p` (clipped off 0 and 1)."""
    q = np.clip(p, 1e-6, 1.0 - 1e-6)
    return float(np.mean(np.where(labels == 1, np.log(q), np.log(1.0 - q))))


def _cross_fit_head(
    cross: CrossFit,
    data: list[_RowData],
    labels: npt.NDArray[np.int64],
    fold: Any,
    parts: list[int],
    *,
    seed: int,
    keep: bool,
) -> None:
    """Fit a tree head on each fold's training rows, score the left-out rows, and keep the
    heads in `cross` when forced (`keep`) or when they beat the logistic model."""
    oof = np.full(len(data), 0.5)
    with_head = []
    for f, params in zip(parts, cross.fold_params, strict=True):
        inside = np.flatnonzero(fold != f)
        test = np.flatnonzero(fold == f)
        if len(set(labels[inside].tolist())) < 2:
            with_head.append(params)
            continue
        train = [data[i] for i in inside]
        headed = _attach_head(params, train, labels[inside].astype(np.float64), seed=seed)
        with_head.append(headed)
        oof[test] = _answer_probabilities(OfflineModel(headed), [data[i] for i in test])
    cross.head_score = auroc(labels, oof)
    if keep or cross.head_score >= cross.scores[cross.regularization] + HEAD_MARGIN:
        cross.head = True
        cross.fold_params = with_head


def _weakest_statements(
    data: list[_RowData], weights: FloatArray, bias: float
) -> list[list[float]]:
    """Multiple-instance labels: the weakest statement of each unfaithful answer whose
    statements carry no sound label is taken as unsupported."""
    out = []
    for row in data:
        if row.label != 0 or not row.evidence:
            continue
        if any(label >= 0 for label, _ in row.statement_labels):
            continue
        scores = [float(np.dot(weights, e.features)) for e in row.evidence]
        out.append(row.evidence[int(np.argmin(scores))].features)
    return out


def _fit_statement_model(
    data: list[_RowData],
    base: OfflineParams,
    prior: OfflineParams | None,
    *,
    seed: int,
    regularization: float,
) -> OfflineParams:
    """Fit the statement-level model and its support threshold (base's values as fallback)."""
    x, y, w = _statement_arrays(data)
    rng = np.random.default_rng(seed)
    if len(y) > _MAX_STATEMENTS:
        keep = np.sort(rng.choice(len(y), size=_MAX_STATEMENTS, replace=False))
        x, y, w = x[keep], y[keep], w[keep]
    if not (len(y) and 0 < y.sum() < len(y)):
        return base
    s_prior = prior.statement_vector() if prior else np.zeros(len(STATEMENT_FEATURES))
    s_bias = prior.statement_bias if prior else 0.0
    ws, bs = fit_logistic(x, y, _balanced_weights(y, w), s_prior, s_bias, regularization)
    extra = _weakest_statements(data, ws, bs)
    if extra:
        x = np.vstack([x, np.array(extra, dtype=np.float64)])
        y = np.append(y, np.zeros(len(extra)))
        w = np.append(w, np.full(len(extra), _WEAK_LABEL_WEIGHT))
        ws, bs = fit_logistic(x, y, _balanced_weights(y, w), s_prior, s_bias, regularization)
    p = 1.0 / (1.0 + np.exp(-np.clip(x @ ws + bs, -30, 30)))
    return base.model_copy(
        update={
            "statement_features": list(STATEMENT_FEATURES),
            "statement_weights": [float(v) for v in ws],
            "statement_bias": float(bs),
            "support_threshold": _best_threshold(p, y),
        }
    )
