#!/usr/bin/env bash
# usage: OUT=dir bash scripts/probe/startup_probe.sh, run where ./dg-old, ./dg-new (dg binaries) and ./space_probe
# (cargo build --release -p dg-core --example space_probe) are
# where the 720,000-triangle Maxwell run's start-up goes on this machine; the old and the new binary alternately
set -u
OUT=${OUT:?}; R=$OUT/s; mkdir -p "$R"
nvidia-smi -L; nproc; lscpu | grep -E "Model name|^CPU\(s\)|MHz|Thread|Socket|NUMA node\(s\)"; cat /sys/fs/cgroup/cpu.max 2>/dev/null; free -g | head -2
date -u +%FT%TZ
for i in 1 2; do ./space_probe 600; done
RAYON_NUM_THREADS=1 ./space_probe 600
for bin in old new old new; do
  DG=./dg-$bin; cache=$(mktemp -d)
  for p in f32 f64; do for run in cold warm1 warm2; do
    o=$R/startup-$bin-$p-$run-$RANDOM
    /usr/bin/time -v env DG_CACHE_DIR=$cache "$DG" run maxwell-cavity --order 4 --nx 600 --precision $p --t-end 1e-5 --device cuda:0 --json > $o.json 2> $o.err
    python3 -c "
import json;d=json.load(open('$o.json'));m=d['startup'];prev=0;parts=[]
for x in m: parts.append('%s %.3f'%(x['phase'],x['seconds']-prev)); prev=x['seconds']
print('$bin $p $run total %.3f |' % prev, ', '.join(parts))"
    grep -E "User time|System time|Elapsed|Maximum resident|Minor" $o.err | sed 's/\t//g; s/ (seconds)//; s/(kbytes)//' | tr '\n' ';'; echo
  done; done
done
for bin in old new; do
  o=$R/split-$bin; timeout 120 ./dg-$bin run maxwell-cavity --order 8 --nx 244 --t-end 1e-1 --precision f32 --device cuda:0 --json > $o.json 2> $o.err
  python3 -c "
import json; d=json.load(open('$o.json')); v=d['device']; s=v['loop_split']
print('$bin 16M f32', 'steps', d['steps'], 'wall %.3f' % d['wall_seconds'], 'stepping %.3f inspecting %.3f kernels %.3f' % (s['stepping_seconds'], s['inspecting_seconds'], v['kernel_seconds']), 'L2', d.get('l2_error'))"
done
date -u +%FT%TZ
(cd "$OUT" && tar -czf startup.tgz s)
