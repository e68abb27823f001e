#!/usr/bin/env bash
# Create the virtualenv of the LLM-based peers (ragas, deepeval) used by
# benchmarks/bench_real_lm.py --peers. They are installed ONLY here, never into ragjudge's
# environment. Idempotent.
#
# Usage: bash benchmarks/peers/setup_llm.sh          (from the repo root)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${PEERS_LLM_VENV:-$ROOT/.venv-peers-llm}"
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3

if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet -r "$ROOT/benchmarks/peers/requirements-llm.txt"
DEEPEVAL_TELEMETRY_OPT_OUT=YES "$VENV/bin/python" -c "import ragas, deepeval; print('ragas', ragas.__version__, 'deepeval', deepeval.__version__)"
echo "LLM peers venv ready: $VENV"
