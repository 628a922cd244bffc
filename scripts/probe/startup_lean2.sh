#!/usr/bin/env bash
# usage: OUT=dir bash scripts/probe/startup_lean2.sh, run where ./dg-old, ./dg-mid, ./dg-new (dg binaries: 316d4f4,
# 28eec9c, 5ffc8a0 in docs/data/startup-lean-h100-2026-12-06) and ./space_probe are. Start-up of issue 14's
# 720,000-triangle Maxwell run with the three binaries in turn (cold kernel cache, then warm), then the vortex at
# p = 4 f64 with old and new (kernels unchanged: whether the loop's figure holds on this machine)
set -u
OUT=${OUT:?}; R=$OUT/s; mkdir -p "$R"
nvidia-smi -L; lscpu | grep -E "Model name"; date -u +%FT%TZ | tee "$R/date"
./space_probe 600
for round in 1 2; do for bin in old mid new; do
  cache=$(mktemp -d)
  for p in f32 f64; do for run in cold warm1 warm2 warm3; do
    o=$R/startup-$bin-$p-$run-$round
    DG_CACHE_DIR=$cache /usr/bin/time -f "%e s, %S s system, %R minor faults, %M KB" ./dg-$bin run maxwell-cavity --order 4 \
      --nx 600 --precision $p --t-end 1e-5 --device cuda:0 --json > $o.json 2> $o.err
    python3 -c "
import json;d=json.load(open('$o.json'));m=d['startup'];prev=0;parts=[]
for x in m: parts.append('%s %.3f'%(x['phase'],x['seconds']-prev)); prev=x['seconds']
print('$bin $p $run total %.3f |' % prev, ', '.join(parts), '| L2', d['l2_error'], '|', open('$o.err').read().strip().splitlines()[-1])"
  done; done
done; done
for bin in old new old new; do
  o=$R/vortex-$bin-$RANDOM
  timeout 60 ./dg-$bin run euler-isentropic-vortex --order 4 --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.025 --precision f64 --device cuda:0 --json > $o.json 2> $o.err
  python3 -c "
import json; d=json.load(open('$o.json')); p=d['order']; pts=d['elements']*(p+1)*(p+2)//2
print('$bin vortex p=4 f64', round(pts*d['rhs_evaluations']/d['wall_seconds']/1e9,2), 'Gpts/s, kernels', round(d['device']['kernel_seconds'],3), 's, L2', d['density_l2_error'])"
done
date -u +%FT%TZ | tee -a "$R/date"
(cd "$OUT" && tar -czf lean2.tgz s)
