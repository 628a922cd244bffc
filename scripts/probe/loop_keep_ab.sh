#!/usr/bin/env bash
# The time loop's first last-good copy made before the loop's clock starts (no saved copy of the whole state
# dropped inside the loop), old and new binary alternating on one device: the isentropic vortex (720,000
# triangles, RK4, fixed dt, 500 steps) at p = 4 f64 three times each, then the new binary at p = 1..4 in both
# precisions; the start-up of the 720,000-triangle Maxwell run with the new binary (warm cache); the tetrahedra at
# N = 7 f32 per kernel; Orszag–Tang on 4096² cells to t = 0.05 with both binaries (the new one keeps its last good
# states in device slots instead of reading them back). Every run uses the compiled-in tuning entries. Results in
# $OUT/r, packed as $OUT/r.tar.xz.
# usage: DG=path/to/new/dg DG_OLD=path/to/old/dg OUT=dir bash scripts/probe/loop_keep_ab.sh
set -u
DG=${DG:?}; DG_OLD=${DG_OLD:?}; R=$OUT/r; mkdir -p "$R"; DEADLINE=${DEADLINE:-540}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv,noheader
date -u +%FT%TZ | tee -a "$R/date"
source scripts/probe/vortex_run.sh
left() { echo $(( DEADLINE - SECONDS )); }
split() { python3 -c "
import json; d=json.load(open('$R/iv-$1-$2-$3.json')); s=d['device']['loop_split']
print('   wall %.4f s, kernels %.4f s, saving %.4f s, inspecting %.4f s' % (d['wall_seconds'], d['device']['kernel_seconds'], s['saving_seconds'], s['inspecting_seconds']))" 2>/dev/null; }
for i in 1 2 3; do
  BIN=$DG_OLD vortex 4 f64 old$i; split f64 4 old$i
  BIN=$DG vortex 4 f64 new$i; split f64 4 new$i
done
for P in f32 f64; do for p in 1 2 3 4; do
  [ "$(left)" -gt 60 ] || { echo "iv $P p=$p: skipped"; continue; }
  BIN=$DG vortex $p $P all; split $P $p all
done; done
BIN=$DG_OLD vortex 4 f32 old; split f32 4 old
# a finite-volume run that leaves the admissible set: its last good state (kept in device slots by the new binary)
# against a checkpoint of the same run at that step, bit for bit
here=$PWD
for P in f32 f64; do for nx in 16 200; do
  d=$(mktemp -d); cd $d
  B="$here/$DG run mhd-orszag-tang --nx $nx --t-end 0.5 --cfl 1.5 --allow-unstable --precision $P --device cuda:0"
  $B --out ot.vtu 2> stop.err; rc=$?
  step=$(python3 -c "
import json,struct
d=open('ot-last-good.restart','rb').read(); n=struct.unpack_from('<Q',d,15)[0]; print(json.loads(d[23:23+n])['position']['step'])" 2>/dev/null)
  $B --checkpoint-every ${step:-1} --checkpoint c.restart 2> /dev/null
  echo "fv stop $P nx $nx: rc $rc, $(grep -o 'stopped at step [0-9]*' stop.err), $(python3 $here/scripts/probe/restart_same.py ot-last-good.restart c.restart 2>&1)"
  cp stop.err $R/fv-stop-$P-$nx.err; cd $here
done; done
for P in f32 f64; do for b in old new; do
  [ "$(left)" -gt 60 ] || { echo "fv $P $b: skipped"; continue; }
  bin=$DG; [ $b = old ] && bin=$DG_OLD
  o="$R/fv-4096-$P-$b"
  timeout 60 $bin run mhd-orszag-tang --nx 4096 --order 2 --t-end 0.05 --precision $P --device cuda:0 --json > $o.json 2> $o.err
  python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('fv 4096 $P $b: steps', d['steps'], 'wall %.3f s' % d['wall_seconds'], 'kernels %.3f s' % v['kernel_seconds'], 'per step %.3f ms' % (1e3*v['seconds_per_step']), 'density', d['density_range'])" || tail -2 $o.err
done; done
cache=$(mktemp -d)
for run in cold warm1 warm2 warm3; do
  [ "$(left)" -gt 40 ] || { echo "startup $run: skipped"; continue; }
  o="$R/startup-f32-$run"
  DG_CACHE_DIR=$cache timeout 60 "$DG" run maxwell-cavity --order 4 --nx 600 --precision f32 --t-end 1e-5 --device cuda:0 --json > $o.json 2> $o.err
  python3 -c "
import json;d=json.load(open('$o.json'));m=d.get('startup',[])
print('startup f32 $run: %.3f s' % m[-1]['seconds'], d['device']['choice']['source'])" || tail -2 $o.err
done
for law in acoustics3d elastic3d; do
  l=$(left); [ "$l" -gt 30 ] || { echo "tet $law: skipped"; continue; }
  timeout "$l" "$DG" bench $law --per-kernel --orders 7 --precision f32 --device cuda:0 > $R/tet-$law.txt 2> $R/tet-$law.err
  echo "tet $law rc $?"; grep -vE "^ +f32 m" $R/tet-$law.txt | head -30 | cut -c1-220
done
date -u +%FT%TZ | tee -a "$R/date"
tar -C "$OUT" -cJf "$OUT/r.tar.xz" r && rm -rf "$R"
