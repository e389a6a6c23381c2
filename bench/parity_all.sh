#!/usr/bin/env bash
# LASTZ parity on the four bacterial pairs of issue 2; prints one markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
D=${1:-../shared/data/bacteria}
first=--header
for pair in "S.Aureus_COL S.Aureus_N315" "H.Pylori_G27 H.Pylori_SJM180" \
            "E.Coli_MG1655-K12 E.Coli_DH1" "V.Cholerae_H1 V.Cholerae_O395"; do
  set -- $pair
  python3 bench/parity.py $first "$D/$1.fa.gz" "$D/$2.fa.gz"
  first=
done
