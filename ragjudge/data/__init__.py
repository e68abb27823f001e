"""Gold rows: reading and validating labeled data, and labels derived from it for other metrics."""

from ragjudge.data._derived import DERIVED_METRICS, derive_gold, derived_label, is_derived
from ragjudge.data._gold import (
    FIELDS,
    GoldRecord,
    gold_fingerprint,
    load_gold,
    parse_mapping,
    rows_from,
)
from ragjudge.data._presets import PRESETS, detect_preset, load_spans, preset_mapping
from ragjudge.data._rowhash import row_hash

__all__ = [
    "DERIVED_METRICS",
    "FIELDS",
    "PRESETS",
    "GoldRecord",
    "derive_gold",
    "derived_label",
    "detect_preset",
    "gold_fingerprint",
    "is_derived",
    "load_gold",
    "load_spans",
    "parse_mapping",
    "preset_mapping",
    "row_hash",
    "rows_from",
]
