"""The LM response cache: DSPy's two-tier cache with a cheaper disk tier.

DSPy keys every LM call by model, messages and sampling settings (`dspy.cache.cache_key`) and
keeps the responses in memory and on disk. Its disk tier (`diskcache.FanoutCache`) writes each
response in its own SQLite transaction on up to 16 shards, with one connection per thread per
shard: at 32 calls in flight that costs more CPU than the rest of the client stack together.

`ResponseCache` keeps DSPy's cache (same keys, same memory tier, same semantics for `dspy.LM`)
and replaces only the disk tier with `SQLiteStore`: one SQLite file in WAL mode, reads on
per-thread connections, writes queued and committed in batches by one background thread (at
most `flush_seconds` later, and at exit). A crash can lose the responses of the last fraction
of a second, never a finished result: `evaluate --out` writes those itself. Several processes
may share one cache folder (SQLite's locking; `busy_timeout` of 30 s).

Values are stored as JSON only (DSPy's native responses are plain data), so that no cache file
can carry code, even in a folder shared between machines (`--cache-dir`). A value that is not
JSON (a provider's response object) stays in the memory tier and is not written to disk; an
entry in another format (pickles written by older versions) is read as a miss and replaced.

`ResultMemo` adds a tier above the LM calls: each finished row's result, keyed by everything
that decides it (the judge's class, parameters and learned state, the LM's model string and
sampling settings, the adapter, the row's inputs and a fingerprint of ragjudge's own code).
A re-run of the same evaluation then reads results instead of replaying hundreds of cached LM
calls through DSPy. It is used exactly when the LM's response cache is (ragjudge's cache
installed, the LM's `cache=True`), so `--no-cache` and the offline judge bypass it too.

Example:
    >>> from ragjudge.lm._cache import configure_cache
    >>> cache = configure_cache(cache_dir="/tmp/ragjudge-cache")  # doctest: +SKIP
    >>> cache.disk_cache.flush()  # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import logging
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dspy
import numpy as np
import orjson
from dspy.clients.cache import Cache

from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._resolve import CONNECTION_KEYS

__all__ = [
    "ResponseCache",
    "ResultMemo",
    "SQLiteStore",
    "code_fingerprint",
    "configure_cache",
    "default_cache_dir",
]

logger = logging.getLogger(__name__)

FILENAME = "ragjudge-responses.sqlite3"
_JSON = "json"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS responses ("
    "key TEXT PRIMARY KEY, format TEXT NOT NULL, value BLOB NOT NULL, stored REAL NOT NULL"
    ") WITHOUT ROWID"
)


def default_cache_dir() -> Path:
    """`$RAGJUDGE_CACHE_DIR`, else `$DSPY_CACHEDIR`, else `~/.cache/ragjudge`."""
    for name in ("RAGJUDGE_CACHE_DIR", "DSPY_CACHEDIR"):
        value = os.environ.get(name)
        if value:
            return Path(value).expanduser()
    return Path("~/.cache/ragjudge").expanduser()


class SQLiteStore:
    """A key-value disk store for LM responses: one SQLite file, batched background writes.

    It has the part of `diskcache.Cache`'s interface that `dspy.clients.cache.Cache` uses
    (`get`, `set`, `delete`, `in`), plus `flush` and `close`.

    Args:
        path: The SQLite file (created with its folder).
        flush_seconds: The longest a written value waits before it is committed.
        max_pending: Commit at once when this many values are waiting.
        index_refresh_seconds: How often the in-memory index of stored keys picks up the keys
            other processes committed (a key it does not know yet is a miss meanwhile).

    Raises:
        ConfigurationError: If the file cannot be created or is not a cache.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        flush_seconds: float = 0.2,
        max_pending: int = 512,
        index_refresh_seconds: float = 5.0,
    ) -> None:
        self.path = Path(path)
        self.flush_seconds = flush_seconds
        self.max_pending = max_pending
        self._local = threading.local()
        self._lock = threading.Lock()  # guards _pending/_writing
        self._write_lock = threading.Lock()  # one commit at a time
        self._wake = threading.Event()
        self._pending: dict[str, tuple[str, bytes]] = {}
        self._writing: dict[str, tuple[str, bytes]] = {}
        self._closed = False
        self._writer: threading.Thread | None = None
        self._index = _KeyIndex(refresh_seconds=index_refresh_seconds)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = self._connection()
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute(_SCHEMA)
            connection.execute("CREATE INDEX IF NOT EXISTS responses_stored ON responses (stored)")
        except (OSError, sqlite3.Error) as exc:
            raise ConfigurationError(f"cache {self.path} cannot be opened ({exc})") from None
        # Flush at interpreter exit without keeping the store alive.
        atexit.register(_close_at_exit, weakref.ref(self))

    # -- diskcache's interface ---------------------------------------------------------------
    def get(self, key: str, default: Any = None) -> Any:
        """The value stored under `key`, or `default`."""
        with self._lock:
            found = self._pending.get(key) or self._writing.get(key)
        if found is None:
            try:
                if not self._index.may_hold(key, self._connection):
                    return default  # a sure miss, without a query (and its GIL release)
                row = (
                    self._connection()
                    .execute("SELECT format, value FROM responses WHERE key = ?", (key,))
                    .fetchone()
                )
            except sqlite3.Error as exc:
                logger.warning("cache %s: read failed (%s); treating as a miss", self.path, exc)
                return default
            if row is None:
                return default
            found = (row[0], row[1])
        return _decode(*found, key=key, path=self.path, default=default)

    def set(self, key: str, value: Any) -> bool:
        """Queue `value` under `key`; it is committed within `flush_seconds`."""
        encoded = _encode(value)
        if encoded is None:
            logger.debug("cache %s: %s is not JSON; kept in memory only", self.path, type(value))
            return False
        with self._lock:
            if self._closed:
                return False
            self._pending[key] = encoded
            full = len(self._pending) >= self.max_pending
        self._index.add(key)
        self._start_writer()
        if full:
            self._wake.set()
        return True

    def delete(self, key: str) -> bool:
        """Remove `key` (a damaged entry)."""
        with self._lock:
            self._pending.pop(key, None)
        with self._write_lock:
            cursor = self._connection().execute("DELETE FROM responses WHERE key = ?", (key,))
            self._connection().commit()
        return cursor.rowcount > 0

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __len__(self) -> int:
        self.flush()
        row = self._connection().execute("SELECT COUNT(*) FROM responses").fetchone()
        return int(row[0])

    # -- writing ---------------------------------------------------------------------------
    def flush(self) -> None:
        """Commit every queued value now."""
        with self._write_lock:
            with self._lock:
                self._writing, self._pending = self._pending, {}
                batch = list(self._writing.items())
            if not batch:
                return
            stored = time.time()
            try:
                connection = self._connection()
                with connection:
                    connection.executemany(
                        "INSERT OR REPLACE INTO responses (key, format, value, stored) "
                        "VALUES (?, ?, ?, ?)",
                        [(key, fmt, value, stored) for key, (fmt, value) in batch],
                    )
            except sqlite3.Error as exc:
                logger.warning(
                    "cache %s: %d responses not written (%s)", self.path, len(batch), exc
                )
            finally:
                with self._lock:
                    self._writing = {}

    def close(self) -> None:
        """Commit what is queued and stop the writer; later writes are ignored."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._wake.set()
        if self._writer is not None and self._writer is not threading.current_thread():
            self._writer.join(timeout=30)
        self.flush()

    def _start_writer(self) -> None:
        if self._writer is not None:
            return
        with self._lock:
            if self._writer is None:
                self._writer = threading.Thread(
                    target=self._run, name="ragjudge-cache-writer", daemon=True
                )
                self._writer.start()

    def _run(self) -> None:
        while not self._closed:
            self._wake.wait(self.flush_seconds)
            self._wake.clear()
            self.flush()

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=30, isolation_level="DEFERRED")
            connection.execute("PRAGMA synchronous=NORMAL")
            self._local.connection = connection
        return connection


class _KeyIndex:
    """Which keys the store may hold: 64-bit hashes of the stored keys, loaded once (a sorted
    array, 8 bytes a key), plus the keys written or committed since (a set).

    A miss is then answered without a query. Keys other processes commit are picked up every
    `refresh_seconds`; until then such a key is a miss (an extra LM call, never a wrong answer).
    A hash collision only costs a query.
    """

    def __init__(self, *, refresh_seconds: float) -> None:
        self.refresh_seconds = refresh_seconds
        self._lock = threading.Lock()
        self._loaded: np.ndarray | None = None
        self._recent: set[int] = set()
        self._watermark = 0.0  # `stored` time up to which other processes' keys are known
        self._refreshed = 0.0

    def add(self, key: str) -> None:
        self._recent.add(_short(key))

    def may_hold(self, key: str, connection: Callable[[], sqlite3.Connection]) -> bool:
        now = time.monotonic()
        if self._loaded is None or now - self._refreshed > self.refresh_seconds:
            with self._lock:
                if self._loaded is None or now - self._refreshed > self.refresh_seconds:
                    self._refresh(connection())
        short = _short(key)
        if short in self._recent:
            return True
        loaded = self._loaded
        assert loaded is not None
        at = int(np.searchsorted(loaded, short))
        return at < len(loaded) and int(loaded[at]) == short

    def _refresh(self, connection: sqlite3.Connection) -> None:
        since = self._watermark - 1.0  # writers' clocks and batches: overlap a little
        rows = connection.execute(
            "SELECT key, stored FROM responses WHERE stored >= ?", (since,)
        ).fetchall()
        if rows:
            self._watermark = max(self._watermark, max(stored for _, stored in rows))
        shorts = [_short(key) for key, _ in rows]
        if self._loaded is None:
            self._loaded = np.unique(np.array(shorts, dtype=np.uint64))
        else:
            self._recent.update(shorts)
        self._refreshed = time.monotonic()


def _short(key: str) -> int:
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big")


def _close_at_exit(ref: weakref.ref[SQLiteStore]) -> None:
    store = ref()
    if store is not None:
        store.close()


def _encode(value: Any) -> tuple[str, bytes] | None:
    """`(format, bytes)` of a JSON value; None for anything else (never pickled)."""
    try:
        return _JSON, orjson.dumps(value)
    except TypeError:
        return None


def _decode(fmt: str, data: bytes, *, key: str, path: Path, default: Any) -> Any:
    """A stored JSON value; an entry in any other format (an old pickle) is a miss, unread."""
    if fmt != _JSON:
        logger.debug("cache %s: entry %s is %s, not JSON; treating it as a miss", path, key, fmt)
        return default
    return orjson.loads(data)


class ResponseCache(Cache):
    """DSPy's response cache (same keys and memory tier) over a `SQLiteStore` on disk.

    Args:
        directory: The cache folder; the responses live in `ragjudge-responses.sqlite3`.
        memory_max_entries: Responses kept in memory (least recently used are dropped).
        flush_seconds: The longest a new response waits before it is committed to disk.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        memory_max_entries: int = 1_000_000,
        flush_seconds: float = 0.2,
    ) -> None:
        super().__init__(
            enable_disk_cache=False,
            enable_memory_cache=True,
            disk_cache_dir=None,
            memory_max_entries=memory_max_entries,
        )
        self.disk_cache_dir = os.fspath(directory)
        self.disk_cache: Any = SQLiteStore(Path(directory) / FILENAME, flush_seconds=flush_seconds)
        self.enable_disk_cache = True

    def cache_key(
        self, request: dict[str, Any], ignored_args_for_cache_key: list[str] | None = None
    ) -> str:
        """DSPy's key, computed without its per-value walk when the request is plain JSON.

        DSPy hashes the request after turning pydantic models and callables into JSON; a
        request of plain JSON values (every judge call) serializes to the same bytes as is.
        """
        ignored = ignored_args_for_cache_key or ()
        params = {k: v for k, v in request.items() if k not in ignored}
        try:
            data = orjson.dumps(params, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # a pydantic model, a callable, ...: DSPy's conversion
            return super().cache_key(request, ignored_args_for_cache_key)
        return hashlib.sha256(data).hexdigest()

    def _prepare_cached_response(self, response: Any) -> Any:
        # Plain data (DSPy's native responses) copies faster through orjson than deepcopy.
        if isinstance(response, dict):
            try:
                return orjson.loads(orjson.dumps(response))
            except TypeError:
                pass
        return super()._prepare_cached_response(response)


@functools.cache
def code_fingerprint() -> str:
    """A hash of ragjudge's source files and DSPy's version: a new release, or an edited
    checkout, never reads results an older one wrote."""
    from importlib import metadata

    digest = hashlib.sha256(metadata.version("dspy").encode())
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


_RESULT_PREFIX = "ragjudge-result:"


class ResultMemo:
    """Finished results of one judge, by row inputs, in the response cache's disk store.

    Build it with `ResultMemo.for_judge`; it returns None when results must not be memoized.

    Args:
        store: The disk store.
        judge_key: A digest of everything about the judge that decides a result.
    """

    def __init__(self, store: SQLiteStore, judge_key: str) -> None:
        self.store = store
        self.judge_key = judge_key

    @classmethod
    def for_judge(cls, judge: Any, lm: Any) -> ResultMemo | None:
        """The memo for `judge` calling `lm`, or None when the LM's responses are not cached.

        Args:
            judge: The judge (a `ragjudge.Judge`; its parameters and `dump_state()` count).
            lm: The `dspy.LM` it calls.
        """
        cache = vars(dspy).get("cache")
        if not isinstance(cache, ResponseCache) or not getattr(lm, "cache", False):
            return None
        params = {k: v for k, v in judge.get_params().items() if k != "lm"}
        kwargs = dict(getattr(lm, "kwargs", {}))
        adapter = dspy.settings.adapter
        material = {
            "code": code_fingerprint(),
            "judge": type(judge).__qualname__,
            "params": params,
            "state": judge.dump_state(),
            "lm": getattr(lm, "model", type(lm).__name__),
            "lm_kwargs": {k: v for k, v in kwargs.items() if k not in CONNECTION_KEYS},
            "adapter": None if adapter is None else type(adapter).__qualname__,
        }
        try:
            blob = orjson.dumps(material, option=orjson.OPT_SORT_KEYS, default=repr)
        except TypeError:
            return None
        return cls(cache.disk_cache, hashlib.sha256(blob).hexdigest())

    def key(self, inputs: dict[str, Any]) -> str:
        """The key of one row's result."""
        blob = orjson.dumps(inputs, option=orjson.OPT_SORT_KEYS, default=repr)
        return _RESULT_PREFIX + hashlib.sha256(self.judge_key.encode() + blob).hexdigest()

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored result (a `JudgeResult` as JSON data), or None."""
        value = self.store.get(key)
        return value if isinstance(value, dict) else None

    def put(self, key: str, result: dict[str, Any]) -> None:
        """Store a finished result (JSON data)."""
        self.store.set(key, result)


def configure_cache(
    *, cache_dir: str | os.PathLike[str] | None = None, enabled: bool = True
) -> ResponseCache | None:
    """Install ragjudge's response cache as `dspy.cache`, or turn caching off.

    Args:
        cache_dir: The folder; None for `default_cache_dir()`.
        enabled: False turns memory and disk caching off.

    Returns:
        The installed cache, or None when caching is off.

    Raises:
        ConfigurationError: If the folder is a file or cannot be created.

    Example:
        >>> configure_cache(cache_dir="/tmp/ragjudge-cache")  # doctest: +SKIP
    """
    if not enabled:
        dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
        return None
    folder = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    if folder.exists() and not folder.is_dir():
        raise ConfigurationError(f"cache folder {folder} is a file; name a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigurationError(f"cache folder {folder} cannot be created ({exc})") from None
    cache = ResponseCache(folder)
    with dspy._cache_lock:
        previous = dspy.cache if "cache" in vars(dspy) else None
        dspy.cache = cache
    if isinstance(previous, ResponseCache):
        previous.disk_cache.close()
    return cache
