#!/usr/bin/env bash
# Where a nodal run's loop time goes on the device: `dg run maxwell-cavity --order 8 --nx 244 --precision P --json`
# (16M DOFs) for 17 and 85 steps, the loop's split (stepping, inspecting, saving) and the kernels' seconds.
# usage: DG=path/to/dg OUT=dir bash scripts/probe/run_split.sh
set -u
DG=${DG:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
for p in f32 f64; do
  for tend in 2e-3 1e-2; do
    timeout 120 "$DG" run maxwell-cavity --order 8 --nx 244 --t-end $tend --precision $p --device cuda:0 --json > "$R/run-$p-$tend.json" 2> "$R/run-$p-$tend.err"
    echo "$p t_end=$tend rc $?: $(python3 -c "
import json; d=json.load(open('$R/run-$p-$tend.json')); v=d['device']; s=v['loop_split']
print('steps', d['steps'], 'wall %.3f' % d['wall_seconds'], 'stepping %.3f inspecting %.3f saving %.3f kernels %.3f first_step %.3f' % (s['stepping_seconds'], s['inspecting_seconds'], s['saving_seconds'], v['kernel_seconds'], v['first_step_seconds']))" 2>&1)"
  done
done
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
