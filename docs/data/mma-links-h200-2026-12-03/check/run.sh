#!/bin/bash
set -u
mkdir -p gpu/c && tar -C gpu/c -xJf gpu/check.tar.xz
export DG=gpu/c/dg D="--device cuda:0"; R=$OUT/r; mkdir -p $R
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee $R/date
for op in unit stage; do
  DG_CACHE_DIR=$(mktemp -d) timeout 150 $DG bench maxwell2d --orders 1..8 --precision both --operation $op $D > $R/bench-$op.txt 2> $R/bench-$op.err
  echo "bench $op rc $?"; cat $R/bench-$op.txt
done
date -u +%FT%TZ | tee -a $R/date
DG=$DG OUT=$OUT/san JOBS=8 ONLY=' mma' LIMIT=200 bash scripts/probe/sanitize_winners.sh 2>&1 | tail -30
date -u +%FT%TZ | tee -a $R/date
cd $OUT && tar -czf r.tgz r san/r/*.txt san/r/date 2>/dev/null; rm -rf r san
