"""Language models: model strings, engines, retries, the response cache and the adapter."""

from ragjudge.lm._adapters import (
    CachedChatAdapter,
    ParseStats,
    StructuredChatAdapter,
    default_adapter,
    parse_stats,
)
from ragjudge.lm._cache import ResponseCache, ResultMemo, configure_cache, default_cache_dir
from ragjudge.lm._generation import DEFAULT_TIMEOUT, GenerationOptions, ReplyCutError
from ragjudge.lm._llama_engine import LlamaCppEngine
from ragjudge.lm._logprobs import verdict_probabilities, yes_probability
from ragjudge.lm._models import MODELS, gguf_path
from ragjudge.lm._openai_engine import OPENAI_COMPATIBLE_PREFIXES, OpenAICompatibleEngine
from ragjudge.lm._parsing import output_schema, read_verdict, salvage
from ragjudge.lm._resolve import (
    CONNECTION_KEYS,
    GGUF,
    LOCAL,
    describe_lm,
    gguf_lm,
    offline_lm,
    resolve_lm,
)
from ragjudge.lm._retry import backoff_delay, install_jitter, lm_options, uninstall_jitter
from ragjudge.lm._safety import fence, fence_value

__all__ = [
    "CONNECTION_KEYS",
    "DEFAULT_TIMEOUT",
    "GGUF",
    "LOCAL",
    "MODELS",
    "OPENAI_COMPATIBLE_PREFIXES",
    "CachedChatAdapter",
    "GenerationOptions",
    "LlamaCppEngine",
    "OpenAICompatibleEngine",
    "ParseStats",
    "ReplyCutError",
    "ResponseCache",
    "ResultMemo",
    "StructuredChatAdapter",
    "backoff_delay",
    "configure_cache",
    "default_adapter",
    "default_cache_dir",
    "describe_lm",
    "fence",
    "fence_value",
    "gguf_lm",
    "gguf_path",
    "install_jitter",
    "lm_options",
    "offline_lm",
    "output_schema",
    "parse_stats",
    "read_verdict",
    "resolve_lm",
    "salvage",
    "uninstall_jitter",
    "verdict_probabilities",
    "yes_probability",
]
