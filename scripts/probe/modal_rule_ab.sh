#!/bin/bash
# A/B of the modal volume rule: the new binary (symmetric rules) re-tunes hllc p = 1..4 and runs the vortex; the
# previous binary ($PREV, default gpu/dg_store: collapsed rules) runs the vortex with the winners tuned for it
# (tuning-db/ of the working tree).
set -u
R=$(mktemp -d); mkdir -p $R/new $R/prev
OUT=$R/new DG=gpu/dg MODAL_FLUXES=hllc_flux MODAL_ORDERS=1..4 SECTIONS="modaltune euler modalbench" bash scripts/gpu_speed.sh 2>&1 | grep -v "^rc\|^[0-9]*$"
for P in f32 f64; do for p in 1 2 3 4; do
  ${PREV:-gpu/dg_store} run euler-isentropic-vortex --order $p --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.025 --precision $P --device cuda:0 --db tuning-db --json > $R/prev/iv-$P-$p.json 2> $R/prev/iv-$P-$p.err
  python3 -c "
import json; d=json.load(open('$R/prev/iv-$P-$p.json')); p=d['order']; pts=d['elements']*(p+1)*(p+2)//2
print('prev iv p=$p $P', round(pts*d['rhs_evaluations']/d['wall_seconds']/1e9,2), 'Gpts/s', d['density_l2_error'], d['device']['choice']['variant'])"
done; done
tar czf $OUT/res.tgz -C $R .
