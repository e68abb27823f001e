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
from ragjudge.data._labels import (
    gold_label,
    label_source,
    labeled_rows,
    row_label,
    rows_for_metric,
)
from ragjudge.data._presets import PRESETS, detect_preset, load_spans, preset_mapping
from ragjudge.data._rowhash import fitted_on, row_hash

__all__ = [
    "DERIVED_METRICS",
    "FIELDS",
    "PRESETS",
    "GoldRecord",
    "derive_gold",
    "derived_label",
    "detect_preset",
    "fitted_on",
    "gold_fingerprint",
    "gold_label",
    "is_derived",
    "label_source",
    "labeled_rows",
    "load_gold",
    "load_spans",
    "parse_mapping",
    "preset_mapping",
    "row_hash",
    "row_label",
    "rows_for_metric",
    "rows_from",
]
