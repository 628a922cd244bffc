#!/usr/bin/env bash
# A/B: tiles loading a chunk's states one chunk ahead (NEW) against the shipped binary (OLD), exhaustive tuner
set -u
cd "$(dirname "$0")/.."
mkdir -p gpu/old gpu/new
tar -C gpu/old -xJf gpu/ship-commit.tar.xz; tar -C gpu/new -xJf gpu/dg-prefetch.tar.xz
date -u +%FT%TZ
S=$OUT/sass; mkdir -p $S
for which in old new; do
  gpu/$which/dg emit maxwell2d --order 8 --variant tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed --target cuda > $S/$which-n8.cu
  (cd $S && nvcc -cubin -arch=sm_90 -std=c++17 --resource-usage -o /tmp/$which.cubin $which-n8.cu > $which-n8.usage 2>&1; grep -o 'Used [0-9]* registers[^,]*, [^,]*' $which-n8.usage | head -2)
done
FOCUS='^tile' OLD=gpu/old/dg NEW=gpu/new/dg OUT=$OUT AB_ORDERS=3..8 AB_PRECISION=f32 AB_OPERATION=unit TAG=unit-f32 PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -v "^    "
FOCUS='^tile' OLD=gpu/old/dg NEW=gpu/new/dg OUT=$OUT AB_ORDERS=3..8 AB_PRECISION=f32 AB_OPERATION=stage TAG=stage-f32 PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -v "^    "
FOCUS='^tile' OLD=gpu/old/dg NEW=gpu/new/dg OUT=$OUT AB_ORDERS=3..4 AB_PRECISION=f64 AB_OPERATION=stage TAG=stage-f64 PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -v "^    "
tar -czf $OUT/sass.tgz -C $OUT sass && rm -rf $OUT/sass
date -u +%FT%TZ
