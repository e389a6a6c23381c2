#!/usr/bin/env bash
# The one script run on the GPU machine (issue 3): GPU tests, the engine benchmark on E. coli
# MG1655 x DH1, the CPU peers (LASTZ 1 core, LASTZ all cores, minimap2 asm20), then the workflow
# and WFA benchmarks when present. Prints a short table last; logs go to $OUT (or ./device-out).
#
#   bash bench/device.sh [PART...]      PART: tests bench peers others wide saureus prev (default:
#                                       tests bench peers others; parts run in the order given)
#   prev: the session's start, a copy of its gpukernels/ and bench/ in .carry/prev (`git archive START
#   gpukernels bench | tar -x -C .carry/prev`), against this tree on E. coli, one process of REPEATS pairs
#   each, alternated PREV_ROUNDS times (default 2); PREV_T and PREV_Q: another pair than E. coli
#
# Carried (run's carry list [".carry", ".whl"]; `bash bench/make_carry.sh [START]` builds .carry here):
#   .carry/data/{bacteria,fungi}/*.fa.gz   genomes (AVA_SHARED_DATA points here)
#   .carry/cpu_paf/*.paf.gz                CPU reference PAFs keyed by content (tests/gpu_reference.py)
#   .carry/bin/{lastz,minimap2}            the Debian builds of the peers
#   .whl/*.whl                             wheels the machine lacks (snakemake, for the workflow bench)
#   .carry/jit-cache.tar.gz                optional: numba's and CuPy's caches from an earlier call's $OUT,
#                                          unpacked only where the package's sources are the ones they were
#                                          built from (numba checks a function's own file, not the files of
#                                          the functions it calls); a host with another CPU compiles anyway
#   .carry/jit-cache-prev.tar.gz           optional: the same for .carry/prev (part prev), by its own sources
# Every call leaves $OUT/jit-cache.tar.gz (and -prev) for the next (copy them to .carry/ and carry them).
# Time limits (seconds) per part: T_TESTS T_BENCH T_LASTZ1 T_PEERS T_OTHERS; PYTEST_K selects tests;
# REPEATS: E. coli pairs timed after the warm-up (default 3).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT="${OUT:-$ROOT/device-out}"
mkdir -p "$OUT"
PARTS="${*:-tests bench peers others}"
has() { [[ " $PARTS " == *" $1 "* ]]; }
T_TESTS=${T_TESTS:-420}; T_BENCH=${T_BENCH:-120}; T_LASTZ1=${T_LASTZ1:-420}; T_PEERS=${T_PEERS:-200}
T_OTHERS=${T_OTHERS:-120}
export PYTHONUNBUFFERED=1
export AVA_SHARED_DATA="${AVA_SHARED_DATA:-$ROOT/.carry/data}"
export AVA_CPU_PAF_CACHE="${AVA_CPU_PAF_CACHE:-$ROOT/.carry/cpu_paf}"
export PATH="$ROOT/.carry/bin:$PATH"
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        .whl/*.whl >"$OUT/pip.log" 2>&1 && export PYTHONPATH="/tmp/site" PATH="/tmp/site/bin:$PATH"
fi
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
JIT_DIRS="gpukernels/__pycache__ gpukernels/cpu/__pycache__ gpukernels/gpu/__pycache__ .cupy-cache"
export CUPY_CACHE_DIR="$ROOT/.cupy-cache"
source_sum() { find gpukernels -name '*.py' -o -name '*.cu' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16; }
# load_jit_cache TREE TARBALL: unpack TARBALL's caches into TREE where TREE's sources are the ones they were built from
load_jit_cache() {
    [ -f "$2" ] || return 0
    local built_from
    built_from=$(tar -xzOf "$2" .jit-source 2>/dev/null)
    if [ -n "$built_from" ] && [ "$built_from" = "$(cd "$1" && source_sum)" ]; then
        tar -xzf "$2" -C "$1" --exclude .jit-source \
            && echo "jit cache: $(cd "$1" && find $JIT_DIRS -type f 2>/dev/null | wc -l) files from $2"
    else
        echo "jit cache: $2 was built from other sources (${built_from:-unknown}); compiling"
    fi
}
# save_jit_cache TREE TARBALL: TREE's caches with the hash of its sources
save_jit_cache() {
    (cd "$1" && source_sum >.jit-source && tar -czf "$2" --ignore-failed-read .jit-source $JIT_DIRS 2>/dev/null)
}
load_jit_cache . .carry/jit-cache.tar.gz
# the session's start (part prev) has caches of its own: numba keys them by its files
[ -d .carry/prev/gpukernels ] && load_jit_cache .carry/prev .carry/jit-cache-prev.tar.gz
save_jit_caches() {
    save_jit_cache . "$OUT/jit-cache.tar.gz"
    [ -d .carry/prev/gpukernels ] && save_jit_cache .carry/prev "$OUT/jit-cache-prev.tar.gz"
}
trap save_jit_caches EXIT
NCPU=$(nproc)
BAC="$AVA_SHARED_DATA/bacteria"
T="$BAC/E.Coli_MG1655-K12.fa.gz"; Q="$BAC/E.Coli_DH1.fa.gz"
WORK="$(mktemp -d /tmp/ava-device.XXXXXX)"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc;
  # the host's processor: the walk and the relay's host work run there, and the lent hosts differ
  grep -m1 "model name" /proc/cpuinfo; grep -m1 "cpu MHz" /proc/cpuinfo;
  python3 -c 'import cupy, numba, numpy; print("cupy", cupy.__version__, "numba", numba.__version__, "numpy", numpy.__version__)'; } \
    >"$OUT/device.txt" 2>&1
cat "$OUT/device.txt"
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.2f}')"; }

# LASTZ on one core runs beside the GPU tests (they use the GPU and one core)
LZ1_PID=""
if has peers; then
    zcat "$T" >"$WORK/t.fa"; zcat "$Q" >"$WORK/q.fa"
    ( s=$(now); timeout "$T_LASTZ1" lastz "$WORK/t.fa" "$WORK/q.fa" --format=general >"$WORK/lz1.out" 2>"$WORK/lz1.err";
      rc=$?; e=$(now); echo "$rc $(secs "$s" "$e")" >"$WORK/lz1.time" ) &
    LZ1_PID=$!
fi

part_tests() {
    echo "== pytest -m gpu"
    s=$(now)
    timeout "$T_TESTS" python3 -m pytest -q -m gpu -rs -s --timeout="${T_TEST_EACH:-150}" ${PYTEST_K:+-k "$PYTEST_K"} \
        tests/ -p no:cacheprovider \
        >"$OUT/pytest.log" 2>&1
    echo "pytest rc=$? in $(secs "$s" "$(now)") s" | tee -a "$OUT/pytest.log"
    grep -E "passed|failed|error|startup:|alignments, gpu run|^FAILED|^ERROR" "$OUT/pytest.log" | tail -25
}

part_bench() {
    echo "== engine bench (E. coli)"
    timeout "$T_BENCH" python3 bench/engine_bench.py "$T" "$Q" --repeats "${REPEATS:-3}" --json "$OUT/engine.json" \
        >"$OUT/engine.log" 2>&1
    echo "engine bench rc=$?" >>"$OUT/engine.log"
    cat "$OUT/engine.log" | tail -20
}

part_wide() {
    echo "== one gapped launch: warp per side against block per side (E. coli)"
    timeout "$T_BENCH" python3 bench/gapped_wide_bench.py "$T" "$Q" --anchors 32 >"$OUT/wide.log" 2>&1
    tail -8 "$OUT/wide.log"
}

part_saureus() {
    echo "== engine bench (S. aureus COL x N315; warm-up pair: parity and per-strand stats)"
    timeout "$T_BENCH" python3 bench/engine_bench.py "$BAC/S.Aureus_COL.fa.gz" "$BAC/S.Aureus_N315.fa.gz" --repeats 1 \
        >"$OUT/saureus.log" 2>&1
    echo "saureus bench rc=$?" >>"$OUT/saureus.log"
    grep -E "warm-up pair|parity|strand|per pair|rc=" "$OUT/saureus.log" | cut -c1-400
}

part_prev() {
    if [ ! -d .carry/prev/gpukernels ]; then echo "== prev: no .carry/prev"; return; fi
    echo "== the session's start (.carry/prev) against this tree ($(basename "${PREV_T:-$T}") x $(basename "${PREV_Q:-$Q}"), bench/ab_settings.py)"
    for r in $(seq "${PREV_ROUNDS:-2}"); do
        for tree in .carry/prev .; do
            printf '%-12s' "$tree"
            (cd "$tree" && PYTHONPATH="$PWD" timeout "$T_BENCH" python3 bench/ab_settings.py "${PREV_T:-$T}" "${PREV_Q:-$Q}" \
                --repeats "${REPEATS:-3}" --rounds 1 "" 2>&1 | tail -1)
        done
    done | tee "$OUT/prev.log"
    # each round's two processes ran next to each other: the ratio of their means, over the rounds
    python3 bench/ab_stats.py "$OUT/prev.log"
}

part_peers() {
    echo "== peers on $NCPU cores"
    # LASTZ on all cores: one query piece per core, overlapping by 10 kb
    python3 - "$WORK/q.fa" "$NCPU" "$WORK" <<'EOF'
import sys
path, n, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
name, seq = None, []
recs = []
for line in open(path):
    if line.startswith(">"):
        if name: recs.append((name, "".join(seq)))
        name, seq = line[1:].split()[0], []
    else:
        seq.append(line.strip())
recs.append((name, "".join(seq)))
total = sum(len(s) for _, s in recs)
size = -(-total // n)
k = 0
for name, s in recs:
    for lo in range(0, len(s), size):
        hi = min(len(s), lo + size + 10_000)
        with open(f"{work}/piece{k}.fa", "w") as fh:
            fh.write(f">{name}_{lo}\n{s[lo:hi]}\n")
        k += 1
print(k)
EOF
    s=$(now)
    for f in "$WORK"/piece*.fa; do
        timeout "$T_PEERS" lastz "$WORK/t.fa" "$f" --format=general >"$f.out" 2>/dev/null &
    done
    wait $(jobs -p | grep -v "^${LZ1_PID}$") 2>/dev/null
    LZN=$(secs "$s" "$(now)")
    s=$(now)
    timeout "$T_PEERS" minimap2 -x asm20 -t "$NCPU" "$T" "$Q" >"$WORK/mm2.paf" 2>"$OUT/minimap2.log"
    MM2=$(secs "$s" "$(now)")
    if [ -n "$LZ1_PID" ]; then wait "$LZ1_PID"; fi
    read LZ1_RC LZ1 <"$WORK/lz1.time"
    [ "$LZ1_RC" = 0 ] || LZ1=">$T_LASTZ1 (rc $LZ1_RC)"
    {
        echo "lastz_1core_s $LZ1"; echo "lastz_${NCPU}cores_s $LZN"; echo "minimap2_${NCPU}t_s $MM2"
        echo "lastz_1core_alignments $(grep -vc '^#' "$WORK/lz1.out" 2>/dev/null)"
        echo "lastz_pieces_alignments $(cat "$WORK"/piece*.fa.out | grep -vc '^#')"
        echo "minimap2_alignments $(wc -l <"$WORK/mm2.paf")"
    } | tee "$OUT/peers.txt"
}

part_others() {
    if [ -f bench/workflow_bench.sh ]; then
        echo "== workflow bench"
        timeout "$T_OTHERS" bash bench/workflow_bench.sh "$BAC" gpu >"$OUT/workflow.log" 2>&1
        echo "rc=$?" >>"$OUT/workflow.log"; tail -3 "$OUT/workflow.log"
    fi
    if [ -f bench/wfa_bench.py ]; then
        echo "== wfa bench"
        timeout "$T_OTHERS" python3 bench/wfa_bench.py --backend gpu >"$OUT/wfa.log" 2>&1
        echo "rc=$?" >>"$OUT/wfa.log"; tail -3 "$OUT/wfa.log"
    fi
}

# the parts, in the order given
for part in $PARTS; do "part_$part"; done

echo "== summary"
python3 - "$OUT" <<'EOF'
import json, os, sys
out = sys.argv[1]
rows = []
try:
    e = json.load(open(os.path.join(out, "engine.json")))
    rows.append(("device", e["device"]))
    rows.append(("E. coli pair, GPU, per pair (s)", f"{e['pair_s']:.3f}"))
    for k, v in e["stages_s"].items():
        rows.append((f"  {k} (s)", f"{v:.4f}"))
    rows.append(("seed hits / HSPs / alignments", f"{e['seed_hits']:,} / {e['hsps']:,} / {e['alignments']:,}"))
    rows.append(("gapped DP cells/s", f"{(e['dp_cells_per_s'] or 0):.3e}"))
except Exception as exc:
    e = None
    rows.append(("engine bench", f"missing ({exc.__class__.__name__})"))
peers = {}
try:
    for line in open(os.path.join(out, "peers.txt")):
        k, v = line.split(" ", 1)
        peers[k] = v.strip()
except OSError:
    pass
for k, v in peers.items():
    rows.append((k, v))
    if e and k.endswith("_s"):
        try:
            rows.append((f"  ratio {k} / GPU", f"{float(v) / e['pair_s']:.1f}x"))
        except ValueError:
            pass
w = max(len(r[0]) for r in rows)
print("| what | value |\n|---|---|")
for k, v in rows:
    print(f"| {k} | {v} |")
EOF
