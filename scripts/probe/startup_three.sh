#!/usr/bin/env bash
# usage: OUT=dir bash scripts/probe/startup_three.sh, run where ./dg-old, ./dg-mid, ./dg-new (dg binaries) and
# ./space_probe (cargo build --release -p dg-core --example space_probe) are
# start-up of the 720,000-triangle Maxwell run with three binaries in turn (old: a221c40, mid: 2649390, new: the
# initial state formed beside the kernels' build), then the 16M-DOF run's loop with old and new
set -u
OUT=${OUT:?}; R=$OUT/s; mkdir -p "$R"
nvidia-smi -L; nproc; lscpu | grep -E "Model name|^CPU\(s\)"; date -u +%FT%TZ
./space_probe 600
for bin in old mid new old mid new; do
  DG=./dg-$bin; cache=$(mktemp -d)
  for p in f32 f64; do for run in cold warm1 warm2; do
    o=$R/startup-$bin-$p-$run-$RANDOM
    DG_CACHE_DIR=$cache "$DG" run maxwell-cavity --order 4 --nx 600 --precision $p --t-end 1e-5 --device cuda:0 --json > $o.json 2> $o.err
    python3 -c "
import json;d=json.load(open('$o.json'));m=d['startup'];prev=0;parts=[]
for x in m: parts.append('%s %.3f'%(x['phase'],x['seconds']-prev)); prev=x['seconds']
print('$bin $p $run total %.3f |' % prev, ', '.join(parts), '| L2', d['l2_error'], 'E', d['energy_initial'])"
  done; done
done
for bin in old new; do for p in f32 f64; do for tend in 2e-3 1e-2 1e-1; do
  o=$R/split-$bin-$p-$tend; timeout 120 ./dg-$bin run maxwell-cavity --order 8 --nx 244 --t-end $tend --precision $p --device cuda:0 --json > $o.json 2> $o.err
  python3 -c "
import json; d=json.load(open('$o.json')); v=d['device']; s=v['loop_split']
print('$bin 16M $p $tend', 'steps', d['steps'], 'loop %.3f' % d['wall_seconds'], 'inspecting %.3f kernels %.3f' % (s['inspecting_seconds'], v['kernel_seconds']), 'L2', d.get('l2_error'), 'E', d['energy_final'])"
done; done; done
date -u +%FT%TZ
(cd "$OUT" && tar -czf startup.tgz s)
