"""ragjudge's response cache: DSPy's keys and memory tier over one SQLite file."""

from __future__ import annotations

import pickle
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import dspy
import pydantic
import pytest
from _reliability_helpers import make_rows
from dspy.clients.cache import Cache

from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._cache import FILENAME, ResponseCache, SQLiteStore, configure_cache
from ragjudge.lm._resolve import resolve_lm
from ragjudge.programs import Faithfulness
from ragjudge.programs._base import judge_inputs
from ragjudge.testing._server import TestServer


@pytest.fixture(autouse=True)
def _cache_off_afterwards() -> Iterator[None]:
    yield
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)


class Opaque:
    """Not JSON; pickled, and refused by the restricted unpickler."""


def test_store_reads_its_own_queued_writes_then_persists_them(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "c.sqlite3", flush_seconds=60)
    assert store.get("k") is None
    assert store.set("k", {"outputs": ["a"], "n": 1})
    assert store.get("k") == {"outputs": ["a"], "n": 1}  # before any commit
    assert "k" in store and "other" not in store
    with sqlite3.connect(tmp_path / "c.sqlite3") as raw:
        assert raw.execute("SELECT COUNT(*) FROM responses").fetchone() == (0,)
    store.flush()
    reopened = SQLiteStore(tmp_path / "c.sqlite3")
    assert reopened.get("k") == {"outputs": ["a"], "n": 1} and len(reopened) == 1
    assert reopened.delete("k") and reopened.get("k") is None


def test_background_writer_commits_without_a_flush(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "c.sqlite3", flush_seconds=0.05)
    store.set("k", [1, 2])
    done = threading.Event()
    for _ in range(100):
        with sqlite3.connect(tmp_path / "c.sqlite3") as raw:
            if raw.execute("SELECT COUNT(*) FROM responses").fetchone() == (1,):
                done.set()
                break
        threading.Event().wait(0.02)
    assert done.is_set()
    store.close()
    assert not store.set("late", 1)  # a closed store ignores writes


def test_many_threads_write_and_read(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "c.sqlite3", flush_seconds=0.01, max_pending=7)

    def work(t: int) -> None:
        for i in range(50):
            store.set(f"{t}-{i}", {"v": i})
            assert store.get(f"{t}-{i}") == {"v": i}

    threads = [threading.Thread(target=work, args=(t,)) for t in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.close()
    assert len(SQLiteStore(tmp_path / "c.sqlite3")) == 800


def test_non_json_values_stay_in_memory_and_are_never_pickled(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "c.sqlite3")
    assert store.set("k", Opaque()) is False
    store.flush()
    with sqlite3.connect(tmp_path / "c.sqlite3") as raw:
        assert raw.execute("SELECT COUNT(*) FROM responses").fetchone() == (0,)
    assert store.get("k") is None
    cache = configure_cache(cache_dir=tmp_path / "dspy")
    assert cache is not None
    request = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    value = Opaque()
    cache.put(request, value)
    assert cache.get(request) is not None  # the memory tier keeps it
    cache.disk_cache.flush()
    assert len(cache.disk_cache) == 0


class _Payload:
    """Unpickling this runs code: it would create the file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Path.touch, (str(self.path),))  # type: ignore[return-value]


def test_an_old_pickled_entry_is_a_miss_and_is_never_unpickled(tmp_path: Path) -> None:
    target = tmp_path / "pwned"
    store = SQLiteStore(tmp_path / "c.sqlite3")
    store.close()
    with sqlite3.connect(tmp_path / "c.sqlite3") as raw:
        raw.execute(
            "INSERT INTO responses (key, format, value, stored) VALUES (?, ?, ?, 0)",
            ("k", "pickle", pickle.dumps(_Payload(target))),
        )
    reopened = SQLiteStore(tmp_path / "c.sqlite3")
    assert reopened.get("k") is None and reopened.get("k", "miss") == "miss"
    assert not target.exists()
    reopened.set("k", {"outputs": ["fresh"]})  # a new response replaces it, as JSON
    reopened.flush()
    with sqlite3.connect(tmp_path / "c.sqlite3") as raw:
        assert raw.execute("SELECT format FROM responses").fetchall() == [("json",)]
    assert reopened.get("k") == {"outputs": ["fresh"]}


def test_a_damaged_entry_is_a_miss_and_is_dropped(tmp_path: Path) -> None:
    cache = configure_cache(cache_dir=tmp_path)
    assert cache is not None
    request = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    cache.disk_cache.set(cache.cache_key(request), Opaque())
    assert cache.get(request) is None
    assert len(cache.disk_cache) == 0


class _Schema(pydantic.BaseModel):
    verdict: str


@pytest.mark.parametrize(
    "request_",
    [
        {"model": "m", "messages": [{"role": "user", "content": "é"}], "temperature": 0.0},
        {"model": "m", "values": [1, 2.5, None, True], "pair": (1, 2), "_fn_identifier": "a.b"},
        {"model": "m", "response_format": _Schema, "nested": {"m": _Schema(verdict="yes")}},
        {"model": "m", "nested": {"callback": len}},
    ],
)
def test_keys_are_dspys_keys(tmp_path: Path, request_: dict[str, object]) -> None:
    ours = ResponseCache(tmp_path)
    theirs = Cache(enable_disk_cache=False, enable_memory_cache=True, disk_cache_dir=None)
    assert ours.cache_key(request_) == theirs.cache_key(request_)
    assert ours.cache_key(request_, ["model"]) == theirs.cache_key(request_, ["model"])
    assert ours.cache_key(request_, ["model"]) != ours.cache_key(request_)


def test_configure_cache_installs_it_and_checks_the_folder(tmp_path: Path) -> None:
    cache = configure_cache(cache_dir=tmp_path / "a")
    assert dspy.cache is cache and isinstance(cache, ResponseCache)
    assert (tmp_path / "a" / FILENAME).is_file()
    assert configure_cache(enabled=False) is None
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigurationError, match="is a file"):
        configure_cache(cache_dir=tmp_path / "file")


def test_a_rerun_in_a_new_cache_object_makes_no_lm_call(tmp_path: Path) -> None:
    rows = make_rows(8)
    with TestServer(delay=0.0) as server:
        lm = resolve_lm("openai/gpt-4o-mini", api_base=server.api_base, api_key="x")
        first = configure_cache(cache_dir=tmp_path)
        cold = Faithfulness(lm=lm).batch(rows, concurrency=4)
        calls = server.stats()["requests"]
        assert first is not None
        first.disk_cache.close()  # as at the end of a process
        configure_cache(cache_dir=tmp_path)  # a new process: empty memory tier
        warm = Faithfulness(lm=lm).batch(rows, concurrency=4)
        assert server.stats()["requests"] == calls
    assert sum(r.lm_calls for r in warm) == 0 and calls == sum(r.lm_calls for r in cold) > 0
    assert [r.score for r in warm] == [r.score for r in cold]


def test_rerun_reads_finished_results_without_calling_the_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = make_rows(6)
    with TestServer(delay=0.0) as server:
        lm = resolve_lm("openai/gpt-4o-mini", api_base=server.api_base, api_key="x")
        configure_cache(cache_dir=tmp_path)
        cold = Faithfulness(lm=lm).batch(rows, concurrency=3)
        configure_cache(cache_dir=tmp_path)  # a new process (the old store flushed at close)

        def never(self: Faithfulness, **inputs: object) -> None:
            raise AssertionError("a memoized row was judged again")

        with monkeypatch.context() as patch:
            patch.setattr(Faithfulness, "forward", never)
            warm = Faithfulness(lm=lm).batch(rows, concurrency=3)
        assert [r.model_dump() for r in warm] == [
            r.model_copy(update={"lm_calls": 0, "tokens": 0}).model_dump() for r in cold
        ]
        # Anything that decides a result is in the key: another threshold is judged anew
        # (from the LM cache: no request reaches the server).
        requests, calls = server.stats()["requests"], []
        real = Faithfulness.forward

        def counted(self: Faithfulness, **inputs: object) -> object:
            calls.append(1)
            return real(self, **inputs)

        with monkeypatch.context() as patch:
            patch.setattr(Faithfulness, "forward", counted)
            Faithfulness(lm=lm, threshold=0.3).batch(rows)
        assert len(calls) == len(rows) and server.stats()["requests"] == requests


def test_no_memo_without_the_response_cache_or_for_failed_rows(tmp_path: Path) -> None:
    rows = make_rows(2)
    assert Faithfulness()._result_memo() is None  # the offline judge is never cached
    with TestServer(delay=0.0, script=["500"]) as server:
        lm = resolve_lm("openai/gpt-4o-mini", api_base=server.api_base, api_key="x", num_retries=0)
        assert Faithfulness(lm=lm)._result_memo() is None  # DSPy's own cache is installed
        configure_cache(cache_dir=tmp_path)
        assert Faithfulness(lm=lm.copy(cache=False))._result_memo() is None  # --no-cache
        memo = Faithfulness(lm=lm)._result_memo()
        assert memo is not None
        failed = Faithfulness(lm=lm).batch(rows[:1])
        assert failed[0].error is not None
        assert memo.get(memo.key(judge_inputs(rows[0]))) is None  # errors are not kept
        retried = Faithfulness(lm=lm).batch(rows[:1])
        assert retried[0].error is None and retried[0].lm_calls > 0


def test_keys_other_processes_commit_are_found_after_the_index_refresh(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    reader = SQLiteStore(path, index_refresh_seconds=0.2)
    assert reader.get("k") is None  # loads the (empty) index: a miss without a query
    writer = SQLiteStore(path)  # another process
    writer.set("k", {"v": 1})
    writer.flush()
    assert reader.get("k") is None  # not picked up yet: a miss, never a wrong value
    threading.Event().wait(0.3)
    assert reader.get("k") == {"v": 1}
    reopened = SQLiteStore(path)
    assert reopened.get("k") == {"v": 1} and reopened.get("other") is None
