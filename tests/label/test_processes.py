"""Several `ragjudge label` processes on one gold file (two terminals, or a server started
again while a reviewer's hold is live): the holds file beside the gold file keeps one row with
one reviewer at a time, every answer lands in the file once, and each process reads what the
other appended before it chooses (driven over HTTP on 127.0.0.1, as the page does)."""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from label_helpers import ROOT, Server, gold_lines, start_label

from ragjudge.data._gold import load_gold
from ragjudge.label import open_session
from ragjudge.label._holds import holds_path

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")


def _get(server: Server, path: str, **query: str) -> Any:
    url = server.url + path.lstrip("/") + "?" + urllib.parse.urlencode(query)
    with urllib.request.urlopen(url, timeout=60) as response:
        return json.loads(response.read())


def _post(server: Server, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        server.url + "api/answer",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def _said(reviewer: str, row_id: str) -> str:
    """A reviewer's answer to a row: fixed per pair, so that reviewers sometimes differ, and
    one answer in seven is a skip."""
    h = zlib.crc32(f"{reviewer}/{row_id}".encode())
    return "skip" if h % 7 == 0 else ("faithful" if h % 2 else "not faithful")


def test_two_processes_never_hand_out_one_row_twice_and_write_each_answer_once(
    traffic: Path, tmp_path: Path, servers: list[Server]
) -> None:
    gold = tmp_path / "gold.jsonl"
    args = ("--rows", str(traffic), "--gold", str(gold), "--overlap", "0.5")
    one = start_label(*args, cwd=tmp_path)
    servers.append(one)
    two = start_label(*args, cwd=tmp_path)
    servers.append(two)
    team = {"ana": one, "ben": one, "cy": two, "dan": two}
    spans: list[tuple[str, str, float, float]] = []  # row, reviewer, held from, held until
    posted: list[tuple[str, str, str]] = []  # reviewer, row, answer
    errors: list[BaseException] = []
    record = threading.Lock()

    def review(name: str, server: Server) -> None:
        try:
            for _ in range(9):
                row = _get(server, "api/next", reviewer=name)["row"]
                if row is None:
                    return
                got = time.monotonic()  # the server held it before it answered
                said = _said(name, row["id"])
                time.sleep(0.01)
                with record:
                    spans.append((row["id"], name, got, time.monotonic()))
                    posted.append((name, row["id"], said))
                # the hold ends only once this answer is written
                _post(server, {"reviewer": name, "id": row["id"], "answer": said})
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=review, args=item) for item in team.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    assert len(posted) >= 30  # both servers answered rows

    # never the same row held by two reviewers at once
    by_row: dict[str, list[tuple[str, float, float]]] = {}
    for row_id, name, start, end in spans:
        by_row.setdefault(row_id, []).append((name, start, end))
    for row_id, held in by_row.items():
        held.sort(key=lambda x: x[1])
        for (a, _, a_end), (b, b_start, _) in itertools.pairwise(held):
            assert b_start >= a_end, f"{row_id} held by {a} and {b} at once"
        # nobody got a row twice
        assert len({name for name, _, _ in held}) == len(held), (row_id, held)

    # every answer in the file once, nothing else
    lines = gold_lines(gold)
    written = [
        (
            x["meta"]["reviewer"],
            x["id"],
            {1: "faithful", 0: "not faithful", None: "skip"}[x["faithful"]],
        )
        for x in lines
    ]
    assert sorted(written) == sorted(posted)
    assert {(x["meta"]["reviewer"], x["meta"]["labeled_at"] is not None) for x in lines} == {
        (name, True) for name in {n for n, _, _ in posted}
    }
    assert {r.id for r in load_gold(gold)} <= {row for _, row, _ in posted}

    # rows two reviewers answered differently, seen by both processes whoever answered where
    labels: dict[str, dict[str, str]] = {}
    for name, row_id, said in posted:
        if said != "skip":
            labels.setdefault(row_id, {})[name] = said
    expected = sorted(r for r, v in labels.items() if len(v) >= 2 and len(set(v.values())) > 1)
    assert sum(1 for v in labels.values() if len(v) >= 2) >= 3  # the overlap rows happened
    for server, name in ((one, "ana"), (two, "dan")):
        raters = _get(server, "api/next", reviewer=name)["figures"]["raters"]
        assert [d["id"] for d in raters["disagreements"]] == expected
        assert raters["shared"] == sum(1 for v in labels.values() if len(v) >= 2)
    codes = [one.stop(), two.stop()]
    assert all(code == 0 and "Traceback" not in err for code, err in codes)


def test_a_hold_outlives_its_server(traffic: Path, tmp_path: Path, servers: list[Server]) -> None:
    gold = tmp_path / "gold.jsonl"
    args = ("--rows", str(traffic), "--gold", str(gold), "--strategy", "uncertain")
    first = start_label(*args, cwd=tmp_path)
    servers.append(first)
    other = start_label(*args, cwd=tmp_path)
    servers.append(other)
    held = _get(first, "api/next", reviewer="ana")["row"]["id"]
    first.kill()  # ana's row is still hers: a restarted server gives it back, no one else
    again = start_label(*args, cwd=tmp_path)
    servers.append(again)
    seen = []
    for _ in range(5):
        row = _get(other, "api/next", reviewer="ben")["row"]
        seen.append(row["id"])
        _post(other, {"reviewer": "ben", "id": row["id"], "answer": "faithful"})
    assert held not in seen
    assert _get(again, "api/next", reviewer="ana")["row"]["id"] == held
    _post(again, {"reviewer": "ana", "id": held, "answer": "not faithful"})
    # ben's answers, written by the other process, are not handed out again here
    nxt = _get(again, "api/next", reviewer="ana")["row"]["id"]
    assert nxt not in [*seen, held]
    assert [(x["meta"]["reviewer"], x["id"]) for x in gold_lines(gold)] == [
        *[("ben", s) for s in seen],
        ("ana", held),
    ]


def test_holds_lapse_and_are_shared_by_sessions(traffic: Path, tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    one = open_session(rows=traffic, gold=gold, strategy="uncertain", hold_seconds=0.5)
    two = open_session(rows=traffic, gold=gold, strategy="uncertain", hold_seconds=60)
    assert holds_path(gold).exists()
    ana = one.next_row("ana")
    ben = two.next_row("ben")
    assert ana is not None and ben is not None and ana != ben  # uncertain: the same order
    time.sleep(0.6)
    assert two.next_row("cy") == ana  # ana's hold lapsed (ben's did not): her row is free
    two.answer(reviewer="cy", row_id=ana, label=1)
    # one reads two's answer before choosing: ana is not handed her old row, answered by cy
    assert one.next_row("ana") not in (ana, ben)
    assert one.figures("ana")["labeled"] == 1


def test_draws_of_a_row_held_elsewhere_wait_for_its_answer(traffic: Path, tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    one = open_session(rows=traffic, gold=gold, strategy="estimate", seed=5)
    two = open_session(rows=traffic, gold=gold, strategy="estimate", seed=5)
    held = one.next_row("ana")
    assert held is not None
    for _ in range(25):
        row_id = two.next_row("ben")
        if row_id is None:
            break
        assert row_id != held
        two.answer(reviewer="ben", row_id=row_id, label=1)
    with closing(sqlite3.connect(holds_path(gold))) as db:
        found = db.execute("SELECT draws FROM pending WHERE row_id = ?", (held,)).fetchone()
    waiting = json.loads(found[0])
    assert len(waiting) >= 2  # one's draw, and the other process's draws of it
    one.answer(reviewer="ana", row_id=held, label=0)
    line = gold_lines(gold)[-1]
    assert line["id"] == held and line["meta"]["sampling"]["pi"] == waiting
    # every draw of the other process is in the file: its rows' draws, and those of ana's row
    ben = [x for x in gold_lines(gold) if x["meta"]["reviewer"] == "ben"]
    assert len({x["id"] for x in ben}) == len(two.history["ben"])


def test_a_gold_file_started_afresh_gets_nothing_of_the_one_before(
    traffic: Path, tmp_path: Path
) -> None:
    gold = tmp_path / "gold.jsonl"
    one = open_session(rows=traffic, gold=gold, strategy="estimate", seed=1)
    first = one.next_row("ana")
    assert first is not None
    one.answer(reviewer="ana", row_id=first, label=1)
    assert one.next_row("ana") is not None  # held, its draw waiting

    def left() -> tuple[int, int]:
        with closing(sqlite3.connect(holds_path(gold))) as db:
            holds = db.execute("SELECT COUNT(*) FROM holds").fetchone()[0]
            pending = db.execute("SELECT COUNT(*) FROM pending").fetchone()[0]
        return int(holds), int(pending)

    assert left() == (1, 1)
    gold.unlink()  # start over: the holds and draws were for the file deleted
    open_session(rows=traffic, gold=gold, strategy="estimate", seed=1)
    assert left() == (0, 0)


def test_a_process_killed_between_an_answer_and_the_commit_leaves_no_draw_behind(
    traffic: Path, tmp_path: Path
) -> None:
    """Killed after the answer is written and synced to the gold file, before the holds file's
    transaction commits: the holds file rolls back to the draws waiting for that row, which are
    in the answer's line already; they must not be counted again."""
    gold = tmp_path / "gold.jsonl"
    script = (
        "import os\n"
        "from ragjudge.label import open_session\n"
        "from ragjudge.label._holds import Holds\n"
        f"session = open_session(rows={str(traffic)!r}, gold={str(gold)!r}, "
        "strategy='estimate', seed=1)\n"
        "row = session.next_row('ana')\n"
        "Holds.release = lambda self, *a, **k: os._exit(9)\n"  # the step's last change
        "session.answer(reviewer='ana', row_id=row, label=1)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", script], env=env, timeout=300, check=False)
    assert done.returncode == 9
    [line] = gold_lines(gold)
    drawn = line["meta"]["sampling"]["pi"]
    with closing(sqlite3.connect(holds_path(gold))) as db:  # rolled back: the draws wait
        assert db.execute("SELECT row_id FROM pending").fetchall() == [(line["id"],)]

    session = open_session(rows=traffic, gold=gold, strategy="estimate", seed=1)
    session.figures("ben")  # any step settles what the killed one left
    with closing(sqlite3.connect(holds_path(gold))) as db:
        assert db.execute("SELECT COUNT(*) FROM pending").fetchone()[0] == 0
        assert db.execute("SELECT COUNT(*) FROM holds").fetchone()[0] == 0  # ana's ended
    session.answer(reviewer="ana", row_id=line["id"], label=0)  # changed: back, then u
    last = gold_lines(gold)[-1]
    assert (last["id"], last["faithful"], last["meta"]["sampling"]["pi"]) == (line["id"], 0, drawn)
