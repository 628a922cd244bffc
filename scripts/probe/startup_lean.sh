#!/usr/bin/env bash
# usage: OUT=dir [BINS="old mid new"] [VORTEX=1] [VARIANTS=…] bash scripts/probe/startup_lean.sh, run where ./dg-B for
# each B of BINS (default "old new": dg binaries) and ./space_probe (cargo build --release -p dg-core --example
# space_probe) are. Start-up of issue 14's 720,000-triangle Maxwell run (process start to the end of the first step,
# `"startup"` of `dg run --json`) with the binaries in turn, each with a cold kernel cache and then warm; the 16M-DOF
# run's L2 error with old and new; with VORTEX=1 the isentropic vortex at p = 4 f64 (the issue's run) with old and new
# twice; then `dg bench` of N = 8 variants by --variant (VARIANTS, "precision spec" pairs separated by ';').
set -u
OUT=${OUT:?}; R=$OUT/s; mkdir -p "$R"
nvidia-smi -L; nproc; lscpu | grep -E "Model name|^CPU\(s\)"; date -u +%FT%TZ | tee "$R/date"
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null
./space_probe 600
for round in 1 2; do for bin in ${BINS:-old new}; do
  DG=./dg-$bin; cache=$(mktemp -d)
  for p in f32 f64; do for run in cold warm1 warm2 warm3; do
    o=$R/startup-$bin-$p-$run-$round
    DG_CACHE_DIR=$cache /usr/bin/time -f "%e s, %S s system, %R minor faults, %M KB" "$DG" run maxwell-cavity --order 4 \
      --nx 600 --precision $p --t-end 1e-5 --device cuda:0 --json > $o.json 2> $o.err
    python3 -c "
import json;d=json.load(open('$o.json'));m=d['startup'];prev=0;parts=[]
for x in m: parts.append('%s %.3f'%(x['phase'],x['seconds']-prev)); prev=x['seconds']
print('$bin $p $run total %.3f |' % prev, ', '.join(parts), '| L2', d['l2_error'], '|', open('$o.err').read().strip().splitlines()[-1])"
  done; done
done; done
for bin in old new; do for p in f32 f64; do
  o=$R/run16m-$bin-$p; timeout 120 ./dg-$bin run maxwell-cavity --order 8 --nx 244 --t-end 1e-2 --precision $p --device cuda:0 --json > $o.json 2> $o.err
  python3 -c "
import json; d=json.load(open('$o.json'))
print('$bin 16M $p steps', d['steps'], 'loop %.3f' % d['wall_seconds'], 'L2', d.get('l2_error'), 'E', d['energy_final'])"
done; done
if [ "${VORTEX:-0}" = 1 ]; then for bin in old new old new; do
  o=$R/vortex-$bin-$RANDOM
  timeout 60 ./dg-$bin run euler-isentropic-vortex --order 4 --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.025 \
    --precision f64 --device cuda:0 --json > $o.json 2> $o.err
  python3 -c "
import json; d=json.load(open('$o.json')); p=d['order']; pts=d['elements']*(p+1)*(p+2)//2
print('$bin vortex p=4 f64', round(pts*d['rhs_evaluations']/d['wall_seconds']/1e9,2), 'Gpts/s, kernels', round(d['device']['kernel_seconds'],3), 's, L2', d['density_l2_error'])"
done; fi
IFS=';' read -ra LIST <<< "${VARIANTS:-}"
for item in "${LIST[@]}"; do
  read -r p spec <<< "$item"; [ -n "$spec" ] || continue # p names the file: the SPEC carries the precision
  o=$R/bench-$p-$(echo "$spec" | tr '/' '_')
  timeout 60 ./dg-new bench maxwell2d --orders 8 --variant "$spec" --device cuda:0 > $o.txt 2> $o.err
  echo "bench $p $spec rc $?: $(grep -E '^ *8 ' $o.txt | head -1)"
done
date -u +%FT%TZ | tee -a "$R/date"
(cd "$OUT" && tar -czf startup.tgz s)
