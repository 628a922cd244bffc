#!/usr/bin/env bash
# Finite volumes on a device, old and new binary: a run that leaves the admissible set (its last good state, kept in
# a device buffer by the new binary, against a checkpoint of the same run at that step, bit for bit; f32 and f64,
# 16² and 200² cells, --cfl 1.5 and 1.8), then Orszag–Tang on 4096² cells to t = 0.05 (20 divergence samples, the
# last good state kept after steps 1, 2, 4 … 32) with both binaries, twice. Results in $OUT/r, packed as
# $OUT/r.tar.xz. usage: DG=path/to/new/dg DG_OLD=path/to/old/dg OUT=dir bash scripts/probe/fv_keep_ab.sh
set -u
DG=${DG:?}; DG_OLD=${DG_OLD:?}; R=$OUT/r; mkdir -p "$R"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv,noheader
date -u +%FT%TZ | tee -a "$R/date"
here=$PWD
for P in f32 f64; do for nx in 16 200; do for cfl in 1.5 1.8; do for tend in 0.5 10; do
  d=$(mktemp -d); cd $d
  B="$here/$DG run mhd-orszag-tang --nx $nx --t-end $tend --cfl $cfl --allow-unstable --precision $P --device cuda:0"
  $B --out ot.vtu 2> stop.err; rc=$?
  step=$(python3 -c "
import json,struct
d=open('ot-last-good.restart','rb').read(); n=struct.unpack_from('<Q',d,15)[0]; print(json.loads(d[23:23+n])['position']['step'])" 2>/dev/null)
  $B --checkpoint-every ${step:-1} --checkpoint c.restart 2> /dev/null
  echo "fv stop $P nx $nx cfl $cfl t $tend: rc $rc, $(grep -o 'stopped at step [0-9]*' stop.err), $(python3 $here/scripts/probe/restart_same.py ot-last-good.restart c.restart 2>&1)"
  cp stop.err $R/fv-stop-$P-$nx-$cfl-$tend.err; cd $here
done; done; done; done
for i in 1 2; do for P in f32 f64; do for b in old new; do
  bin=$DG; [ $b = old ] && bin=$DG_OLD
  o="$R/fv-4096-$P-$b-$i"
  timeout 90 $bin run mhd-orszag-tang --nx 4096 --order 2 --t-end 0.05 --precision $P --device cuda:0 --json > $o.json 2> $o.err
  python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('fv 4096 $P $b $i: steps', d['steps'], 'wall %.3f s' % d['wall_seconds'], 'kernels %.3f s' % v['kernel_seconds'], 'per step %.3f ms' % (1e3*v['seconds_per_step']), 'samples', len(d['divergence']), 'last', d['divergence'][-1], 'density', d['density_range'])" || tail -2 $o.err
done; done; done
date -u +%FT%TZ | tee -a "$R/date"
tar -C "$OUT" -cJf "$OUT/r.tar.xz" r && rm -rf "$R"
