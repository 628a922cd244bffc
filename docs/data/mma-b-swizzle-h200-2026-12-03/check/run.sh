#!/bin/bash
set -u
mkdir -p gpu/f && tar -C gpu/f -xJf gpu/final.tar.xz
DG=gpu/f/dg; R=$OUT/r; mkdir -p $R; nvidia-smi -L; date -u +%FT%TZ | tee $R/date
for op in unit stage; do
  DG_CACHE_DIR=$(mktemp -d) timeout 150 $DG bench maxwell2d --orders 1..8 --precision both --operation $op --device cuda:0 > $R/bench-$op.txt 2> $R/bench-$op.err
  echo "bench $op rc $?"; cat $R/bench-$op.txt
done
date -u +%FT%TZ | tee -a $R/date
DG=$DG OUT=$OUT/san JOBS=8 ONLY=' mma' LIMIT=200 timeout 330 bash scripts/probe/sanitize_winners.sh 2>&1 | tail -8
date -u +%FT%TZ | tee -a $R/date
cd $OUT && tar -czf r.tgz r san 2>/dev/null; rm -rf r san
