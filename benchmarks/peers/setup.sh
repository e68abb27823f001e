#!/usr/bin/env bash
# Create the peers' virtualenv used by benchmarks/bench_deterministic.py.
#
# continuous-eval is installed ONLY here (never into ragjudge's environment). Its import calls
# nltk.download unless the NLTK data is already present, so we give it an NLTK_DATA directory
# holding the same English Punkt (punkt_tab) parameters and English stopword list that ragjudge
# ships in ragjudge/lexical/_data (taken from llama-index-core's bundled nltk_cache wheel).
#
# Usage: bash benchmarks/peers/setup.sh          (from the repo root; idempotent)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${PEERS_VENV:-$ROOT/.venv-peers}"
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3

if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet "continuous-eval==0.3.14.post2" "numpy" "scipy"

DATA="$VENV/nltk_data"
mkdir -p "$DATA/tokenizers/punkt_tab/english" "$DATA/corpora/stopwords"
cp "$ROOT"/ragjudge/lexical/_data/punkt_tab/english/* "$DATA/tokenizers/punkt_tab/english/"
cp "$ROOT"/ragjudge/lexical/_data/stopwords/english "$DATA/corpora/stopwords/english"

# Smoke test: offline import with telemetry off.
CONTINUOUS_EVAL_DO_NOT_TRACK=true NLTK_DATA="$DATA" "$VENV/bin/python" - <<'PY'
from continuous_eval.metrics.generation.text import DeterministicFaithfulness
r = DeterministicFaithfulness()(
    answer="William Shakespeare wrote 'Romeo and Juliet'. He is born in Ireland",
    retrieved_context=["William Shakespeare is the author of 'Romeo and Juliet'."],
)
print(r)
PY
echo "peers venv ready: $VENV (NLTK_DATA=$DATA)"
