#!/usr/bin/env bash
# WFA (issue 5) on the device: GPU tests, then the benchmark table.
# Usage: bash bench/wfa_device.sh [bench args...]
# Outputs are also written to $OUT (default /tmp/wfa_out). Time caps via
# WFA_TEST_TIMEOUT (GPU tests, default 200 s) and WFA_BENCH_TIMEOUT (default 300 s).
# Both GPU backtrace designs side by side (CIGAR only), e.g.:
#   bash bench/wfa_device.sh --shapes 10000:0.1,1000:0.1,10000:0.02 --cigar-modes chain,packed --no-score-only
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=.
OUT=${OUT:-/tmp/wfa_out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/device.txt"
python3 -c "import cupy, numba, numpy; print('cupy', cupy.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__)"
# compile check and a smoke test first, so a broken kernel fails fast
timeout 150 python3 -m pytest -x -q tests/test_wfa_gpu.py -k "cli or shapes" 2>&1 | tail -15 | tee "$OUT/smoke.txt"
timeout "${WFA_TEST_TIMEOUT:-200}" python3 -m pytest -q --durations=10 tests/test_wfa_gpu.py 2>&1 | tail -30 | tee "$OUT/gpu_tests.txt"
timeout "${WFA_BENCH_TIMEOUT:-300}" python3 bench/wfa_bench.py --backend gpu "$@" 2>&1 | tee "$OUT/bench.txt"
