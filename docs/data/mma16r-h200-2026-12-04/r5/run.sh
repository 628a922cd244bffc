#!/usr/bin/env bash
# mma16r shipped: re-tune maxwell2d f64 right-hand side N = 5..8 in a copy of the (re-keyed) shipped H200 file,
# bench every order on it, sanitizer and planted bugs on the new kernels
set -u
mkdir -p /tmp/b && tar -C /tmp/b -xJf gpu/r5.tar.xz; DG=/tmp/b/dg; R=$OUT; D="--device cuda:0"
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee $R/date
V=field-local/merged/node-major/f64
DB=$(mktemp -d); cp tuning-db/cuda-nvidia-h200-sm-90.json $DB/
export DG_CACHE_DIR=$(mktemp -d)
s0=$(date +%s); timeout 200 $DG --db $DB autotune maxwell2d --orders 5..8 --precision f64 $D > $R/tune.txt 2> $R/tune.err; echo "tune rc=$? $(( $(date +%s) - s0 )) s"
grep -E "N=[0-9]|winner|speed-up|geometric" $R/tune.txt | head -20
cp $DB/cuda-nvidia-h200-sm-90.json $R/
timeout 150 $DG --db $DB bench maxwell2d --orders 1..8 --precision both $D > $R/bench.txt 2> $R/bench.err; echo "bench rc=$?"; cat $R/bench.txt | head -30
date -u +%FT%TZ
for bug in skip-last-group stage-register-dropped last-element-unwritten; do
  timeout 60 $DG verify maxwell2d --order 5..8 --precision f64 --variant mma16r/wg32/seq1/$V --plant-bug $bug $D > $R/planted-$bug.txt 2>&1; echo "planted $bug rc=$? (nonzero expected)"
done
for tool in memcheck racecheck initcheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $DG verify maxwell2d --order 7 --precision f64 --variant mma16r/wg32/seq1/$V $D > $R/san-$tool.txt 2>&1 || true
  echo "sanitizer $tool: $(grep -E 'ERROR SUMMARY' $R/san-$tool.txt | tail -1) | $(tail -1 $R/san-$tool.txt | cut -c1-100)"
done
