"""Gold and input data: one validated record type and one loader.

Local JSONL files are read line by line so that a broken row is reported with its line
number; CSV, Parquet and Hugging Face hub datasets are read through `datasets`.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import io
import json
import math
import os
import tokenize
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pydantic

from ragjudge.exceptions import GoldDataError

__all__ = [
    "FIELDS",
    "FIELD_ALIASES",
    "REVIEW_TIME_KEY",
    "GoldRecord",
    "gold_fingerprint",
    "is_review_answer",
    "list_from_text",
    "load_gold",
    "looks_local",
    "parse_mapping",
    "rows_from",
    "suggest_column",
]

FIELDS = ("id", "question", "contexts", "answer", "faithful", "reference", "hallucinated_spans")


class Span(pydantic.BaseModel):
    """A labeled hallucinated span: character offsets into the answer."""

    model_config = pydantic.ConfigDict(extra="ignore")

    start: int
    end: int
    text: str = ""
    type: str = ""


class GoldRecord(pydantic.BaseModel):
    """One row to judge, with its human label when there is one.

    Attributes:
        id: Row identifier, unique within a file.
        question: The user's question (may be empty, e.g. for claims).
        contexts: The retrieved passages.
        answer: The generated answer being judged.
        faithful: 1 if the answer is fully supported by the contexts, 0 if not, None if unlabeled.
        reference: A reference answer, for context recall.
        hallucinated_spans: Labeled unsupported spans of the answer.
        source: Where the row comes from (a benchmark or a domain).
        meta: Anything else; `meta.group_id` keeps related rows on one side of a split.
    """

    model_config = pydantic.ConfigDict(extra="ignore", frozen=True)

    id: str
    question: str = ""
    contexts: list[str] = pydantic.Field(default_factory=list)
    answer: str
    faithful: int | None = None
    reference: str | None = None
    hallucinated_spans: list[Span] = pydantic.Field(default_factory=list)
    source: str = ""
    task: str = ""
    meta: dict[str, Any] = pydantic.Field(default_factory=dict)

    @pydantic.field_validator("id", mode="before")
    @classmethod
    def _id_to_str(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @pydantic.field_validator("contexts", mode="before")
    @classmethod
    def _contexts_list(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return list_from_text(value)
        if hasattr(value, "tolist"):  # numpy / arrow arrays from Parquet
            return value.tolist()
        return value

    @pydantic.field_validator("faithful", mode="before")
    @classmethod
    def _label(cls, value: Any) -> Any:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return None
        if isinstance(value, str):
            text = value.strip().lower()
            table = {"": None, "1": 1, "0": 0, "true": 1, "false": 0, "yes": 1, "no": 0}
            if text in table:
                return table[text]
            raise ValueError(f"must be 0, 1 or empty, got {value!r}")
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, (int, float)) and value in (0, 1):
            return int(value)
        raise ValueError(f"must be 0, 1 or empty, got {value!r}")

    @property
    def context(self) -> str:
        """The contexts joined into one string, as judges see them."""
        return "\n\n".join(self.contexts)

    @property
    def group(self) -> str:
        """The group key used to keep related rows on one side of a split."""
        return str(self.meta.get("group_id") or self.id)


#: The `meta` key that marks a row as an answer given on `ragjudge label`'s review page (with
#: `meta.reviewer`): the time it was given.
REVIEW_TIME_KEY = "labeled_at"


def is_review_answer(record: GoldRecord) -> bool:
    """Whether `record` is an answer given on `ragjudge label`'s review page.

    The one rule for ids that repeat in a gold file: a later review answer for an id replaces
    the earlier row (a changed answer, or another reviewer's: the last one wins), and a review
    answer without a label (a skip) leaves the id out. Any other repeated id is refused
    (`load_gold`), as a hand edit that gives a row two labels would be.

    Example:
        >>> meta = {"reviewer": "ana", "labeled_at": "2026-01-01T09:00:00Z"}
        >>> is_review_answer(GoldRecord(id="x", answer="a", meta=meta))
        True
    """
    return bool(record.meta.get(REVIEW_TIME_KEY)) and "reviewer" in record.meta


def list_from_text(text: str) -> list[str]:
    """The passages of a `contexts` cell given as text.

    A cell that holds a list written as text is read as that list: JSON (`["a", "b"]`) or a
    Python repr (`['a', 'b']`, what pandas writes for a list column in a CSV, as a ragas
    export saved with `to_csv` has). A cell that looks like a list (starts with `[`, ends with
    `]`) but is not one of those is refused, e.g. a numpy array repr (`['a' 'b']`, no commas),
    whose strings Python would silently join. Any other text is one passage.

    Raises:
        ValueError: For a cell that looks like a list but cannot be read as a list of strings.

    Example:
        >>> list_from_text("['Paris is in France.', 'Lyon is too.']")
        ['Paris is in France.', 'Lyon is too.']
        >>> list_from_text("Paris is in France.")
        ['Paris is in France.']
    """
    stripped = text.strip()
    if not (stripped.startswith("[") and stripped.endswith("]")):
        return [text]
    try:
        parsed = json.loads(stripped)
    except json.JSONDecodeError:
        parsed = _python_list(stripped)
    if isinstance(parsed, list) and all(isinstance(p, str) for p in parsed):
        return parsed
    raise ValueError(
        "looks like a list written as text but cannot be read as a list of strings; write "
        'it as JSON (["passage 1", "passage 2"]) or as a Python list repr '
        "(['passage 1', 'passage 2'])"
    )


def _python_list(text: str) -> Any:
    """A Python list literal of strings, or None; refuses adjacent strings (`'a' 'b'`), which
    Python would join into one."""
    try:
        value = ast.literal_eval(text)
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (ValueError, SyntaxError, MemoryError, RecursionError, tokenize.TokenError):
        return None
    strings = sum(1 for t in tokens if t.type == tokenize.STRING)
    if not isinstance(value, list) or strings != len(value):
        return None
    return value


#: Column names that stand for a field in other tools' data; `load_gold` names them in a
#: "did you mean" hint when a field is missing (it never maps them on its own).
FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "contexts": (
        "context",
        "retrieved_contexts",
        "retrieval_context",
        "passages",
        "documents",
        "knowledge",
    ),
    "answer": ("response", "actual_output", "output", "generation", "prediction"),
    "question": ("query", "user_input", "input", "prompt"),
    "faithful": ("label", "is_faithful", "labels", "supported"),
    "reference": ("ground_truth", "expected_output", "reference_answer"),
}


#: Columns that read as a label: a row with one and no `faithful` is refused (by `evaluate`
#: and `compile` alike), naming the mapping that would read it, so a label is never silently
#: ignored nor silently read with the wrong meaning.
LABEL_COLUMNS = ("label", "is_faithful")


def suggest_column(field: str, columns: Iterable[str]) -> str | None:
    """The column of a row that most likely holds `field`: a known alias, else the closest
    name (difflib); None when nothing is close.

    Example:
        >>> suggest_column("contexts", ["id", "context", "answer"])
        'context'
    """
    names = [c for c in columns if isinstance(c, str) and c not in GoldRecord.model_fields]
    for alias in FIELD_ALIASES.get(field, ()):
        if alias in names:
            return alias
    close = difflib.get_close_matches(field, names, n=1, cutoff=0.75)
    return close[0] if close else None


def parse_mapping(items: Iterable[str]) -> dict[str, str]:
    """Parse `field=column` pairs given on the command line.

    Args:
        items: Strings such as `"answer=response"`.

    Returns:
        A dict from ragjudge field to the column name in the user's data.

    Raises:
        GoldDataError: If an item is not `field=column` or names an unknown field.
    """
    mapping: dict[str, str] = {}
    for item in items:
        field, sep, column = item.partition("=")
        if not sep or not field or not column:
            raise GoldDataError(f"`mapping` takes field=column, got {item!r}")
        if field not in FIELDS:
            raise GoldDataError(
                f"`mapping`: unknown field {field!r}; choose from {', '.join(FIELDS)}"
            )
        mapping[field] = column
    return mapping


def load_gold(
    source: Any,
    *,
    mapping: Mapping[str, str] | None = None,
    split: str = "train",
    require_labels: bool = False,
    require: Mapping[str, str] | None = None,
    limit: int | None = None,
    name: str = "rows",
) -> list[GoldRecord]:
    """Load and validate gold or input rows.

    Takes what `evaluate` takes, under one rule: a path or hub name is read; rows held in
    memory are validated as a file's rows are.

    Args:
        source: A local `.jsonl`/`.json`/`.csv`/`.parquet` file, a Hugging Face dataset name,
            or rows in memory: `GoldRecord`s, dicts (one per row) or a pandas DataFrame.
        mapping: Field -> column names, for data whose columns are named differently.
        split: The split to read from a hub dataset.
        require_labels: Refuse rows without a `faithful` label.
        require: Fields a row must have (not absent, not null), each with who needs it,
            e.g. `{"contexts": "faithfulness"}`; `load_gold` refuses a row without one.
        limit: Read at most this many rows.
        name: What errors call rows held in memory (they are numbered from 1).

    Returns:
        The validated records, in file order.

    Raises:
        GoldDataError: Naming the file, row and field of the first problem found.

    Example:
        >>> rows = load_gold("../shared/gold/sample.jsonl")  # doctest: +SKIP
        >>> rows[0].answer  # doctest: +SKIP
    """
    if not isinstance(source, (str, os.PathLike)):
        return _rows_in_memory(
            source,
            mapping=mapping,
            require_labels=require_labels,
            require=require,
            name=name,
            limit=limit,
        )
    name = os.fspath(source)
    path = Path(name)
    if not path.exists() and looks_local(name):
        raise GoldDataError(
            "file not found (a local path: not looked up on the Hugging Face hub)", file=name
        )
    if path.is_dir():
        raise GoldDataError("is a directory; name a .jsonl, .csv or .parquet file", file=name)
    if path.suffix == ".jsonl" or (path.suffix == ".json" and _looks_like_jsonl(path)):
        raw: Iterable[tuple[int, Any]] = _read_jsonl(path)
    elif path.exists():
        raw = _read_with_datasets(name, path.suffix.lstrip("."), split=split)
    else:
        raw = _read_hub(name, split=split)
    records: list[GoldRecord] = []
    seen: dict[str, int] = {}
    for row_number, obj in raw:
        if limit is not None and len(records) >= limit:
            break
        record = _validate(obj, mapping or {}, file=name, row=row_number, require=require)
        if record.id in seen and is_review_answer(record):
            records = [r for r in records if r.id != record.id]  # a re-answer: the last wins
            del seen[record.id]
        if is_review_answer(record) and record.faithful is None:
            seen[record.id] = row_number  # a skip: the id is left out, its later answers read
            continue
        _admit(record, row_number, seen, file=name, mapping=mapping, require_labels=require_labels)
        records.append(record)
    if not records:
        raise GoldDataError("holds no rows", file=name)
    return records


_FILE_SUFFIXES = {
    ".jsonl",
    ".json",
    ".csv",
    ".tsv",
    ".parquet",
    ".txt",
    ".gz",
    ".zip",
    ".arrow",
    ".xlsx",
}


def looks_local(name: str) -> bool:
    """Whether `name` names a local file rather than a Hugging Face dataset (`org/name`).

    Local: a path starting with `/`, `./`, `../` or `~`, one with a backslash, a file
    extension or more than one `/`, and one whose folder exists here (`data/my_labeled` when
    there is a `data/` folder). Such a name is never sent to the hub.

    Example:
        >>> looks_local("./gold"), looks_local("rows.jsonl"), looks_local("org/dataset")
        (True, True, False)
    """
    text = name.strip()
    if text.startswith(("/", "./", "../", "~", ".\\", "..\\")) or "\\" in text:
        return True
    if Path(text).suffix.lower() in _FILE_SUFFIXES:
        return True
    if text.count("/") > 1:
        return True
    return "/" in text and Path(text).parent.exists()


def rows_from(
    data: Any,
    *,
    mapping: Mapping[str, str] | None = None,
    require_labels: bool = False,
    require: Mapping[str, str] | None = None,
    name: str = "rows",
) -> list[GoldRecord]:
    """Rows to judge from whatever the caller holds, validated as `load_gold` validates a file
    (`load_gold` itself: one rule for every input).

    Args:
        data: A path or hub name, `GoldRecord`s, dicts (one per row) or a pandas DataFrame.
        mapping: Field -> column names, for data whose columns are named differently.
        require_labels: Refuse rows without a `faithful` label.
        require: Fields a row must have, each with who needs it (see `load_gold`).
        name: What errors call the data (rows are numbered from 1).

    Returns:
        The validated records, in order.

    Raises:
        GoldDataError: Naming the row and field of the first problem.

    Example:
        >>> rows = rows_from([{"contexts": ["Paris is in France."], "answer": "In France."}])
        >>> rows[0].id
        'row-1'
    """
    return load_gold(
        data, mapping=mapping, require_labels=require_labels, require=require, name=name
    )


def _rows_in_memory(
    data: Any,
    *,
    mapping: Mapping[str, str] | None,
    require_labels: bool,
    require: Mapping[str, str] | None,
    name: str,
    limit: int | None,
) -> list[GoldRecord]:
    """`load_gold` of rows held in memory: GoldRecords, dicts or a DataFrame."""
    if isinstance(data, Sequence) and data and all(isinstance(r, GoldRecord) for r in data):
        return list(data[:limit] if limit is not None else data)  # validated when made
    if hasattr(data, "to_dict") and hasattr(data, "columns"):  # a pandas DataFrame
        data = data.to_dict(orient="records")
    if isinstance(data, (Mapping, bytes)) or not isinstance(data, Iterable):
        raise GoldDataError(
            f"expected rows (a file path or hub name, a list of dicts or GoldRecords, or a "
            f"DataFrame), got {type(data).__name__}"
        )
    records: list[GoldRecord] = []
    seen: dict[str, int] = {}
    for number, item in enumerate(data, start=1):
        if limit is not None and len(records) >= limit:
            break
        if isinstance(item, GoldRecord):
            record = item
        elif isinstance(item, Mapping):
            cells = {k: _none_if_nan(v) for k, v in item.items()}
            record = _validate(
                {k: v for k, v in cells.items() if v is not None},  # a DataFrame's gaps
                mapping or {},
                file=name,
                row=number,
                require=require,
            )
        else:
            raise GoldDataError(
                f"must be a dict or a GoldRecord, got {type(item).__name__}", file=name, row=number
            )
        _admit(record, number, seen, file=name, mapping=mapping, require_labels=require_labels)
        records.append(record)
    if not records:
        raise GoldDataError("holds no rows", file=name)
    return records


def _none_if_nan(value: Any) -> Any:
    """A DataFrame's missing cell (NaN) as None; numpy arrays as lists."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    return value


def gold_fingerprint(records: Sequence[GoldRecord]) -> str:
    """The sha256 of the rows used, in order, as canonical JSON."""
    digest = hashlib.sha256()
    for record in records:
        digest.update(json.dumps(record.model_dump(mode="json"), sort_keys=True).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def _looks_like_jsonl(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(1)
    return head == b"{"


def _read_jsonl(path: Path) -> Iterable[tuple[int, Any]]:
    name = str(path)
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield number, jsonl_object(line, file=name, row=number)


def jsonl_object(line: bytes, *, file: str, row: int) -> dict[str, Any]:
    """One JSONL line as a JSON object (line 1 may start with a UTF-8 byte order mark).

    Raises:
        GoldDataError: Naming the file and row, if the line is not a JSON object.
    """
    try:
        text = line.decode("utf-8-sig" if row == 1 else "utf-8").strip()
    except UnicodeDecodeError as exc:
        raise GoldDataError(
            f"is not valid UTF-8 (byte {exc.start}); re-encode the file as UTF-8",
            file=file,
            row=row,
        ) from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GoldDataError(
            f"is not valid JSON ({exc.msg} at column {exc.colno})", file=file, row=row
        ) from None
    except RecursionError:
        raise GoldDataError("is nested too deeply to be a row", file=file, row=row) from None
    if not isinstance(obj, dict):
        raise GoldDataError(f"must be a JSON object, got {type(obj).__name__}", file=file, row=row)
    return obj


def _read_with_datasets(name: str, kind: str, *, split: str) -> Iterable[tuple[int, Any]]:
    builder = {"csv": "csv", "parquet": "parquet", "json": "json"}.get(kind)
    if builder is None:
        raise GoldDataError(
            f"unsupported file type {kind!r}; use .jsonl, .csv or .parquet", file=name
        )
    if kind == "csv":
        _check_csv_has_rows(Path(name))
    import datasets  # slow import, only when needed

    datasets.disable_progress_bars()
    try:
        data = datasets.load_dataset(builder, data_files=name, split="train")
    except Exception as exc:  # datasets raises many unrelated types for unreadable files
        if "corresponds to no data" in str(exc):  # datasets' words for a file without rows
            raise GoldDataError("holds no rows", file=name) from None
        raise GoldDataError(f"cannot be read as {kind}: {_first_line(exc)}", file=name) from None
    # CSV and the header row: data row N is line N + 1.
    offset = 2 if kind == "csv" else 1
    for index, obj in enumerate(data):
        yield index + offset, _decode_json_columns(obj)


def _check_csv_has_rows(path: Path) -> None:
    """Refuse an empty CSV file, or one holding only its header line, by name."""
    import csv

    with path.open(encoding="utf-8-sig", errors="replace", newline="") as handle:
        records = (r for r in csv.reader(handle) if any(cell.strip() for cell in r))
        header = next(records, None)
        first = next(records, None)
    if header is None:
        raise GoldDataError(
            "is empty: a CSV file needs a header line and one line per row", file=str(path)
        )
    if first is None:
        raise GoldDataError(
            f"holds only a header line ({', '.join(header)[:80]}) and no rows", file=str(path)
        )


def _read_hub(name: str, *, split: str) -> Iterable[tuple[int, Any]]:
    import datasets

    datasets.disable_progress_bars()
    try:
        data = datasets.load_dataset(name, split=split)
    except Exception as exc:
        raise GoldDataError(
            f"is neither a local file nor a loadable dataset ({_first_line(exc)})", file=name
        ) from None
    for index, obj in enumerate(data):
        yield index + 1, obj


def _decode_json_columns(obj: dict[str, Any]) -> dict[str, Any]:
    """CSV cells hold lists and dicts as JSON text; decode those that look like it."""
    out = dict(obj)
    for key, value in obj.items():
        if isinstance(value, str) and value[:1] in "[{":
            try:
                out[key] = json.loads(value)
            except json.JSONDecodeError:
                pass
    return out


def _validate(
    obj: Mapping[str, Any],
    mapping: Mapping[str, str],
    *,
    file: str,
    row: int,
    require: Mapping[str, str] | None = None,
) -> GoldRecord:
    data = dict(obj)
    for field, column in mapping.items():
        if column not in obj:
            raise GoldDataError(
                f"has no column {column!r} (mapped to {field!r})", file=file, row=row
            )
        data[field] = obj[column]
    if data.get("id") in (None, ""):
        data["id"] = f"row-{row}"
    for required in ("answer",):
        if required not in data or data[required] is None:
            raise _missing(required, "", obj, mapping, file=file, row=row)
    if "faithful" not in mapping and "faithful" not in obj:
        alias = next((a for a in LABEL_COLUMNS if a in obj), None)
        if alias is not None:
            raise GoldDataError(
                f"has a column {alias!r} but no 'faithful' label; if {alias!r} is the label "
                f"(1 = faithful, 0 = not), map faithful={alias}, else rename the column",
                file=file,
                row=row,
                field=alias,
                suggestion={"faithful": alias},
            )
    try:
        record = GoldRecord.model_validate(data)
    except pydantic.ValidationError as exc:
        error = exc.errors()[0]
        name = str(error["loc"][0]) if error["loc"] else None
        at = mapping.get(name, name) if name else None
        message = _short(error["msg"])
        if error["type"] not in ("value_error", "missing"):
            message += f" (got {_describe(error.get('input'))})"
        raise GoldDataError(message, file=file, row=row, field=at) from None
    for required, who in (require or {}).items():
        if data.get(required) is None:
            raise _missing(required, who, obj, mapping, file=file, row=row)
    return record


def _missing(
    field: str,
    who: str,
    obj: Mapping[str, Any],
    mapping: Mapping[str, str],
    *,
    file: str,
    row: int,
) -> GoldDataError:
    """The error for a row without `field`, with a "did you mean" mapping when a column of the
    row looks like it (`context` for `contexts`)."""
    column = mapping.get(field, field)
    message = f"is missing ({who} needs it)" if who else "is missing"
    guess = None if field in mapping else suggest_column(field, obj)
    if guess is None:
        return GoldDataError(message, file=file, row=row, field=column)
    return GoldDataError(
        f"{message}; the row has a column {guess!r}: did you mean to map {field}={guess}?",
        file=file,
        row=row,
        field=column,
        suggestion={field: guess},
    )


def _describe(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    text = text if len(text) <= 40 else text[:39] + "…"
    return f"{type(value).__name__} {text}"


def _short(message: str) -> str:
    return message.replace("Value error, ", "")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


def _admit(
    record: GoldRecord,
    number: int,
    seen: dict[str, int],
    *,
    file: str,
    mapping: Mapping[str, str] | None,
    require_labels: bool,
) -> None:
    """Refuse a row without the label it needs or with an id seen before; note its id."""
    if require_labels and record.faithful is None:
        raise GoldDataError(
            "has no label; gold rows need faithful = 0 or 1",
            file=file,
            row=number,
            field=(mapping or {}).get("faithful", "faithful"),
        )
    if record.id in seen:
        raise GoldDataError(
            f"duplicate id {record.id!r} (first seen in row {seen[record.id]})",
            file=file,
            row=number,
            field="id",
        )
    seen[record.id] = number
