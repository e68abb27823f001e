"""Every error ragjudge raises.

User mistakes (a bad gold file, a bad option, a damaged judge file) raise a subclass of
`RagJudgeError`; the CLI turns those into a one-line message and exit code 2.
"""

from __future__ import annotations


class RagJudgeError(Exception):
    """Root of every ragjudge error."""


class ConfigurationError(RagJudgeError, ValueError):
    """A parameter has a value the judge cannot use."""


class GoldDataError(RagJudgeError, ValueError):
    """A gold or input data file cannot be used.

    Args:
        message: What is wrong and how to fix it.
        file: The file (or dataset name) being read.
        row: The 1-based row number, when the problem is in one row.
        field: The field (column) at fault, when known.
        suggestion: A column mapping that would likely fix it (`{"contexts": "context"}`),
            which the command line shows as `--map contexts=context`.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        row: int | None = None,
        field: str | None = None,
        suggestion: dict[str, str] | None = None,
    ) -> None:
        self.file, self.row, self.field = file, row, field
        self.suggestion = suggestion
        where = ", ".join(
            part
            for part in (
                file,
                f"row {row}" if row is not None else None,
                f"field {field!r}" if field else None,
            )
            if part
        )
        super().__init__(f"{where}: {message}" if where else message)


class SerializationError(RagJudgeError, ValueError):
    """A judge file cannot be loaded or saved."""


class UnsupportedFormatVersionError(SerializationError):
    """A judge file was written in a format version this release cannot read."""


class ModifiedJudgeError(SerializationError):
    """A judge file's checksum does not match its content."""


class NotCompiledError(RagJudgeError, ValueError, AttributeError):
    """An attribute that only compiling sets was read on an uncompiled judge."""


class UngroupedRowsWarning(UserWarning):
    """Rows that share a question fall in different split groups: the validation figures may
    count near-copies of rows the judge was fitted on.

    Args:
        message: What was found and the fix.
        rows: How many rows share their question with a row of another group.
    """

    def __init__(self, message: str, *, rows: int) -> None:
        super().__init__(message)
        self.rows = rows
