#!/usr/bin/env bash
# Time the Snakemake workflow on a 4-genome S. aureus screen (6 pairs, 2.7-2.9 Mb each), or on the
# genomes that GENOMES names (file names in DATA_DIR without .fa.gz, space-separated).
# UNITS_PER_JOB sets the config's units_per_job (default null: the workflow's choice), JOBS_PER_GPU
# its jobs_per_gpu (default 1); each alignment job gets THREADS threads (default
# CORES / (GPUS * JOBS_PER_GPU)).
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
# the genomes (file names in DATA_DIR without .fa.gz); the default is the 4-genome S. aureus screen
GENOMES="${GENOMES:-S.Aureus_COL S.Aureus_JKD6008 S.Aureus_N315 S.Aureus_RF122}"
NPAIRS=$(echo $GENOMES | wc -w | awk '{print $1 * ($1 - 1) / 2}')
CORES="${3:-$(nproc)}"
GPUS="${4:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)}"
[ "${GPUS:-0}" -ge 1 ] 2>/dev/null || GPUS=1
JPG="${JOBS_PER_GPU:-1}"
SLOTS=$(( GPUS * JPG ))

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
    for g in $GENOMES; do
        printf '%s\t%s/%s.fa.gz\n' "$(echo "$g" | tr -c 'A-Za-z0-9_\n' _)" "$DATA" "$g"
    done
} > "$WORK/config/genomes.tsv"
cat > "$WORK/config/config.yaml" <<YAML
genomes: config/genomes.tsv
outdir: results
prefix: bench
pairs: unordered
self: false
engine: {strand: both, unmask: false, seed: "1110100110010101111", transition: true}
split: {size: 10000000, overlap: 200000}
unit_size: 10000000
backend: $BACKEND
units_per_job: ${UNITS_PER_JOB:-null}
gpu_mem: null
threads: ${THREADS:-$(( CORES / SLOTS > 0 ? CORES / SLOTS : 1 ))}
jobs_per_gpu: $JPG
gpu_lock_dir: $WORK/locks
plots: $(python3 -c 'import matplotlib' 2>/dev/null && echo true || echo false)
YAML

echo "workflow_bench: $WORK, backend $BACKEND, -c $CORES, gpu=$SLOTS ($GPUS GPUs x $JPG jobs)" >&2
start=$(date +%s.%N)
python3 -m snakemake --snakefile "$ROOT/Snakefile" -d "$WORK" -c "$CORES" --resources gpu="$SLOTS" -q
end=$(date +%s.%N)
seconds=$(python3 -c "print(f'{$end - $start:.1f}')")
for f in "$WORK"/results/benchmarks/align/*.tsv; do
    printf 'align %s: %s units, %s s\n' "$(basename "$f" .tsv)" \
        "$(grep -c " done in " "$WORK/results/logs/align/$(basename "$f" .tsv).log")" "$(sed -n 2p "$f" | cut -f1)"
done >&2
# every rule's jobs: how many, and their wall seconds summed (Snakemake's benchmark files)
for d in "$WORK"/results/benchmarks/*/; do
    find "$d" -name '*.tsv' -exec sed -n 2p {} \; | awk -v r="$(basename "$d")" \
        '{n++; s+=$1} END {printf "rule %s: %d jobs, %.1f s wall in all\n", r, n, s}'
done >&2
grep -h "GPU lease\|backend" "$WORK"/results/logs/align/*.log | sed 's/; [0-9]* work units//' \
    | sed 's/^[0-9-]* [0-9:,]* //' | sort | uniq -c >&2 || true
cat "$WORK/results/matrices/bench_identity.tsv" >&2
# one checksum of every pair's merged PAF (in pair order), to compare runs of other settings
echo "alignments md5 $(for f in $(ls "$WORK"/results/alignments/*/*.paf.gz | sort); do zcat "$f"; done | md5sum | cut -d' ' -f1)" >&2
echo "workflow_bench backend=$BACKEND cores=$CORES gpus=$GPUS pairs=$NPAIRS units_per_job=${UNITS_PER_JOB:-null} jobs_per_gpu=$JPG seconds=$seconds"
