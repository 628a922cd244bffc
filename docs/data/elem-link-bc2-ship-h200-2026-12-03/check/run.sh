#!/usr/bin/env bash
# the committed binary (a2cdc5f) with its compiled-in database only (no --db, empty caches): maxwell2d bench both
# operations and precisions; start-up of the 720,000-triangle Maxwell run; tuning time N = 3, 5 f32
set -u
cd "$(dirname "$0")/.."
tar -C gpu -xJf gpu/ship-commit.tar.xz
R=$OUT/check; mkdir -p $R; date -u +%FT%TZ | tee $R/date; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for op in unit stage; do
  DG_CACHE_DIR=$(mktemp -d) timeout 150 gpu/dg bench maxwell2d --orders 1..8 --precision both --operation $op --device cuda:0 > $R/bench-$op.txt 2> $R/bench-$op.err
  echo "bench $op rc $?"; cat $R/bench-$op.txt; echo "tuning mentions: $(grep -ci "tun" $R/bench-$op.err)"
done
(cd $OUT && tar -czf check.tgz check)
DG=gpu/dg OUT=$R SECTIONS="startup tune" TUNE_ORDERS="3 5" timeout 200 bash scripts/gpu_speed.sh 2>&1 | tail -12
(cd $OUT && tar -czf check.tgz check)
date -u +%FT%TZ | tee -a $R/date
