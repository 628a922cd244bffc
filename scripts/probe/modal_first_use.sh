#!/bin/bash
# A modal run tuning on first use on a CUDA device: the vortex at p = 4 with HLL's flux (no shipped entry), empty cache,
# the previous and the new binary, and the HLLC winner given with --variant for reference.
# Carry gpu/greedy.tar.xz holding dg_old and dg_new; OUT=dir bash scripts/probe/modal_first_use.sh
set -u
cd gpu && tar -xJf greedy.tar.xz && cd ..   # dg_old, dg_new
date -u +%FT%TZ
run() { # bin precision tag [variant]
  local extra=""; [ -n "${4:-}" ] && extra="--variant $4"
  DG_CACHE_DIR=$(mktemp -d) gpu/$1 run euler-isentropic-vortex --order 4 --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.025 --precision $2 --flux hll_flux --device cuda:0 $extra --json > $OUT/$3-$2.json 2> $OUT/$3-$2.err
  python3 -c "
import json; d=json.load(open('$OUT/$3-$2.json')); p=d['order']; pts=d['elements']*(p+1)*(p+2)//2
c=d['device'].get('choice') or {}
print('$3 $2', round(pts*d['rhs_evaluations']/d['wall_seconds']/1e9,2), 'Gpts/s', d['density_l2_error'], c.get('source',''), c.get('variant',''), round(c.get('seconds',0),1), 's choice')" 2>/dev/null || { echo "$3 $2 FAILED"; tail -3 $OUT/$3-$2.err; }
}
for pr in f64 f32; do
  run dg_old $pr old-first-use
  run dg_new $pr new-first-use
  run dg_new $pr edge-flux-wg128 modal/wg128/edge-flux/const/mode-major/$pr
done
