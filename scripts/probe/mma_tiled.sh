#!/usr/bin/env bash
# The f64 tensor-core kernels (mma, mma16, mma16r) on the tiled layout (2026-12-04, valid on request): verified at
# N = 1..8 (maxwell2d; euler2d at N = 3, 4; mhd2d, whose source is folded into the store, at N = 3), a planted
# wrong-stride that verification must catch, one kernel under compute-sanitizer, then the f64 winners at N = 5..8
# against their tiled twins (`dg bench --variant`, right-hand side and stage, two passes) and one run on both layouts.
# usage: DG=path/to/dg OUT=dir bash scripts/probe/mma_tiled.sh
set -u
DG=${DG:?}; OUT=${OUT:?}; mkdir -p "$OUT"; D="--device cuda:0"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"; date -u | tee -a "$OUT/device.txt"
for V in mma/wg8/seq1/field-local/merged/tiled/f64 mma/wg16/seq2/matrix-local/merged/tiled/f64 \
         mma16/wg8/seq1/field-local/merged/tiled/f64 mma16r/wg32/seq1/field-local/merged/tiled/f64 \
         mma16r/wg32/seq2/field-local/merged/tiled/f64; do
  o=$OUT/verify-$(echo $V | tr / _)
  timeout 120 "$DG" verify maxwell2d --order 1..8 --variant $V $D > $o.txt 2>&1; echo "verify maxwell2d $V: rc $? $(tail -1 $o.txt | cut -c1-140)"
done
for L in "euler2d 3..4 mma/wg16/seq1/field-local/merged/tiled/f64" "euler2d 4 mma16r/wg32/seq2/field-local/merged/tiled/f64" \
         "mhd2d 3 mma/wg8/seq1/field-local/merged/tiled/f64" "mhd2d 3 mma16r/wg32/seq1/field-local/merged/tiled/f64"; do
  set -- $L; o=$OUT/verify-$1-$(echo $3 | tr / _)
  timeout 120 "$DG" verify $1 --formulation nodal-tri --order $2 --variant $3 $D > $o.txt 2>&1; echo "verify $1 N=$2 $3: rc $? $(tail -1 $o.txt | cut -c1-140)"
done
for V in mma/wg8/seq1/field-local/merged/tiled/f64 mma16r/wg32/seq1/field-local/merged/tiled/f64; do
  timeout 60 "$DG" verify maxwell2d --order 5 --variant $V --plant-bug wrong-stride $D > $OUT/planted.txt 2>&1
  echo "planted wrong-stride $V: rc $? (must be non-zero) $(tail -1 $OUT/planted.txt | cut -c1-120)"
done
compute-sanitizer --tool memcheck "$DG" verify maxwell2d --order 7 --variant mma16r/wg32/seq1/field-local/merged/tiled/f64 $D 2>&1 | tail -2 | tee "$OUT/sanitizer.txt"
PAIRS="5 unit mma/wg8/seq1/field-local/merged/node-major/f64
6 unit mma16/wg8/seq1/field-local/merged/node-major/f64
7 unit mma16r/wg32/seq1/field-local/merged/node-major/f64
8 unit mma16/wg8/seq1/field-local/merged/node-major/f64
5 stage mma/wg16/seq1/field-local/merged/node-major/f64
7 stage mma/wg16/seq1/field-local/merged/node-major/f64
8 stage mma16/wg16/seq1/field-local/merged/node-major/f64"
for pass in 1 2; do
  while read -r n op spec || [ -n "$n" ]; do
    for s in "$spec" "${spec/node-major/tiled}"; do
      "$DG" bench maxwell2d --orders "$n" --operation $op --variant "$s" $D --db "$OUT/db" 2>&1 \
        | grep -E "^ *$n f64 " | sed "s|^|pass $pass $op |" | tee -a "$OUT/pairs.txt"
    done
  done <<< "$PAIRS"
done
for s in mma/wg16/seq1/field-local/merged/node-major/f64 mma/wg16/seq1/field-local/merged/tiled/f64; do
  o=$OUT/run-$(echo $s | tr / _)
  timeout 120 "$DG" run maxwell-cavity --order 6 --nx 300 --t-end 0.2 --precision f64 --variant $s $D --json > $o.json 2> $o.err
  echo "run N=6 $s rc $?: $(python3 -c "import json;d=json.load(open('$o.json'));print('L2 %.9e'%d['l2_error'],'kernels %.3f s'%d['device']['kernel_seconds'])" 2>&1 | tail -1)"
done
date -u | tee -a "$OUT/device.txt"
