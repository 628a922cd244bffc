#!/usr/bin/env bash
# the committed binary (47a3bc5): the tuning point at N = 7 f64 (two fresh tunings and an untruncated one), the vortex at p = 4 f64
set -u
mkdir -p /tmp/b && tar -C /tmp/b -xJf gpu/r6.tar.xz; DG=/tmp/b/dg; R=$OUT; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ | tee $R/date
for run in 1 2; do
  s0=$(date +%s.%N); DG_CACHE_DIR=$(mktemp -d) timeout 100 $DG --db $(mktemp -d) autotune maxwell2d --orders 7 --precision f64 $D > $R/tune-$run.txt 2>&1
  echo "tune $run rc=$? $(echo "$(date +%s.%N) - $s0" | bc) s: $(grep -E 'winner' $R/tune-$run.txt | head -1 | cut -c1-150)"
done
s0=$(date +%s.%N); DG_CACHE_DIR=$(mktemp -d) timeout 200 $DG --db $(mktemp -d) autotune maxwell2d --orders 7 --precision f64 --every-variant --no-early-stop $D > $R/tune-full.txt 2>&1
echo "untruncated rc=$? $(echo "$(date +%s.%N) - $s0" | bc) s: $(grep -E 'winner' $R/tune-full.txt | head -1 | cut -c1-150)"
DG_CACHE_DIR=$(mktemp -d) $DG run euler-isentropic-vortex --order 4 --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.025 --precision f64 $D --json > $R/iv.json 2> $R/iv.err
python3 -c "
import json; d=json.load(open('$R/iv.json')); p=d['order']; pts=d['elements']*(p+1)*(p+2)//2
print('vortex f64 p=4', round(pts*d['rhs_evaluations']/d['wall_seconds']/1e9,2), 'Gpts/s', d['density_l2_error'])"
