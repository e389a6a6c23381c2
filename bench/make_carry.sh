#!/usr/bin/env bash
# Build .carry/ for the device calls (bench/device.sh's header says what each path is for), on this machine:
#
#   bash bench/make_carry.sh [START]
#
#   .carry/data/{bacteria,fungi}   the bacterial genomes and the two Zymoseptoria genomes of ../shared/data
#   .carry/bin/{lastz,minimap2}    the installed Debian builds of the peers (apt-get install lastz minimap2)
#   .carry/cpu_paf                 the CPU reference PAFs of the GPU parity tests (tests/gpu_reference.py;
#                                  minutes on 2 cores the first time, cached after)
#   .carry/prev                    START's gpukernels/ and bench/ (a commit, for bench/device.sh prev)
#
# .carry/ goes into .git/info/exclude, so it never lands. The run tool carries 64 MiB at most: the script
# prints what each path weighs; carry .carry/jit-cache.tar.gz (from a call's $OUT) beside them when it fits.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
SHARED="${AVA_SHARED_DATA:-$ROOT/../shared/data}"
[ -d "$SHARED/bacteria" ] || { echo "make_carry: no genomes at $SHARED/bacteria (set AVA_SHARED_DATA)" >&2; exit 1; }
grep -qx '.carry/' .git/info/exclude 2>/dev/null || echo '.carry/' >>.git/info/exclude
mkdir -p .carry/data/bacteria .carry/data/fungi .carry/bin
cp -u "$SHARED"/bacteria/*.fa.gz .carry/data/bacteria/
cp -u "$SHARED"/fungi/Ztritici_IPO323.fa.gz "$SHARED"/fungi/Ztritici_A26b.fa.gz .carry/data/fungi/
for tool in lastz minimap2; do
    path="$(command -v "$tool")" || { echo "make_carry: $tool is not installed (apt-get install $tool)" >&2; exit 1; }
    cp -u "$path" .carry/bin/
done
AVA_SHARED_DATA="$ROOT/.carry/data" AVA_CPU_PAF_CACHE="$ROOT/.carry/cpu_paf" python3 tests/gpu_reference.py
if [ $# -ge 1 ]; then
    rm -rf .carry/prev && mkdir -p .carry/prev
    git archive "$1" gpukernels bench | tar -x -C .carry/prev
fi
du -sh .carry/* | sed 's/^/make_carry: /'
