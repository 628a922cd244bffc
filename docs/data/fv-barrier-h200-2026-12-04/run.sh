#!/usr/bin/env bash
# The finite volumes' line sweep without a return before its barrier, and the modal rule for fluxes that are not
# conservative, on the GPU (one call; builds nothing). gpu/fix.tar.xz holds `dg` (this change) and `dg-old` (the
# commit before it). Writes logs under $OUT/logs (packed into $OUT/logs.tgz) and the tuned database under $OUT/db.
# usage (device machine, repository root): OUT=dir bash docs/data/fv-barrier-h200-2026-12-04/run.sh
set -u
OUT=${OUT:?}; L=$OUT/logs; mkdir -p $L $OUT/db
tar -C gpu/fix -xJf gpu/fix.tar.xz
DG=gpu/fix/dg; OLD=gpu/fix/dg-old
export DG_CACHE_DIR=$OUT/cache
T0=$(date +%s); left() { echo $((570 - ($(date +%s) - T0))); }
step() { # name command…
  local name=$1; shift; local t=$(date +%s)
  timeout $(left) "$@" > $L/$name.txt 2>&1; local rc=$?
  printf '%-28s rc %3d %4d s  %s\n' "$name" $rc $(( $(date +%s) - t )) "$(tail -n 1 $L/$name.txt | cut -c1-110)"
}
nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader | tee $L/gpu.txt; date -u | tee -a $L/gpu.txt
S="compute-sanitizer --error-exitcode 9"
# the commit before: the strided line sweep (one variable) under memcheck, and every fv variant of advection2d
step old-memcheck $S --tool memcheck $OLD verify advection2d --formulation fv --order 1..2 --precision f64 --device cuda:0 --variant fv/strided/once/w64/f64
step old-verify-adv $OLD verify advection2d --formulation fv --order 1..2 --precision both --device cuda:0
# this change
for law in advection2d burgers2d mhd2d euler2d; do
  step verify-fv-$law $DG verify $law --formulation fv --order 1..2 --precision both --device cuda:0
done
step memcheck-fv $S --tool memcheck $DG verify advection2d --formulation fv --order 1..2 --precision f64 --device cuda:0 --variant fv/strided/once/w64/f64
step racecheck-fv $S --tool racecheck $DG verify advection2d --formulation fv --order 2 --precision f64 --device cuda:0 --variant fv/strided/once/w128/f64
step verify-modal-acoustics $DG verify acoustics2d --formulation modal-tri --order 1..4 --precision both --device cuda:0
step variants-modal-acoustics $DG variants acoustics2d --formulation modal-tri --order 3 --precision f64
# mhd2d's finite-volume entries, tuned again (their line kernels changed)
cp tuning-db/cuda-nvidia-h200-sm-90.json $OUT/db/
step tune-fv $DG --db $OUT/db autotune mhd2d --formulation fv --orders 1..2 --precision both --device cuda:0
step bench-fv $DG --db $OUT/db bench mhd2d --formulation fv --orders 1..2 --precision both --device cuda:0
# issue 14's first point, re-timed (nodal kernels unchanged by this change)
step bench-maxwell $DG bench maxwell2d --orders 1..8 --precision both --device cuda:0
tar -czf $OUT/logs.tgz -C $OUT logs && rm -rf $L $OUT/cache
echo "done in $(( $(date +%s) - T0 )) s"
