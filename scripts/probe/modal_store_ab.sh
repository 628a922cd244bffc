#!/bin/bash
# A/B of the modal update store: new binary re-tunes hllc p=1..4 and runs the vortex; the previous binary's vortex
# with its shipped winners; ncu per-kernel durations of the new loop (p = 1, 2 f64, p = 2 f32)
set -u
R=$(mktemp -d); mkdir -p $R/new $R/prev $R/prof
OUT=$R/new DG=gpu/dg MODAL_FLUXES=hllc_flux MODAL_ORDERS=1..4 SECTIONS="modaltune euler modalbench" bash scripts/gpu_speed.sh 2>&1 | grep -v "^rc\|^[0-9]*$"
OUT=$R/prev DG=gpu/dg_prev SECTIONS=euler bash scripts/gpu_speed.sh 2>&1 | grep "^iv"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
for pp in "1 f64" "2 f32" "2 f64" "4 f64"; do set -- $pp
  timeout 60 ncu --clock-control none --csv --metrics $M --launch-skip 120 --launch-count 10 gpu/dg run euler-isentropic-vortex --order $1 --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.0025 --precision $2 --device cuda:0 --db $R/new/tuning-db > $R/prof/loop-$1-$2.csv 2>/dev/null
  python3 - $R/prof/loop-$1-$2.csv <<'PY'
import csv,sys
rows=list(csv.reader([l for l in open(sys.argv[1]) if l.startswith('"')]))
h=rows[0]; ix={k:i for i,k in enumerate(h)}
print(sys.argv[1].split('/')[-1], ' '.join(r[ix['Kernel Name']][:14]+':'+r[ix['Metric Value']] for r in rows[1:] if r[ix['Metric Name']]=='gpu__time_duration.sum'))
PY
done
tar czf $OUT/res.tgz -C $R .
