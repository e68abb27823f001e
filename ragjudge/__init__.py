"""ragjudge: compile RAG judges that agree with your human labels.

Example:
    >>> import ragjudge
    >>> judge = ragjudge.Faithfulness(mode="statement")   # offline judge unless an LM is named
    >>> r = judge(question="Where was Einstein born?",
    ...           contexts=["Albert Einstein was born in Ulm, Germany, in 1879."],
    ...           answer="Einstein was born in Ulm.")
    >>> r.passed
    True
"""

from ragjudge._version import __version__
from ragjudge.data import GoldRecord, load_gold
from ragjudge.evaluation import EvaluationReport, evaluate
from ragjudge.exceptions import (
    ConfigurationError,
    GoldDataError,
    ModifiedJudgeError,
    NotCompiledError,
    RagJudgeError,
    SerializationError,
    UnsupportedFormatVersionError,
)
from ragjudge.lexical import DeterministicFaithfulness
from ragjudge.lm import offline_lm, resolve_lm
from ragjudge.optimize import CompileReport, compile
from ragjudge.programs import AnswerRelevancy, ContextRecall, Ensemble, Faithfulness, Judge, Suite
from ragjudge.programs.deterministic import DeterministicJudge
from ragjudge.results import JudgeResult, StatementResult
from ragjudge.serialization import load, register_judge
from ragjudge.stats import Agreement, agreement

__all__ = [
    "Agreement",
    "AnswerRelevancy",
    "CompileReport",
    "ConfigurationError",
    "ContextRecall",
    "DeterministicFaithfulness",
    "DeterministicJudge",
    "Ensemble",
    "EvaluationReport",
    "Faithfulness",
    "GoldDataError",
    "GoldRecord",
    "Judge",
    "JudgeResult",
    "ModifiedJudgeError",
    "NotCompiledError",
    "RagJudgeError",
    "SerializationError",
    "StatementResult",
    "Suite",
    "UnsupportedFormatVersionError",
    "__version__",
    "agreement",
    "compile",
    "evaluate",
    "load",
    "load_gold",
    "offline_lm",
    "register_judge",
    "resolve_lm",
]
