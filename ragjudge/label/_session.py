"""A labeling session: the traffic rows, the gold file every answer is appended to, which row
each reviewer holds, and the running figures.

The gold file is the truth: every answer (faithful, not faithful, skip) is one line appended at
once (flushed and synced), in the format every command reads (`load_gold`: a later answer for
an id wins, a skip leaves the id out). Starting again reads it back and goes on where the
reviewers stopped. Several processes may serve one gold file: each step (choose a row, append
an answer, read the figures) runs under the lock of the holds file beside it (`_holds.py`),
and first reads the lines the other processes appended since (`Session._sync`), so no process
chooses from a stale view, and none drops or repeats another's answers.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from ragjudge.data._gold import REVIEW_TIME_KEY, GoldRecord, is_review_answer, load_gold
from ragjudge.estimation._drawn import draws_of, skip_note, skipped_draws
from ragjudge.exceptions import GoldDataError
from ragjudge.label._holds import Holds, holds_path
from ragjudge.label._marks import judge_row, statement_marks
from ragjudge.label._scores import ScoreCache, file_sha256
from ragjudge.label._strategy import EstimateStrategy, RandomStrategy, Strategy, make_strategy
from ragjudge.programs._base import Judge
from ragjudge.programs._results import JudgeResult
from ragjudge.stats._active import active_mean, labels_for_active_width
from ragjudge.stats._agreement import cohen_kappa, krippendorff_alpha
from ragjudge.stats._ppi import labels_for_width, mean_estimate

__all__ = ["LEASE_SECONDS", "Answer", "Session", "SessionStoppedError", "read_answers"]

#: How long a row shown to a reviewer stays theirs without an answer.
LEASE_SECONDS = 15 * 60
#: Labels before the page shows an estimate.
MIN_FOR_ESTIMATE = 10


class SessionStoppedError(GoldDataError):
    """A file changed under a running session so that it cannot go on (the rows file changed
    or is gone; the gold file got shorter): the page says so and the command stops. Every
    answer so far is in the gold file."""


class Answer:
    """One line of the gold file: a reviewer's answer to a row."""

    __slots__ = ("draws", "id", "label", "line", "note", "reviewer", "strategy")

    def __init__(
        self,
        *,
        id: str,
        label: int | None,
        reviewer: str,
        note: str = "",
        strategy: str = "",
        draws: list[float] | None = None,
        line: int = 0,
    ) -> None:
        self.id, self.label, self.reviewer, self.note = id, label, reviewer, note
        self.strategy, self.draws, self.line = strategy, list(draws or []), line


def read_answers(path: Path) -> tuple[list[GoldRecord], list[Answer]]:
    """The gold file's rows as every command reads them (`load_gold`), and every review answer
    in it, in order.

    Raises:
        GoldDataError: A file that is not ragjudge's format, or an id labeled twice by hand.
    """
    if not path.exists() or path.stat().st_size == 0:
        return [], []
    text = path.read_bytes()
    if not text.strip():
        return [], []
    records = load_gold(path) if path.suffix == ".jsonl" else _refuse_suffix(path)
    answers: list[Answer] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        answer = _answer_of(GoldRecord.model_validate(json.loads(line)), number)
        if answer is not None:
            answers.append(answer)
    return records, answers


def _answer_of(record: GoldRecord, number: int) -> Answer | None:
    """The review answer a gold line holds (None: a line not written by the page)."""
    if not is_review_answer(record):
        return None
    review = record.meta.get("review") or {}
    return Answer(
        id=record.id,
        label=record.faithful,
        reviewer=str(record.meta.get("reviewer")),
        note=str(review.get("note") or ""),
        strategy=str(review.get("strategy") or ""),
        draws=draws_of(record),
        line=number,
    )


def _refuse_suffix(path: Path) -> list[GoldRecord]:
    raise GoldDataError("the gold file of `ragjudge label` must be a .jsonl file", file=str(path))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class Session:
    """What the review page serves: rows, answers, holds and figures.

    Args:
        rows: The traffic rows (ids unique).
        rows_path: Their file (checksummed: a change under a running session stops it).
        gold_path: The gold file answers are appended to.
        scores: The judge's cached scores of the rows.
        judge: The judge (its statements of the row shown are judged when it is shown).
        strategy: `random`, `uncertain` or `estimate`.
        threshold: The judge's pass threshold (`uncertain` starts nearest it).
        target_width: The interval width the page counts labels toward.
        seed: Seeds the strategies' draws.
        level: The interval's level.
        overlap: The share of each reviewer's rows that are rows another reviewer labeled
            (for inter-rater agreement; 0: none).
        hold_seconds: How long a row shown to a reviewer stays theirs without an answer.
    """

    def __init__(
        self,
        *,
        rows: Sequence[GoldRecord],
        rows_path: Path,
        gold_path: Path,
        scores: ScoreCache,
        judge: Judge,
        strategy: str = "random",
        threshold: float = 0.5,
        target_width: float | None = None,
        seed: int = 0,
        level: float = 0.95,
        overlap: float = 0.0,
        hold_seconds: float = LEASE_SECONDS,
    ) -> None:
        self.rows = list(rows)
        self.overlap = overlap
        self.index = {r.id: i for i, r in enumerate(self.rows)}
        self.rows_path, self.gold_path = rows_path, gold_path
        self.rows_stat = self._stat()
        self.rows_sha256 = scores.rows_sha256
        self.scores = scores
        self.judge = judge
        self.results: dict[str, JudgeResult] = {}
        self.strategy_name = strategy
        self.target_width, self.level = target_width, level
        self.lock = threading.Lock()  # this process's threads; `holds` locks across processes
        self.holds = Holds(holds_path(gold_path), seconds=hold_seconds, gold=gold_path)
        self.held: dict[str, tuple[str, float]] = {}  # reviewer -> (row id, lapses), last read
        self.history: dict[str, list[str]] = {}  # reviewer -> ids answered, first answer order
        self.latest: dict[str, Answer] = {}  # id -> the last answer (the one that counts)
        self.by_reviewer: dict[str, dict[str, Answer]] = {}  # reviewer -> id -> last answer
        self.hand_labeled: set[str] = set()  # ids the gold file labels by hand
        self.predictions = np.where(np.isnan(scores.scores), 0.0, scores.scores)
        self.f_bar = float(self.predictions.mean())
        self._read = 0  # bytes of the gold file read
        self._lines = 0  # and its lines
        self._tail_open = False  # the last line read had no newline (a hand-written end)
        self._live: Strategy | None = None  # the strategy, once it learns from new answers
        with self.lock, self.holds.locked():
            self._sync()
            start = self.holds.count("starts")
        n_draws = sum(len(a.draws) for a in self.latest.values())
        self.strategy = make_strategy(
            strategy,
            scores=scores.scores,
            sources=[r.source for r in self.rows],
            threshold=threshold,
            # random, uncertain: the same order on each start and in each process; estimate: a
            # fresh stream of draws on each start, another in each process
            seed=[seed, n_draws, len(self.latest), start] if strategy == "estimate" else seed,
            done=self._done_index,
        )
        if isinstance(self.strategy, EstimateStrategy):  # what the draws so far taught
            for answer in self.latest.values():
                if answer.label is not None and answer.id in self.index:
                    for _ in answer.draws:
                        self.strategy.observe(self.index[answer.id], answer.label)
        self._live = self.strategy

    # -- state ---------------------------------------------------------------------------------

    @contextmanager
    def _step(self) -> Iterator[None]:
        """One step of the session (choose, answer, read the figures): under the lock every
        process on the gold file shares, after reading what the others appended."""
        with self.lock, self.holds.locked():
            self._sync()
            self.held, lapsed = self.holds.live()
            self._settle(lapsed)
            yield

    def _settle(self, lapsed: dict[str, str]) -> None:
        """Settle what a step left in the holds file when nothing more is to come of it:

        - a hold on a row its reviewer answered, and the draws waiting for a row whose answer
          is in the gold file already (a process died after the answer was written and
          synced, before the holds file's commit): the draws are in that line, and are dropped
          here so that no later answer counts them twice;
        - the hold of the reviewer it was shown to lapsed (`lapsed`: row id -> reviewer) and
          no one holds it: the row was shown and never answered, which drops its draws as a
          skip does, so it is written as that reviewer's skip (`review.unanswered`) and
          counted with the skips, on the page and by `estimate`. An answer given later still
          replaces it, with its draws.
        """
        for who, (row_id, _) in list(self.held.items()):
            if row_id in self.by_reviewer.get(who, {}):  # answered: the hold ended with it
                self.holds.release(who, row_id)
                del self.held[who]
        held = {row_id for row_id, _ in self.held.values()}
        for row_id in self.holds.waiting():
            if row_id not in self.index:
                continue  # drawn from another rows file: its draws wait for that one
            if row_id in self.latest:
                self.holds.take_draws(row_id)
            elif row_id in lapsed and row_id not in held:
                draws = self.holds.take_draws(row_id)
                who = lapsed[row_id]
                self._append(row_id, None, reviewer=who, note="", draws=draws, unanswered=True)

    def _sync(self) -> None:
        """Read the lines appended to the gold file since the last read (by another process:
        this one's own appends are noted as they are written).

        Raises:
            SessionStoppedError: The gold file got shorter.
            GoldDataError: A new line is not ragjudge's format.
        """
        try:
            size = self.gold_path.stat().st_size
        except FileNotFoundError:
            size = 0
        if size < self._read:
            raise SessionStoppedError(
                "the gold file changed while the session was running (it got shorter: cut or "
                "replaced); every answer written is in it: start `ragjudge label` again",
                file=str(self.gold_path),
            )
        if size == self._read:
            return
        with self.gold_path.open("rb") as handle:
            handle.seek(self._read)
            data = handle.read(size - self._read)
        if self._tail_open and data.startswith(b"\n"):
            data = data[1:]  # the end of the line read last
        for raw in data.splitlines():
            self._lines += 1
            if raw.strip():
                self._take(raw, self._lines)
        self._read = size
        self._tail_open = bool(data) and not data.endswith(b"\n")

    def _take(self, raw: bytes, number: int) -> None:
        try:
            record = GoldRecord.model_validate(json.loads(raw))
        except ValueError:
            raise GoldDataError(
                "is not a line of ragjudge's gold format", file=str(self.gold_path), row=number
            ) from None
        answer = _answer_of(record, number)
        if answer is not None:
            self._note(answer)
        elif record.faithful is not None:
            self.hand_labeled.add(record.id)

    def _note(self, answer: Answer) -> None:
        """Take in an answer read or written: the reviewer's history, the last answer of the
        row, and what the strategy learns from it."""
        previous = self.latest.get(answer.id)
        mine = self.by_reviewer.setdefault(answer.reviewer, {})
        seen = self.history.setdefault(answer.reviewer, [])
        if answer.id not in mine:
            seen.append(answer.id)
        mine[answer.id] = answer
        self.latest[answer.id] = answer
        strategy, index = self._live, self.index.get(answer.id)
        if strategy is None or index is None:
            return
        if isinstance(strategy, RandomStrategy) and previous is None:
            if answer.id not in self.hand_labeled:
                strategy.note_done(index, lambda i: self.rows[i].source)
        if isinstance(strategy, EstimateStrategy) and answer.label is not None:
            new = len(answer.draws) - (len(previous.draws) if previous is not None else 0)
            for _ in range(max(0, new)):
                strategy.observe(index, answer.label)

    def _done_index(self, index: int) -> bool:
        row_id = self.rows[index].id
        return row_id in self.latest or row_id in self.hand_labeled

    def _leased_by_other(self, row_id: str, reviewer: str) -> bool:
        return any(rid == row_id and who != reviewer for who, (rid, _) in self.held.items())

    def _hold(self, reviewer: str, row_id: str) -> None:
        self.held[reviewer] = (row_id, self.holds.hold(reviewer, row_id))

    def _stat(self) -> tuple[int, int]:
        st = self.rows_path.stat()
        return st.st_size, st.st_mtime_ns

    def check_rows(self) -> None:
        """Refuse to go on when the rows file changed under the session.

        Raises:
            SessionStoppedError: Naming the rows file.
        """
        try:
            stat = self._stat()
        except OSError:
            raise SessionStoppedError(
                "the rows file is gone; every answer so far is in the gold file",
                file=str(self.rows_path),
            ) from None
        if stat == self.rows_stat:
            return
        if file_sha256(self.rows_path) != self.rows_sha256:
            raise SessionStoppedError(
                "the rows file changed while the session was running (its checksum differs); "
                "every answer so far is in the gold file: start `ragjudge label` again",
                file=str(self.rows_path),
            )
        self.rows_stat = stat

    # -- rows ------------------------------------------------------------------------------------

    def next_row(self, reviewer: str) -> str | None:
        """The row `reviewer` should label now: the one they hold, else the strategy's next
        (held for them, in every process on the gold file)."""
        with self._step():
            held = self.held.get(reviewer)
            if (
                held is not None
                and held[0] in self.index
                and held[0] not in self.by_reviewer.get(reviewer, {})
            ):
                self._hold(reviewer, held[0])
                return held[0]
            row_id = self._choose(reviewer)
            if row_id is None:
                self.holds.release(reviewer)
                self.held.pop(reviewer, None)
                return None
            self._hold(reviewer, row_id)
            return row_id

    def _choose(self, reviewer: str) -> str | None:
        shared = self._overlap_row(reviewer)
        if shared is not None:
            return shared
        strategy = self.strategy
        if isinstance(strategy, EstimateStrategy):
            return self._draw(reviewer, strategy)

        def available(index: int) -> bool:
            return not self._leased_by_other(self.rows[index].id, reviewer)

        draw = strategy.next(available)
        return None if draw is None else self.rows[draw.index].id

    def _overlap_row(self, reviewer: str) -> str | None:
        """With `overlap`, every `1 / overlap`-th row of a reviewer is one another reviewer
        labeled (and they have not), for the inter-rater figures."""
        if self.overlap <= 0:
            return None
        mine = self.by_reviewer.get(reviewer, {})
        period = max(1, round(1 / self.overlap))
        if len(mine) % period != period - 1:
            return None
        for row_id, answer in self.latest.items():
            if (
                answer.label is not None
                and row_id in self.index
                and row_id not in mine
                and sum(1 for a in self.by_reviewer.values() if row_id in a) == 1
                and not self._leased_by_other(row_id, reviewer)
            ):
                return row_id
        return None

    def _draw(self, reviewer: str, strategy: EstimateStrategy) -> str | None:
        """Draw until a row no one has answered or holds comes up. Every draw is kept: a draw
        of a row already answered counts at once (its answer is appended again with the draw:
        a skipped row's skip, so that the draws a skip drops are counted), and one of a row
        held (here or by another process) waits in the holds file for the row's answer."""
        held = {rid for who, (rid, _) in self.held.items() if who != reviewer}
        answered = set(self.latest) | self.hand_labeled
        if len(self.rows) - len((answered | held) & self.index.keys()) <= 0:
            return None  # every row is answered or held: drawing on would only count again
        again: dict[str, list[float]] = {}  # draws of rows answered, appended once per row
        chosen = None
        for _ in range(100_000):
            draw = strategy.draw()
            row_id = self.rows[draw.index].id
            q = float(draw.probability or 0.0)
            if row_id in self.latest:
                again.setdefault(row_id, []).append(q)
                continue
            if row_id in self.hand_labeled:
                continue
            self.holds.add_draw(row_id, q)
            if not self._leased_by_other(row_id, reviewer):
                chosen = row_id
                break
        for row_id, draws in again.items():
            known = self.latest[row_id]
            self._append(row_id, known.label, reviewer=known.reviewer, note=known.note, draws=draws)
        return chosen

    def row_payload(self, row_id: str, reviewer: str) -> dict[str, Any]:
        """What the page shows of a row."""
        with self._step():
            mine = self.by_reviewer.get(reviewer, {}).get(row_id)
            others = {
                who: answers[row_id].label
                for who, answers in self.by_reviewer.items()
                if row_id in answers and who != reviewer
            }
            draft = self.holds.draft(reviewer, row_id)
        index = self.index[row_id]
        row = self.rows[index]
        result = self.results.get(row_id)
        if result is None:  # judged outside the lock: the other processes need not wait
            result = judge_row(self.judge, row)
            if len(self.results) > 256:
                self.results.clear()
            self.results[row_id] = result
        score = self.scores.scores[index]
        return {
            "id": row.id,
            "source": row.source,
            "question": row.question,
            "contexts": row.contexts,
            "answer": row.answer,
            "score": None if math.isnan(score) else round(float(score), 3),
            "passed": bool(self.scores.passed[index]),
            "statements": statement_marks(row, result),
            "answered": None if mine is None else _said(mine.label),
            "note": "" if mine is None else mine.note,
            "draft": draft,
            "others": {who: _said(label) for who, label in others.items()},
        }

    # -- answers ---------------------------------------------------------------------------------

    def answer(self, *, reviewer: str, row_id: str, label: int | None, note: str = "") -> None:
        """Append `reviewer`'s answer to `row_id` (None: skip) to the gold file.

        Raises:
            GoldDataError: An unknown row, or a rows file that changed under the session.
        """
        with self._step():
            self.check_rows()
            if row_id not in self.index:
                raise GoldDataError(f"no row {row_id!r} in the rows file", file=str(self.rows_path))
            draws = self.holds.take_draws(row_id)  # drawn while it was shown (estimate)
            self._append(row_id, label, reviewer=reviewer, note=note, draws=draws)
            self.holds.release(reviewer, row_id)
            self.holds.drop_draft(reviewer, row_id)
            if self.held.get(reviewer, ("",))[0] == row_id:
                del self.held[reviewer]

    def keep_draft(self, *, reviewer: str, row_id: str, note: str) -> None:
        """Keep a note `reviewer` typed on `row_id` and has not sent yet (in the holds file: it
        is there again on any page of any process on this gold file, whatever its port).

        Raises:
            GoldDataError: An unknown row.
        """
        if row_id not in self.index:
            raise GoldDataError(f"no row {row_id!r} in the rows file", file=str(self.rows_path))
        with self.lock, self.holds.locked():
            self.holds.keep_draft(reviewer, row_id, note)

    def reviewers(self) -> list[str]:
        """Everyone who answered in the gold file, holds a row or keeps a note, sorted."""
        with self._step():
            return sorted(set(self.by_reviewer) | set(self.holds.reviewers()))

    def tally(self, reviewer: str | None = None) -> tuple[int, int]:
        """The rows labeled and the rows skipped (each row's last answer; with `reviewer`,
        that reviewer's last answers): the one count the start line and the page show."""
        answers = self.latest if reviewer is None else self.by_reviewer.get(reviewer, {})
        known = [a for a in answers.values() if a.id in self.index]
        skipped = sum(1 for a in known if a.label is None)
        return len(known) - skipped, skipped

    def _append(
        self,
        row_id: str,
        label: int | None,
        *,
        reviewer: str,
        note: str,
        draws: list[float],
        unanswered: bool = False,
    ) -> None:
        """Append an answer to the gold file and note it (under the lock, after `_sync`: no
        line of another process's comes between the last read and this one); `unanswered`:
        a skip written for a row shown whose hold lapsed without an answer."""
        previous = self.latest.get(row_id)
        all_draws = (previous.draws if previous is not None else []) + list(draws)
        row = self.rows[self.index[row_id]]
        meta = dict(row.meta)
        meta.setdefault("group_id", row.group)
        meta["reviewer"] = reviewer
        meta[REVIEW_TIME_KEY] = _now()
        strategy = (
            previous.strategy
            if previous is not None and not draws and previous.strategy
            else self.strategy_name
        )
        meta["review"] = {"strategy": strategy, "note": note, "rows_sha256": self.rows_sha256}
        if unanswered:
            meta["review"]["unanswered"] = True
        if all_draws:
            meta["sampling"] = {"strategy": "estimate", "pi": all_draws, "rows": len(self.rows)}
        else:
            meta.pop("sampling", None)
        data = row.model_dump(mode="json", exclude_defaults=True, exclude={"hallucinated_spans"})
        data.update({"id": row.id, "answer": row.answer, "faithful": label, "meta": meta})
        line = json.dumps(data, ensure_ascii=False) + "\n"
        with self.gold_path.open("ab") as handle:
            if handle.tell() > 0 and not _ends_with_newline(self.gold_path):
                handle.write(b"\n")
            handle.write(line.encode())
            handle.flush()
            os.fsync(handle.fileno())
            self._read = handle.tell()
        self._lines += 1
        self._tail_open = False
        self._note(
            Answer(
                id=row_id,
                label=label,
                reviewer=reviewer,
                note=note,
                strategy=strategy,
                draws=all_draws,
                line=self._lines,
            )
        )

    # -- figures ---------------------------------------------------------------------------------

    def figures(self, reviewer: str) -> dict[str, Any]:
        """The running figures the page shows."""
        with self._step():
            return self._figures(reviewer)

    def _figures(self, reviewer: str) -> dict[str, Any]:
        labeled = [
            (self.index[a.id], a)
            for a in self.latest.values()
            if a.label is not None and a.id in self.index
        ]
        n = len(labeled)
        mine, mine_skipped = self.tally(reviewer)
        out: dict[str, Any] = {
            "labeled": n,
            "skips": self.tally()[1],
            "mine": mine,
            "mine_skips": mine_skipped,
            "rows": len(self.rows),
            "strategy": self.strategy_name,
            "reviewers": sorted(self.by_reviewer),
        }
        if n:
            agree = sum(1 for i, a in labeled if bool(self.scores.passed[i]) == bool(a.label))
            out["agreement"] = round(agree / n, 3)
        out["estimate"] = self._estimate(labeled)
        rows, draws = skipped_draws(
            (a.label, a.draws) for a in self.latest.values() if a.id in self.index
        )
        if rows:  # the draws a skip drops (estimation/_drawn.py: the rule, and what it means)
            out["skipped"] = {"rows": rows, "draws": draws, "note": skip_note(rows, draws)}
        out["raters"] = self._raters()
        return out

    def _estimate(self, labeled: list[tuple[int, Answer]]) -> dict[str, Any] | None:
        width = self.target_width
        drawn = [(i, a) for i, a in labeled if a.draws]
        if self.strategy_name == "estimate" or drawn:
            y, f, q = [], [], []
            for i, a in drawn:
                for prob in a.draws:
                    y.append(float(a.label or 0))
                    f.append(self.predictions[i])
                    q.append(prob)
            if len(y) < MIN_FOR_ESTIMATE:
                return {
                    "note": f"{len(y)} draws labeled; the estimate shows from {MIN_FOR_ESTIMATE}"
                }
            est = active_mean(
                labels=y,
                predicted=f,
                probabilities=q,
                predicted_all=self.predictions,
                level=self.level,
            )
            total = labels_for_active_width(est, width=width) if width else None
            return _shown(
                "active inference (the draws weighted by 1 / probability)",
                est.estimate,
                est.ci,
                width=width,
                needed=total,
                have=len(y),
            )
        if self.strategy_name == "uncertain" or any(a.strategy == "uncertain" for _, a in labeled):
            return {
                "note": "rows chosen by `uncertain` are not a random sample: no valid estimate "
                "(label with --strategy estimate or random for one)"
            }
        if len(labeled) < MIN_FOR_ESTIMATE:
            return {"note": f"{len(labeled)} labeled; the estimate shows from {MIN_FOR_ESTIMATE}"}
        mask = np.zeros(len(self.rows), dtype=bool)
        idx = [i for i, _ in labeled]
        mask[idx] = True
        ppi = mean_estimate(
            labels=[float(a.label or 0) for _, a in labeled],
            predicted=self.predictions[idx],
            predicted_unlabeled=self.predictions[~mask],
            level=self.level,
        )
        total = (
            labels_for_width(
                label_sd=ppi.label_sd, fixed_se=ppi.imputed_se, width=width, level=self.level
            )
            if width
            else None
        )
        return _shown(
            "PPI++ (a random sample of the rows)",
            ppi.estimate,
            ppi.ci,
            width=width,
            needed=total,
            have=len(labeled),
        )

    def _raters(self) -> dict[str, Any]:
        """Rows labeled by two or more reviewers, those where they differ, and their agreement
        (Cohen's kappa for two reviewers, Krippendorff's alpha for any number)."""
        names = sorted(self.by_reviewer)
        shared: dict[str, dict[str, int]] = {}
        for who in names:
            for row_id, a in self.by_reviewer[who].items():
                if a.label is not None:
                    shared.setdefault(row_id, {})[who] = a.label
        both = {rid: v for rid, v in shared.items() if len(v) >= 2}
        disagreements = [
            {"id": rid, "answers": {w: _said(lbl) for w, lbl in v.items()}}
            for rid, v in sorted(both.items())
            if len(set(v.values())) > 1
        ]
        out: dict[str, Any] = {"shared": len(both), "disagreements": disagreements}
        if len(both) >= 2:
            matrix = np.full((len(names), len(both)), np.nan)
            for col, v in enumerate(both.values()):
                for who, lbl in v.items():
                    matrix[names.index(who), col] = lbl
            alpha = krippendorff_alpha(matrix, level="nominal")
            out["alpha"] = None if math.isnan(alpha) else round(alpha, 3)
            if len(names) == 2:
                pairs = matrix[:, ~np.isnan(matrix).any(axis=0)]
                if pairs.shape[1] >= 2:
                    kappa = cohen_kappa(pairs[0], pairs[1])
                    out["kappa"] = None if math.isnan(kappa) else round(kappa, 3)
        return out


def _said(label: int | None) -> str:
    return {1: "faithful", 0: "not faithful", None: "skip"}[label]


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def _shown(
    how: str,
    value: float,
    ci: Sequence[float],
    *,
    width: float | None,
    needed: int | None,
    have: int,
) -> dict[str, Any]:
    """The running estimate as the page shows it: how it was made, the value, its interval and
    width (4 decimals), the target width and how many more labels reach it (`needed` in all,
    `have` so far; None when no number of labels does)."""
    return {
        "how": how,
        "value": round(value, 4),
        "ci": [round(ci[0], 4), round(ci[1], 4)],
        "width": round(ci[1] - ci[0], 4),
        "target_width": width,
        "more": None if needed is None else max(0, needed - have),
    }
