#!/usr/bin/env bash
# Time the Snakemake workflow on a 4-genome S. aureus screen (6 pairs, 2.7-2.9 Mb each).
#
#   bench/workflow_bench.sh [DATA_DIR] [BACKEND] [CORES] [GPUS]
#
# DATA_DIR  folder holding S.Aureus_{COL,JKD6008,N315,RF122}.fa.gz
#           (default: .carry/bacteria if present, else ../shared/data/bacteria)
# BACKEND   gpu | cpu | auto (default gpu)
# CORES     snakemake -c (default: number of CPUs)
# GPUS      --resources gpu=N (default: GPUs nvidia-smi lists, at least 1)
#
# On the GPU machine, which lacks Snakemake, the wheels in .whl/ (see
# ../shared/device-wheels/README.md) are installed into /tmp/site first.
# Prints one line "workflow_bench backend=... seconds=..." at the end.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
DATA="${1:-}"
if [ -z "$DATA" ]; then
    if [ -d .carry/bacteria ]; then DATA=.carry/bacteria; else DATA=../shared/data/bacteria; fi
fi
DATA="$(cd "$DATA" && pwd)"
BACKEND="${2:-gpu}"
CORES="${3:-$(nproc)}"
GPUS="${4:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)}"
[ "${GPUS:-0}" -ge 1 ] 2>/dev/null || GPUS=1

if ! python3 -c 'import snakemake' 2>/dev/null; then
    if ls .whl/*.whl >/dev/null 2>&1; then
        python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target /tmp/site .whl/*.whl
        export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}" PATH="/tmp/site/bin:$PATH"
    else
        echo "snakemake is not installed and .whl/ holds no wheels" >&2
        exit 1
    fi
fi
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ava-bench.XXXXXX")"
mkdir -p "$WORK/config"
{
    printf 'name\tfasta\n'
    for g in COL JKD6008 N315 RF122; do
        printf 'Saureus_%s\t%s/S.Aureus_%s.fa.gz\n' "$g" "$DATA" "$g"
    done
} > "$WORK/config/genomes.tsv"
cat > "$WORK/config/config.yaml" <<YAML
genomes: config/genomes.tsv
outdir: results
prefix: saureus
pairs: unordered
self: false
engine: {strand: both, unmask: false, seed: "1110100110010101111", transition: true}
split: {size: 10000000, overlap: 200000}
unit_size: 10000000
backend: $BACKEND
gpu_mem: null
threads: $(( CORES / GPUS > 0 ? CORES / GPUS : 1 ))
gpu_lock_dir: $WORK/locks
plots: $(python3 -c 'import matplotlib' 2>/dev/null && echo true || echo false)
YAML

echo "workflow_bench: $WORK, backend $BACKEND, -c $CORES, gpu=$GPUS" >&2
start=$(date +%s.%N)
python3 -m snakemake --snakefile "$ROOT/Snakefile" -d "$WORK" -c "$CORES" --resources gpu="$GPUS" -q
end=$(date +%s.%N)
seconds=$(python3 -c "print(f'{$end - $start:.1f}')")
for f in "$WORK"/results/benchmarks/align/*/*/*.tsv; do
    printf '%s\t%s\n' "$(basename "$(dirname "$(dirname "$f")")")/$(basename "$(dirname "$f")")" \
        "$(sed -n 2p "$f" | cut -f1)"
done >&2
grep -h "GPU lease\|backend" "$WORK"/results/logs/align/*/*/*.log \
    | sed 's/^[0-9-]* [0-9:,]* //' | sort | uniq -c >&2 || true
cat "$WORK/results/matrices/saureus_identity.tsv" >&2
echo "workflow_bench backend=$BACKEND cores=$CORES gpus=$GPUS pairs=6 seconds=$seconds"
