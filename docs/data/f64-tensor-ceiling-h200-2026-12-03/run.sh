#!/usr/bin/env bash
# f64 tensor-core winners measured against the FP64 tensor cores' best rate: the committed binary's bench (unit, stage)
set -u
cd "$(dirname "$0")/.."
mkdir -p gpu/bin && tar -C gpu/bin -xJf gpu/roof.tar.xz
DG=gpu/bin/dg; R=$OUT/r; mkdir -p $R
nvidia-smi -L; date -u +%FT%TZ | tee $R/date
for op in unit stage; do
  DG_CACHE_DIR=$(mktemp -d) timeout 200 $DG bench maxwell2d --orders 1..8 --precision both --operation $op --device cuda:0 > $R/bench-$op.txt 2> $R/bench-$op.err
  echo "bench $op rc $?"; awk 'NR>1{printf "%s %s %s %s %s\n",$1,$2,$5,$8,substr($3,1,18)}' $R/bench-$op.txt
done
date -u +%FT%TZ | tee -a $R/date
tar -czf $OUT/r.tgz -C $OUT r && rm -rf $R
