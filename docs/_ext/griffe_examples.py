"""A Griffe extension for the API reference: read `Example:` sections as examples.

The code base's docstrings head their doctests `Example:` (Google style allows it); Griffe's
Google parser reads only `Examples:` as code and renders `Example:` as a note, where `>>>`
lines turn into quotes. This extension renames the heading in the docstrings Griffe loads, so
the doctests render as Python. It changes nothing in the code.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_HEADING = re.compile(r"^(\s*)Example:\s*$", re.MULTILINE)


class ExampleSections(griffe.Extension):
    """Rename `Example:` to `Examples:` in every docstring Griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Called for each object Griffe loads (modules, classes, functions, attributes)."""
        if obj.docstring is not None:
            obj.docstring.value = _HEADING.sub(r"\1Examples:", obj.docstring.value)
