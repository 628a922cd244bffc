#!/usr/bin/env bash
# the HDG device path with (dg) and without (dg-old) the refinement step of the uncondensed system, same instance
set -u
tar -C gpu -xJf gpu/hdg-bins.tar.xz
mkdir -p $OUT/new $OUT/old
start=$(date +%s)
DG=gpu/dg OUT=$OUT/new bash scripts/gpu_hdg.sh breakdown > $OUT/new/log.txt 2>&1
echo "new breakdown $(( $(date +%s) - start )) s"
DG=gpu/dg OUT=$OUT/new bash scripts/gpu_hdg.sh table1 >> $OUT/new/log.txt 2>&1
echo "new table1 $(( $(date +%s) - start )) s"
DG=gpu/dg-old OUT=$OUT/old bash scripts/gpu_hdg.sh table1 > $OUT/old/log.txt 2>&1
for n in 40 320; do for p in 1 3 5 7 9; do
  rm -rf /tmp/dg-hdg-cache/tuning
  timeout 120 gpu/dg-old run helmholtz-square --device cuda:0 --order $p --nx $n --json > $OUT/old/gpu-n$n-p$p.json 2> $OUT/old/gpu-n$n-p$p.err
done; done
echo "old $(( $(date +%s) - start )) s"
for d in new old; do
python3 - "$OUT/$d" <<'PY'
import json,sys,glob,os
d=sys.argv[1]
for f in sorted(glob.glob(d+'/gpu-n*.json')):
    try: r=json.load(open(f))
    except Exception as e: print(f, 'bad', e); continue
    dr=r.get('device_run') or {}
    k=dr.get('kernel_seconds',{})
    print(os.path.basename(d), os.path.basename(f)[4:-5], 'L2 %.4e Linf %.4e'%(r['l2_error'],r['max_error']), 'total %.3f'%r['total_seconds'],
          'kern l/a/s/r %.4f %.4f %.4f %.4f'%(k.get('local',0),k.get('assembly',0),k.get('solve',0),k.get('recovery',0)),
          'it', dr.get('iterations'), 'ref_it', dr.get('refinement_iterations'), 'ref_s', dr.get('refinement_seconds'), 'rec_wall %.4f'%r['seconds']['recovery'])
PY
done
tar -C $OUT -czf $OUT/hdg-refine.tar.gz new old && rm -rf $OUT/new $OUT/old
