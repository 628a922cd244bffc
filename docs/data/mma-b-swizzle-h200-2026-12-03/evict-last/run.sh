#!/bin/bash
# A/B: A's fragments loaded with L1::evict_last (scripts/probe/mma_a_evict_last.patch) against the committed binary
set -u
mkdir -p gpu/o gpu/n && tar -C gpu/o -xJf gpu/final.tar.xz && tar -C gpu/n -xJf gpu/el.tar.xz
R=$OUT/r; mkdir -p $R; nvidia-smi -L; date -u +%FT%TZ | tee $R/date
D="--device cuda:0"
for spec in mma16/wg8/seq1/field-local mma/wg8/seq1/field-local mma/wg16/seq2/field-local; do
  DG_CACHE_DIR=$(mktemp -d) timeout 60 gpu/n/dg verify maxwell2d --order 5..8 --precision f64 --variant $spec/merged/node-major/f64 $D >> $R/verify.txt 2>&1; echo "verify $spec rc $?"
done
mkdir -p $OUT/u $OUT/s
FOCUS='^mma' OLD=gpu/o/dg NEW=gpu/n/dg OUT=$OUT/u AB_ORDERS=5..8 AB_PRECISION=f64 AB_OPERATION=unit TAG=unit PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -E "^N=|ab unit"
FOCUS='^mma' OLD=gpu/o/dg NEW=gpu/n/dg OUT=$OUT/s AB_ORDERS=5..8 AB_PRECISION=f64 AB_OPERATION=stage TAG=stage PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -E "^N=|ab stage"
cd $OUT && tar -czf all.tgz r u/r s/r && rm -rf r u s
