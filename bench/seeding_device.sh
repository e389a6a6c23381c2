#!/usr/bin/env bash
# Seeding and filtering family (issue 6) on the device: GPU tests, then the benchmarks.
# Usage: bash bench/seeding_device.sh
# Data: $AVA_SHARED_DATA (default ../shared/data). Outputs also go to $OUT (default /tmp/seeding_out).
# Time caps: SEEDING_TEST_TIMEOUT (GPU tests, default 240 s), SEEDING_BENCH_TIMEOUT (each benchmark, 400 s).
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=.
export AVA_SHARED_DATA=${AVA_SHARED_DATA:-../shared/data}
OUT=${OUT:-/tmp/seeding_out}
T=${SEEDING_BENCH_TIMEOUT:-400}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/device.txt"
python3 -c "import cupy, numba, numpy; print('cupy', cupy.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__)"
# 1. GPU equals CPU (FM-index search, SeedHit counts and candidate filter, GECKO fragments)
timeout "${SEEDING_TEST_TIMEOUT:-240}" python3 -m pytest -q --durations=5 tests/test_seeding_gpu.py 2>&1 \
    | tail -25 | tee "$OUT/gpu_tests.txt"
# 2. SeedHit throughput: 1 M synthetic 256-bp pairs (from host arrays, and the kernel alone on
#    device arrays, CUDA events over 20 launches), then the E. coli pair (windows of 256 vs 512)
timeout "$T" python3 bench/seeding_bench.py seedhit-pairs --pairs 1000000 --length 256 --backend gpu 2>&1 | tee "$OUT/seedhit_pairs.txt"
timeout "$T" python3 bench/seeding_bench.py seedhit-units --backend gpu 2>&1 | tee "$OUT/seedhit_ecoli.txt"
# 3. FM-index: 1 M query 20-mers (from A26b, both strands) with 1 mismatch against Z. tritici IPO323
#    (the index is built on the CPU first; build_s is reported apart from search_s; it is kept in
#    /tmp, not in $OUT: 41 MB for the whole genome)
timeout "$T" python3 bench/seeding_bench.py fmindex --queries 1000000 --length 20 --mismatches 1 \
    --index /tmp/IPO323.fmi.npz --backend gpu 2>&1 | tee "$OUT/fmindex.txt"
# 4. The gecko preset on Hsap x Ggor chr22: time and coverage
timeout "$T" python3 bench/seeding_bench.py gecko --backend gpu 2>&1 | tee "$OUT/gecko.txt"
# 5. Candidate filter vs none on the H. pylori pair (GPU)
timeout "$T" python3 bench/seeding_bench.py filter --backend gpu 2>&1 | tee "$OUT/filter.txt"
rm -f "$OUT/results.txt"
grep -h RESULT "$OUT"/*.txt > "$OUT/results.tmp" || true
mv "$OUT/results.tmp" "$OUT/results.txt"
cat "$OUT/results.txt"
