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

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ragjudge._version import __version__

# The public names load on first use (PEP 562): `import ragjudge` and the command line's start
# do not pay for DSPy, Optuna and the judges until they are needed.
_EXPORTS = {
    "Agreement": "ragjudge.stats",
    "AnswerRelevancy": "ragjudge.programs",
    "Cascade": "ragjudge.programs",
    "CompileReport": "ragjudge.optimize",
    "ConfigurationError": "ragjudge.exceptions",
    "ContextRecall": "ragjudge.programs",
    "DeterministicFaithfulness": "ragjudge.lexical",
    "DeterministicJudge": "ragjudge.programs.deterministic",
    "Ensemble": "ragjudge.programs",
    "Estimate": "ragjudge.estimation",
    "EvaluationReport": "ragjudge.evaluation",
    "Faithfulness": "ragjudge.programs",
    "GoldDataError": "ragjudge.exceptions",
    "GoldRecord": "ragjudge.data",
    "Judge": "ragjudge.programs",
    "JudgeOptimizer": "ragjudge.optimize",
    "JudgeResult": "ragjudge.programs",
    "ModifiedJudgeError": "ragjudge.exceptions",
    "NotCompiledError": "ragjudge.exceptions",
    "ProbeReport": "ragjudge.probing",
    "RagJudgeError": "ragjudge.exceptions",
    "SerializationError": "ragjudge.exceptions",
    "StatementResult": "ragjudge.programs",
    "Suite": "ragjudge.programs",
    "UnsupportedFormatVersionError": "ragjudge.exceptions",
    "agreement": "ragjudge.stats",
    "compare_systems": "ragjudge.estimation",
    "compile": "ragjudge.optimize",
    "estimate": "ragjudge.estimation",
    "evaluate": "ragjudge.evaluation",
    "load": "ragjudge.programs",
    "load_gold": "ragjudge.data",
    "offline_lm": "ragjudge.lm",
    "probe": "ragjudge.probing",
    "register_judge": "ragjudge.programs",
    "resolve_lm": "ragjudge.lm",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ragjudge' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:
    from ragjudge.data import GoldRecord, load_gold
    from ragjudge.estimation import Estimate, compare_systems, estimate
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
    from ragjudge.optimize import CompileReport, JudgeOptimizer, compile
    from ragjudge.probing import ProbeReport, probe
    from ragjudge.programs import (
        AnswerRelevancy,
        Cascade,
        ContextRecall,
        Ensemble,
        Faithfulness,
        Judge,
        JudgeResult,
        StatementResult,
        Suite,
        load,
        register_judge,
    )
    from ragjudge.programs.deterministic import DeterministicJudge
    from ragjudge.stats import Agreement, agreement

__all__ = [
    "Agreement",
    "AnswerRelevancy",
    "Cascade",
    "CompileReport",
    "ConfigurationError",
    "ContextRecall",
    "DeterministicFaithfulness",
    "DeterministicJudge",
    "Ensemble",
    "Estimate",
    "EvaluationReport",
    "Faithfulness",
    "GoldDataError",
    "GoldRecord",
    "Judge",
    "JudgeOptimizer",
    "JudgeResult",
    "ModifiedJudgeError",
    "NotCompiledError",
    "ProbeReport",
    "RagJudgeError",
    "SerializationError",
    "StatementResult",
    "Suite",
    "UnsupportedFormatVersionError",
    "__version__",
    "agreement",
    "compare_systems",
    "compile",
    "estimate",
    "evaluate",
    "load",
    "load_gold",
    "offline_lm",
    "probe",
    "register_judge",
    "resolve_lm",
]
