"""Language models: model strings, engines, retries, the response cache and the adapter."""

from ragjudge.lm._adapters import CachedChatAdapter, default_adapter
from ragjudge.lm._cache import ResponseCache, ResultMemo, configure_cache, default_cache_dir
from ragjudge.lm._openai_engine import OPENAI_COMPATIBLE_PREFIXES, OpenAICompatibleEngine
from ragjudge.lm._resolve import CONNECTION_KEYS, LOCAL, describe_lm, offline_lm, resolve_lm
from ragjudge.lm._retry import backoff_delay, install_jitter, lm_options, uninstall_jitter
from ragjudge.lm._safety import fence, fence_value

__all__ = [
    "CONNECTION_KEYS",
    "LOCAL",
    "OPENAI_COMPATIBLE_PREFIXES",
    "CachedChatAdapter",
    "OpenAICompatibleEngine",
    "ResponseCache",
    "ResultMemo",
    "backoff_delay",
    "configure_cache",
    "default_adapter",
    "default_cache_dir",
    "describe_lm",
    "fence",
    "fence_value",
    "install_jitter",
    "lm_options",
    "offline_lm",
    "resolve_lm",
    "uninstall_jitter",
]
