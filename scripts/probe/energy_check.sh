#!/usr/bin/env bash
# The runs' growth check on the device (the energy formed by the program's energy kernel, K terms read back; the
# tetrahedral and hexahedral runs' redundant whole-state reads dropped), against the binary before it, on one card:
# the 16M-DOF nodal Maxwell run's loop split (as scripts/probe/run_split.sh), start-up of the 720,000-triangle run
# (cold and warm kernel cache), a tetrahedral and a hexahedral run's loop, the errors of each (unchanged), an
# unstable run's stop, and `dg verify` of the nodal Maxwell variants at N = 8 (every one's energy kernel
# checked against the host).
# usage: OLD=path/to/old/dg NEW=path/to/new/dg OUT=dir bash scripts/probe/energy_check.sh
set -u
OLD=${OLD:?}; NEW=${NEW:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
split() { # label json
  python3 -c "
import json; d=json.load(open('$2')); v=d['device']; s=v['loop_split']
print('$1', 'steps', d['steps'], 'wall %.3f' % d['wall_seconds'], 'stepping %.3f inspecting %.3f kernels %.3f first_step %.3f' % (s['stepping_seconds'], s['inspecting_seconds'], v['kernel_seconds'], v['first_step_seconds']), 'L2', d.get('l2_error'))" 2>&1
}
for round in 1 2; do for bin in old new; do
  DG=$OLD; [ $bin = new ] && DG=$NEW
  for p in f32 f64; do for tend in 2e-3 1e-2; do
    o="$R/$bin-$round-maxwell-$p-$tend"
    timeout 120 "$DG" run maxwell-cavity --order 8 --nx 244 --t-end $tend --precision $p --device cuda:0 --json > $o.json 2> $o.err
    split "$bin r$round maxwell N=8 $p t_end=$tend rc $?:" $o.json
  done; done
  [ $round = 1 ] || continue
  for p in f32 f64; do
    cache=$(mktemp -d)
    for run in cold warm1 warm2; do
      o="$R/$bin-startup-$p-$run"; t0=$(date +%s.%N)
      DG_CACHE_DIR=$cache timeout 60 "$DG" run maxwell-cavity --order 4 --nx 600 --precision $p --t-end 1e-5 --device cuda:0 --json > $o.json 2> $o.err
      t1=$(date +%s.%N)
      python3 -c "
import json;d=json.load(open('$o.json'));m=d.get('startup',[])
print('$bin startup $p $run: %.3f s' % m[-1]['seconds'], '(process %.2f s)' % ($t1-$t0), 'L2', d.get('l2_error'))" 2>&1 || tail -2 $o.err
    done
  done
  o="$R/$bin-acoustic"; timeout 120 "$DG" run acoustic-cube --order 7 --nx 16 --scheme ab3 --precision f32 --t-end 0.01 --device cuda:0 --json > $o.json 2> $o.err
  split "$bin acoustic-cube N=7 nx=16 f32 rc $?:" $o.json
  o="$R/$bin-hex"; timeout 120 "$DG" run maxwell3d-cavity --order 4 --nx 32 --precision f32 --t-end 0.01 --device cuda:0 --json > $o.json 2> $o.err
  split "$bin maxwell3d-cavity N=4 nx=32 f32 rc $?:" $o.json
  o="$R/$bin-unstable"; timeout 60 "$DG" run maxwell-cavity --order 4 --nx 8 --cfl 2 --allow-unstable --device cuda:0 > $o.txt 2>&1
  echo "$bin unstable rc $?: $(grep -o 'error: .*' $o.txt | cut -c1-160)"
done; done
timeout 300 "$NEW" verify maxwell2d --order 8 --precision both --device cuda:0 > "$R/verify.txt" 2>&1
echo "verify rc $?: $(tail -1 "$R/verify.txt")"; grep -c FAILED "$R/verify.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
