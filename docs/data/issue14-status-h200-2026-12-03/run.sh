#!/usr/bin/env bash
# the committed binary: the issue's vortex runs and seed 002's tetrahedral figures (#14's other points)
set -u
cd "$(dirname "$0")/.."
mkdir -p gpu/bin && tar -C gpu/bin -xJf gpu/check.tar.xz
DG=gpu/bin/dg; R=$OUT/r; mkdir -p $R
export DG_CACHE_DIR=$(mktemp -d)
nvidia-smi -L; date -u +%FT%TZ | tee $R/date
source scripts/probe/vortex_run.sh
for P in f32 f64; do for p in 1 2 3 4; do vortex $p $P shipped; done; done
for law in acoustics3d elastic3d; do
  timeout 200 $DG bench $law --per-kernel --orders 7 --precision f32 --device cuda:0 > $R/tet-$law.txt 2> $R/tet-$law.err
  echo "tet $law rc $?"; grep -iE "fastest|peak|step" $R/tet-$law.txt | tail -6 | cut -c1-200
done
date -u +%FT%TZ | tee -a $R/date
tar -czf $OUT/r.tgz -C $OUT r && rm -rf $R
