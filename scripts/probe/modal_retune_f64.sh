#!/bin/bash
# The f64 modal hllc entries re-tuned (p = 1..4) into a copy of tuning-db/, then the vortex run with them.
# DG=gpu/dg OUT=dir bash scripts/probe/modal_retune_f64.sh
set -u
DG=${DG:-gpu/dg}
R=$(mktemp -d); cp -r tuning-db $R/tuning-db; date -u +%FT%TZ > $R/date
DG_CACHE_DIR=$(mktemp -d) timeout ${TUNE_LIMIT:-220} $DG autotune euler2d --formulation modal-tri --flux hllc_flux --orders ${ORDERS:-1..4} --precision f64 --device cuda:0 --db $R/tuning-db > $R/modaltune.txt 2> $R/modaltune.err
echo "tune rc $?"; grep -E "winner|faster" $R/modaltune.txt
mkdir -p $R/cache/tuning; cp $R/tuning-db/*.json $R/cache/tuning/
for p in 1 2 3 4; do
  DG_CACHE_DIR=$R/cache $DG run euler-isentropic-vortex --order $p --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.025 --precision f64 --device cuda:0 --json > $R/iv-f64-$p.json 2> $R/iv-f64-$p.err
  python3 -c "
import json; d=json.load(open('$R/iv-f64-$p.json')); p=d['order']; pts=d['elements']*(p+1)*(p+2)//2
print('iv p=$p f64', round(pts*d['rhs_evaluations']/d['wall_seconds']/1e9,2), 'Gpts/s', d['density_l2_error'], d['device']['choice'])" || tail -2 $R/iv-f64-$p.err
done
tar czf ${OUT:-.}/retune.tgz -C $R .
