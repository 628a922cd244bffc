#!/bin/bash
# A/B: flux pairs as one vector in the tiles' local memory, the mma kernels' output staged as vectors
set -u
mkdir -p gpu/o gpu/n && tar -C gpu/o -xJf gpu/final.tar.xz && tar -C gpu/n -xJf gpu/pairs.tar.xz
R=$OUT/r; mkdir -p $R; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee $R/date
D="--device cuda:0"
V="timeout 60 env DG_CACHE_DIR=$(mktemp -d) gpu/n/dg verify"
for sp in "f32 tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed" "f32 tile6/wg32/seq1/matrix-local/merged/node-major/f32/mixed" \
          "f64 tile8/wg32/seq1/matrix-const/merged/node-major/f64" "f64 tile4/wg32/seq2/matrix-local/merged/node-major/f64/mixed" \
          "f64 mma16/wg8/seq1/field-local/merged/node-major/f64" "f64 mma/wg16/seq2/matrix-local/merged/node-major/f64" \
          "f32 mma/wg8/seq1/field-local/merged/node-major/f32"; do
  set -- $sp
  $V maxwell2d --order 1..8 --precision $1 --variant $2 $D >> $R/verify.txt 2>&1; echo "verify $2 rc $?"
done
$V euler2d --formulation nodal-tri --order 1..4 --precision f32 --variant tile4/wg32/seq1/matrix-local/merged/node-major/f32 $D >> $R/verify.txt 2>&1; echo "verify euler2d tile4 rc $?"
$V maxwell2d --order 6 --precision f32 --variant tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed --plant-bug skip-last-group $D > $R/planted.txt 2>&1; echo "planted tile rc $? (must be 1)"
$V maxwell2d --order 8 --precision f64 --variant mma16/wg8/seq1/field-local/merged/node-major/f64 --plant-bug skip-last-group $D >> $R/planted.txt 2>&1; echo "planted mma rc $? (must be 1)"
date -u +%FT%TZ | tee -a $R/date
mkdir -p $OUT/u $OUT/s
FOCUS='^(tile|mma)' OLD=gpu/o/dg NEW=gpu/n/dg OUT=$OUT/u AB_ORDERS=4..8 AB_PRECISION=both AB_OPERATION=unit TAG=unit PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -E "^N=|ab unit"
FOCUS='^(tile|mma)' OLD=gpu/o/dg NEW=gpu/n/dg OUT=$OUT/s AB_ORDERS=4..8 AB_PRECISION=both AB_OPERATION=stage TAG=stage PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -E "^N=|ab stage"
date -u +%FT%TZ | tee -a $R/date
cd $OUT && tar -czf all.tgz r u/r s/r && rm -rf r u s
