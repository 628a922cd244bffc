#!/bin/bash
# The modal edge-flux surface on a CUDA device: `dg verify` of its variants at p = 1..4 (f32 and f64, HLLC), a planted
# bug, and the issue's vortex run (720,000 triangles, RK4, fixed dt, 500 steps) with each mode-major edge-flux variant
# against the database's winner (no --variant), f64 and f32; with `tune` first, HLLC's entries at p = 1..4 in both
# precisions are re-tuned (exhaustive, every candidate verified first) into a copy of tuning-db/ ($OUT/tuning-db) and
# the vortex runs take their winners from it.
# DG_OLD=<previous binary>: its vortex runs (its shipped winners) alternate with the new ones.
# DG=gpu/dg OUT=dir bash scripts/probe/modal_edge_flux.sh   (PARTS="tune verify vortex", ORDERS="3 4", PRECISIONS="f64")
set -u
DG=${DG:-gpu/dg}
PARTS=${PARTS:-"verify vortex"}
on() { [[ " $PARTS " == *" $1 "* ]]; }
R=$(mktemp -d)
export DG_CACHE_DIR=$R/cache
date -u +%FT%TZ | tee $R/date
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
if on tune; then
  cp -r tuning-db $R/tuning-db
  DG_CACHE_DIR=$(mktemp -d) $DG autotune euler2d --formulation modal-tri --flux hllc_flux --orders 1..4 --precision both --device cuda:0 --db $R/tuning-db > $R/tune.txt 2> $R/tune.err
  echo "tune rc=$?"; grep -E "winner|faster|speed-up" $R/tune.txt
  mkdir -p $R/cache/tuning; cp $R/tuning-db/*.json $R/cache/tuning/; cp -r $R/tuning-db ${OUT:-.}/tuning-db
fi
EF() { for g in 64 128 256; do for t in const shared; do echo modal/wg$g/edge-flux/$t/mode-major/$1; done; done; }
if on verify; then
  for pr in ${PRECISIONS:-f64 f32}; do for p in ${ORDERS:-1 2 3 4}; do for v in $(EF $pr) modal/wg128/edge-flux/const/elem-major/$pr; do
    f=$R/verify-$p-$(echo $v | tr / _).txt
    $DG verify euler2d --formulation modal-tri --order $p --flux hllc_flux --variant $v --device cuda:0 > $f 2>&1
    echo "verify p=$p $v rc=$? $(grep -E 'FAIL|error' $f | head -2 | tr '\n' ' ')"
  done; done; done
  $DG verify euler2d --formulation modal-tri --order 3 --precision f64 --flux hllc_flux --variant modal/wg128/edge-flux/const/mode-major/f64 --device cuda:0 --plant-bug skip-last-group > $R/planted.txt 2>&1
  echo "planted skip-last-group rc=$? (must be non-zero): $(tail -1 $R/planted.txt)"
fi
source "$(dirname "$0")/vortex_run.sh"
if on vortex; then
  for pr in ${PRECISIONS:-f64 f32}; do for p in ${ORDERS:-1 2 3 4}; do
    [ -n "${DG_OLD:-}" ] && BIN=$DG_OLD vortex $p $pr old-db
    vortex $p $pr db
    vortex $p $pr ef128 modal/wg128/edge-flux/const/mode-major/$pr
    [ -n "${ALL:-}" ] && for v in $(EF $pr); do vortex $p $pr $(echo $v | cut -d/ -f2,4 | tr / -) $v; done
  done; done
fi
tar czf ${OUT:-.}/edgeflux.tgz -C $R .
