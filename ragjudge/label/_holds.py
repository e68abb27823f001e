"""What every `ragjudge label` process on one gold file shares beyond the gold file itself:
which row each reviewer holds, the draws (`--strategy estimate`) that landed on a row while
someone held it, and the notes reviewers typed and have not sent yet. They live in a small
SQLite file beside the gold file (`<gold>.holds.sqlite`), so that two processes (two
terminals, or a server started again while a reviewer's hold is live) never hand out the same
row at once, and a note typed on one page is there on any other.

The file is also the lock: each step of a session (choose a row, append an answer, read the
figures) runs inside one write transaction on it (`BEGIN IMMEDIATE`), and appends to the gold
file happen inside that transaction, so one process at a time reads the gold file's new lines,
chooses and appends. SQLite's lock is released by the operating system when a process dies,
and a hold lapses after its time (`seconds`) without a word from its reviewer's page.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ragjudge.exceptions import GoldDataError

__all__ = ["Holds", "holds_path"]

#: How long a process waits for another's step to finish before it gives up (seconds).
WAIT_SECONDS = 30.0

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS holds "
    "(reviewer TEXT PRIMARY KEY, row_id TEXT NOT NULL, expires REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS pending (row_id TEXT PRIMARY KEY, draws TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS facts (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS drafts "
    "(reviewer TEXT NOT NULL, row_id TEXT NOT NULL, note TEXT NOT NULL, "
    "PRIMARY KEY (reviewer, row_id))",
)


def holds_path(gold: str | os.PathLike[str]) -> Path:
    """Where the holds of the sessions on `gold` are kept: `<gold>.holds.sqlite`."""
    path = Path(gold)
    return path.with_name(path.name + ".holds.sqlite")


class Holds:
    """The holds file of one gold file.

    The holds, the draws waiting and the unsent notes are of one gold file: when that file
    is deleted or replaced (another file at its path), they are dropped, so that a gold file
    started afresh gets no draws made for the one before it.

    Args:
        path: The file (`holds_path(gold)`); created when missing.
        seconds: How long a row shown to a reviewer stays theirs without an answer.
        gold: The gold file.
    """

    def __init__(self, path: Path, *, seconds: float, gold: Path) -> None:
        self.path = path
        self.seconds = seconds
        self.gold = gold
        self._db: sqlite3.Connection | None = None

    @contextmanager
    def locked(self) -> Iterator[Holds]:
        """Hold the lock (a write transaction) for one step; commit at the end, or roll back
        if the step fails.

        Raises:
            GoldDataError: The file is not a holds file, or another process kept the lock
                longer than `WAIT_SECONDS`.
        """
        db = self._connect()
        self._db = db
        try:
            try:
                db.execute("BEGIN IMMEDIATE")
                for statement in _SCHEMA:
                    db.execute(statement)
                self._same_gold(db)
            except sqlite3.DatabaseError as exc:
                raise self._error(exc) from None
            try:
                yield self
            except BaseException:
                db.rollback()
                raise
            db.commit()
        finally:
            self._db = None
            db.close()

    def _same_gold(self, db: sqlite3.Connection) -> None:
        """Drop the holds and the draws waiting when the gold file they were for is gone or
        was replaced (its device and inode differ)."""
        try:
            st = self.gold.stat()
            now: str | None = f"{st.st_dev}:{st.st_ino}"
        except FileNotFoundError:
            now = None
        found = db.execute("SELECT value FROM facts WHERE name = 'gold'").fetchone()
        was = None if found is None else str(found[0])
        if was == now:
            return
        if was is not None:  # deleted or replaced: what was held was for another file
            db.execute("DELETE FROM holds")
            db.execute("DELETE FROM pending")
            db.execute("DELETE FROM drafts")
            db.execute("DELETE FROM facts WHERE name = 'gold'")
        if now is not None:
            db.execute("INSERT OR REPLACE INTO facts (name, value) VALUES ('gold', ?)", (now,))

    def _connect(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(self.path, timeout=WAIT_SECONDS, isolation_level=None)
            # the holds are soft state (they lapse anyway): no sync to disk on each step; the
            # gold file is synced by itself
            db.execute("PRAGMA synchronous=OFF")
        except sqlite3.DatabaseError as exc:
            raise self._error(exc) from None
        return db

    def _error(self, exc: sqlite3.DatabaseError) -> GoldDataError:
        if "locked" in str(exc):
            return GoldDataError(
                f"another `ragjudge label` process kept the holds file locked for over "
                f"{WAIT_SECONDS:.0f} s; stop it or try again",
                file=str(self.path),
            )
        if isinstance(exc, sqlite3.OperationalError):  # cannot be created or opened
            return GoldDataError(
                f"the holds file of `ragjudge label` cannot be opened ({exc}); the gold file's "
                "folder must be writable",
                file=str(self.path),
            )
        return GoldDataError(
            f"is not a holds file of `ragjudge label` ({exc}); delete it (it holds only which "
            "row each reviewer has open)",
            file=str(self.path),
        )

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            raise RuntimeError("the holds are read and changed only inside `locked()`")
        return self._db

    def live(self) -> tuple[dict[str, tuple[str, float]], dict[str, str]]:
        """Every hold that has not lapsed (reviewer -> (row id, when it lapses, epoch
        seconds)), and those that lapsed since the last step (row id -> reviewer), which are
        removed."""
        now = time.time()
        gone = self.db.execute(
            "SELECT reviewer, row_id FROM holds WHERE expires <= ?", (now,)
        ).fetchall()
        self.db.execute("DELETE FROM holds WHERE expires <= ?", (now,))
        rows = self.db.execute("SELECT reviewer, row_id, expires FROM holds").fetchall()
        live = {str(who): (str(row_id), float(expires)) for who, row_id, expires in rows}
        return live, {str(row_id): str(who) for who, row_id in gone}

    def hold(self, reviewer: str, row_id: str) -> float:
        """Give `row_id` to `reviewer` (or renew it) for `seconds`; when it lapses."""
        expires = time.time() + self.seconds
        self.db.execute(
            "INSERT INTO holds (reviewer, row_id, expires) VALUES (?, ?, ?) "
            "ON CONFLICT(reviewer) DO UPDATE SET row_id = excluded.row_id, "
            "expires = excluded.expires",
            (reviewer, row_id, expires),
        )
        return expires

    def release(self, reviewer: str, row_id: str | None = None) -> None:
        """Drop `reviewer`'s hold (only if it is on `row_id`, when given)."""
        if row_id is None:
            self.db.execute("DELETE FROM holds WHERE reviewer = ?", (reviewer,))
        else:
            self.db.execute(
                "DELETE FROM holds WHERE reviewer = ? AND row_id = ?", (reviewer, row_id)
            )

    def count(self, name: str) -> int:
        """Add one to the counter `name` and return it (1 the first time)."""
        self.db.execute(
            "INSERT INTO counters (name, value) VALUES (?, 1) "
            "ON CONFLICT(name) DO UPDATE SET value = value + 1",
            (name,),
        )
        found = self.db.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()
        return int(found[0])

    def add_draw(self, row_id: str, probability: float) -> None:
        """Keep a draw of `row_id` until its answer is written (`take_draws`)."""
        found = self.db.execute("SELECT draws FROM pending WHERE row_id = ?", (row_id,)).fetchone()
        draws = ([] if found is None else json.loads(found[0])) + [probability]
        self.db.execute(
            "INSERT INTO pending (row_id, draws) VALUES (?, ?) "
            "ON CONFLICT(row_id) DO UPDATE SET draws = excluded.draws",
            (row_id, json.dumps(draws)),
        )

    def waiting(self) -> list[str]:
        """The rows whose draws wait for an answer."""
        return [str(r) for (r,) in self.db.execute("SELECT row_id FROM pending").fetchall()]

    def take_draws(self, row_id: str) -> list[float]:
        """The draws of `row_id` waiting for its answer; they are removed."""
        found = self.db.execute("SELECT draws FROM pending WHERE row_id = ?", (row_id,)).fetchone()
        if found is None:
            return []
        self.db.execute("DELETE FROM pending WHERE row_id = ?", (row_id,))
        return [float(x) for x in json.loads(found[0])]

    def keep_draft(self, reviewer: str, row_id: str, note: str) -> None:
        """Keep a note `reviewer` typed on `row_id` and has not sent (an empty one: drop it)."""
        if note:
            self.db.execute(
                "INSERT INTO drafts (reviewer, row_id, note) VALUES (?, ?, ?) "
                "ON CONFLICT(reviewer, row_id) DO UPDATE SET note = excluded.note",
                (reviewer, row_id, note),
            )
        else:
            self.drop_draft(reviewer, row_id)

    def draft(self, reviewer: str, row_id: str) -> str | None:
        """The note `reviewer` typed on `row_id` and has not sent (None: none)."""
        found = self.db.execute(
            "SELECT note FROM drafts WHERE reviewer = ? AND row_id = ?", (reviewer, row_id)
        ).fetchone()
        return None if found is None else str(found[0])

    def drop_draft(self, reviewer: str, row_id: str) -> None:
        """Forget `reviewer`'s unsent note on `row_id` (sent with the answer)."""
        self.db.execute("DELETE FROM drafts WHERE reviewer = ? AND row_id = ?", (reviewer, row_id))

    def reviewers(self) -> list[str]:
        """The reviewers holding a row or keeping a note."""
        rows = self.db.execute(
            "SELECT reviewer FROM holds UNION SELECT reviewer FROM drafts"
        ).fetchall()
        return [str(who) for (who,) in rows]
