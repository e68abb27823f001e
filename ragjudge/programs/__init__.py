"""Judges: DSPy modules that chain signatures into metrics, their results and judge files."""

from ragjudge.programs._base import Judge
from ragjudge.programs._build import build_judge, default_concurrency
from ragjudge.programs._results import JudgeResult, StatementResult
from ragjudge.programs._serialization import load, register_judge, registry, save_judge
from ragjudge.programs.cascade import Cascade
from ragjudge.programs.deterministic import DeterministicJudge
from ragjudge.programs.ensemble import Ensemble
from ragjudge.programs.faithfulness import Faithfulness, score_statements
from ragjudge.programs.recall import ContextRecall
from ragjudge.programs.relevancy import AnswerRelevancy
from ragjudge.programs.suite import Suite, SuiteResult

__all__ = [
    "AnswerRelevancy",
    "Cascade",
    "ContextRecall",
    "DeterministicJudge",
    "Ensemble",
    "Faithfulness",
    "Judge",
    "JudgeResult",
    "StatementResult",
    "Suite",
    "SuiteResult",
    "build_judge",
    "default_concurrency",
    "load",
    "register_judge",
    "registry",
    "save_judge",
    "score_statements",
]
