#!/bin/bash
# The modal mma surface on a CUDA device: verification of every mma variant at p = 1..4 (f64), a planted bug, and
# the vortex run (720,000 triangles, RK4, fixed dt) with each mma variant against the shipped winners.
# DG=gpu/dg OUT=dir bash scripts/probe/modal_mma_probe.sh (VERIFY_ORDERS= to skip verification, ORDERS="3 4" for some orders)
set -u
DG=${DG:-gpu/dg}
R=$(mktemp -d)
MMA="modal/wg64/mma/const/mode-major/f64 modal/wg128/mma/const/mode-major/f64 modal/wg256/mma/const/mode-major/f64"
for p in ${VERIFY_ORDERS-1 2 3 4}; do
  for v in $MMA; do
    $DG verify euler2d --formulation modal-tri --order $p --precision f64 --flux hllc_flux --variant $v --device cuda:0 > $R/verify-$p-$(echo $v | tr / _).txt 2>&1
    echo "verify p=$p $v rc=$? $(grep -E 'f64 [0-9.e+-]+$|FAIL|rejected|error' $R/verify-$p-$(echo $v | tr / _).txt | head -2 | tr '\n' ' ')"
  done
done
[ -n "${VERIFY_ORDERS-x}" ] && { $DG verify euler2d --formulation modal-tri --order 3 --precision f64 --flux hllc_flux --variant modal/wg128/mma/const/mode-major/f64 --device cuda:0 --plant-bug skip-last-group > $R/planted.txt 2>&1
echo "planted skip-last-group rc=$? (must be non-zero): $(tail -1 $R/planted.txt)"; }
vortex() { # p variant tag
  $DG run euler-isentropic-vortex --order $1 --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.025 --precision f64 --device cuda:0 --variant $2 --json > $R/iv-$1-$3.json 2> $R/iv-$1-$3.err
  python3 -c "
import json; d=json.load(open('$R/iv-$1-$3.json')); p=d['order']; pts=d['elements']*(p+1)*(p+2)//2
print('iv p=$1 $3', round(pts*d['rhs_evaluations']/d['wall_seconds']/1e9,2), 'Gpts/s', d['density_l2_error'], '$2')" 2>/dev/null || { echo "iv p=$1 $3 FAILED"; tail -3 $R/iv-$1-$3.err; }
}
declare -A WIN=([1]=modal/wg128/element/const/mode-major/f64 [2]=modal/wg64/element-regs/const/mode-major/f64 [3]=modal/wg128/element/shared/mode-major/f64 [4]=modal/wg256/element-regs/shared/mode-major/f64)
for p in ${ORDERS:-1 2 3 4}; do
  vortex $p ${WIN[$p]} shipped
  for v in $MMA; do vortex $p $v $(echo $v | cut -d/ -f2,4 | tr / -); done
done
tar czf ${OUT:-.}/mma.tgz -C $R .
