#!/usr/bin/env bash
# A/B: merged element kernels reading one link per face (neighbour or boundary code) and deriving normals (new, both
# precisions in this probe) against the shipped ones (old); then the f32 nodal entries re-tuned with the probe.
set -u
cd "$(dirname "$0")/.."
mkdir -p gpu/old gpu/new; tar -C gpu/old -xJf gpu/check-links.tar.xz; tar -C gpu/new -xJf gpu/dg-probe.tar.xz
OUT=${OUT:?}
nvidia-smi -L
FOCUS='^elem/.*/merged/' OLD=gpu/old/dg NEW=gpu/new/dg OUT=$OUT/ab AB_OPERATION=unit AB_ORDERS=1..5 AB_PRECISION=both PARTS=ab bash scripts/probe/family_ab.sh > $OUT/ab-console.txt 2>&1
grep -E "^N=" $OUT/ab/r/ab-unit-table.txt
DG=gpu/new/dg; DB=$OUT/db; R=$OUT/rt; mkdir -p $R; D="--device cuda:0"; cp -r tuning-db $DB
source scripts/probe/nodal_retune_lib.sh
nodal_retune f32
V=elem/wg32/seq1/matrix-local/merged/node-major/f32
for law in "maxwell2d" "acoustics2d" "euler2d --formulation nodal-tri"; do
  timeout 100 $DG verify $law --order 1..4 --precision f32 --variant $V $D > "$R/verify-$(echo $law | cut -d' ' -f1).txt" 2>&1
  echo "verify $law f32: rc $? $(tail -1 "$R/verify-$(echo $law | cut -d' ' -f1).txt")"
  timeout 100 $DG verify $law --order 1..4 --precision f64 --variant ${V%f32}f64 $D > "$R/verify64-$(echo $law | cut -d' ' -f1).txt" 2>&1
  echo "verify $law f64: rc $? $(tail -1 "$R/verify64-$(echo $law | cut -d' ' -f1).txt")"
done
timeout 60 $DG verify maxwell2d --order 2..3 --precision f32 --variant $V --plant-bug skip-last-group $D > "$R/verify-planted.txt" 2>&1
echo "planted skip-last-group: rc $? (must be non-zero) $(tail -1 "$R/verify-planted.txt")"
(cd $OUT && tar -czf all.tgz ab/r rt db/*h200*.json ab-console.txt)
