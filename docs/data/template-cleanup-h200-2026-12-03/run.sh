#!/usr/bin/env bash
# the committed binary (template cleanup, entries re-keyed): compiled-in database bench, start-up, tuning time,
# compute-sanitizer on the tile winners
set -u
cd "$(dirname "$0")/.."
mkdir -p gpu/bin && tar -C gpu/bin -xJf gpu/check.tar.xz
DG=gpu/bin/dg; D="--device cuda:0"; R=$OUT/r; mkdir -p $R
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee $R/date
for op in unit stage; do
  t0=$(date +%s)
  DG_CACHE_DIR=$(mktemp -d) timeout 200 $DG bench maxwell2d --orders 1..8 --precision both --operation $op $D > $R/bench-$op.txt 2> $R/bench-$op.err
  echo "bench $op rc $? $(( $(date +%s) - t0 )) s; tuned now: $(grep -ci 'tuning\|no stored' $R/bench-$op.err)"
  awk 'NR>1{printf "%s %s %s %s %s\n",$1,$2,$5,$8,substr($3,1,18)}' $R/bench-$op.txt
done
OUT=$R/startup DGS=$DG PRECISIONS="f32 f64" RUNS="cold warm1 warm2" bash scripts/probe/startup.sh 2>&1 | grep -v packed | cut -c1-200
for t in "5 f32 a" "5 f32 b" "8 f64 a" "8 f64 b"; do
  set -- $t; t0=$(date +%s.%N)
  DG_CACHE_DIR=$(mktemp -d) timeout 120 $DG --db $(mktemp -d) autotune maxwell2d --orders $1 --precision $2 $D > $R/tune-$1-$2-$3.txt 2> $R/tune-$1-$2-$3.err
  echo "tune N=$1 $2 ($3) rc $? $(python3 -c "print('%.1f' % ($(date +%s.%N) - $t0))") s: $(grep -i winner $R/tune-$1-$2-$3.txt | head -1 | cut -c1-150)"
done
OUT=$R/san ONLY=' tile' JOBS=12 LIMIT=240 timeout 330 bash scripts/probe/sanitize_winners.sh 2>&1 | tail -40
date -u +%FT%TZ | tee -a $R/date
tar -czf $OUT/r.tgz -C $OUT r
