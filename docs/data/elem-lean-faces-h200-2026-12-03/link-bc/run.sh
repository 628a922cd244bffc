#!/usr/bin/env bash
# A/B: f32 merged element kernels whose link also carries a boundary face's condition and the neighbour element
# (no face_bc, no neigh loads; new) against the shipped ones (old); then the f32 nodal entries re-tuned, verified, benched.
set -u
cd "$(dirname "$0")/.."
mkdir -p gpu/old gpu/new; tar -C gpu/old -xJf gpu/check-links.tar.xz; tar -C gpu/new -xJf gpu/dg-bc.tar.xz
OUT=${OUT:?}
nvidia-smi -L
FOCUS='^elem/.*/merged/' OLD=gpu/old/dg NEW=gpu/new/dg OUT=$OUT/ab AB_OPERATION=unit AB_ORDERS=1..5 AB_PRECISION=f32 PARTS=ab bash scripts/probe/family_ab.sh > $OUT/ab-console.txt 2>&1
grep -E "^N=" $OUT/ab/r/ab-unit-table.txt | cut -c1-260
DG=gpu/new/dg; DB=$OUT/db; R=$OUT/rt; mkdir -p $R; D="--device cuda:0"; cp -r tuning-db $DB
source scripts/probe/nodal_retune_lib.sh
nodal_retune f32
V=elem/wg32/seq1/matrix-local/merged/node-major/f32
for law in "maxwell2d" "acoustics2d" "euler2d --formulation nodal-tri"; do
  t=$(echo $law | cut -d' ' -f1)
  timeout 100 $DG verify $law --order 1..5 --precision f32 --variant $V $D > "$R/verify-$t.txt" 2>&1
  echo "verify $law f32: rc $? $(tail -1 "$R/verify-$t.txt")"
done
timeout 60 $DG verify maxwell2d --order 2..3 --precision f32 --variant $V --plant-bug skip-last-group $D > "$R/verify-planted.txt" 2>&1
echo "planted skip-last-group: rc $? (must be non-zero) $(tail -1 "$R/verify-planted.txt")"
nodal_bench both
cp $DB/cuda-nvidia-h200-sm-90.json $R/
(cd $OUT && tar -czf all.tgz ab/r rt ab-console.txt)
