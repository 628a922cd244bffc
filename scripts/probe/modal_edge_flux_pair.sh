#!/bin/bash
# The modal edge-flux-pair surface on a CUDA device (issue 14): the issue's vortex run (720,000 triangles, RK4, fixed dt,
# 500 steps, HLLC) with edge-flux-pair variants against the edge-flux one and the previous binary's shipped winner;
# `dg verify` of edge-flux-pair variants and a planted bug; with `tune`, HLLC's entries at p = 1..4 in both precisions
# re-tuned (exhaustive, every candidate verified first) into a copy of tuning-db/ ($OUT/tuning-db), and the vortex
# runs of part `final` take their winners from it.
# DG=gpu/dg DG_OLD=<previous binary> OUT=dir PARTS="explore verify tune final" bash scripts/probe/modal_edge_flux_pair.sh
#   (ORDERS="3 4", PRECISIONS="f64", TUNE_ORDERS=1..4, TUNE_PRECISION=both)
set -u
DG=${DG:-gpu/dg}
PARTS=${PARTS:-"explore verify"}
on() { [[ " $PARTS " == *" $1 "* ]]; }
R=$(mktemp -d)
export DG_CACHE_DIR=$R/cache
date -u +%FT%TZ | tee $R/date
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
source "$(dirname "$0")/vortex_run.sh"
if on verify; then
  for pr in ${PRECISIONS:-f64 f32}; do for p in ${ORDERS:-1 2 3 4}; do
    for v in modal/wg128/edge-flux-pair/const/mode-major/$pr modal/wg64/edge-flux-pair/shared/elem-major/$pr; do
      f=$R/verify-$p-$(echo $v | tr / _).txt
      $DG verify euler2d --formulation modal-tri --order $p --flux hllc_flux --variant $v --device cuda:0 > $f 2>&1
      echo "verify p=$p $v rc=$? $(grep -E 'FAIL|error' $f | head -2 | tr '\n' ' ')"
    done
  done; done
  $DG verify euler2d --formulation modal-tri --order 3 --precision f64 --flux hllc_flux --variant modal/wg128/edge-flux-pair/const/mode-major/f64 --device cuda:0 --plant-bug skip-last-group > $R/planted.txt 2>&1
  echo "planted skip-last-group rc=$? (must be non-zero): $(tail -1 $R/planted.txt)"
fi
if on explore; then
  for pr in ${PRECISIONS:-f64 f32}; do for p in ${ORDERS:-1 2 3 4}; do
    [ -n "${DG_OLD:-}" ] && BIN=$DG_OLD vortex $p $pr old-db
    vortex $p $pr ef128 modal/wg128/edge-flux/const/mode-major/$pr
    for g in 64 128 256; do vortex $p $pr pr$g modal/wg$g/edge-flux-pair/const/mode-major/$pr; done
    vortex $p $pr pr128s modal/wg128/edge-flux-pair/shared/mode-major/$pr
  done; done
fi
if on tune; then
  cp -r tuning-db $R/tuning-db
  DG_CACHE_DIR=$(mktemp -d) $DG autotune euler2d --formulation modal-tri --flux hllc_flux --orders ${TUNE_ORDERS:-1..4} --precision ${TUNE_PRECISION:-both} --device cuda:0 --db $R/tuning-db > $R/tune.txt 2> $R/tune.err
  echo "tune rc=$?"; grep -E "winner|faster|speed-up" $R/tune.txt
  mkdir -p $R/cache/tuning; cp $R/tuning-db/*.json $R/cache/tuning/; cp -r $R/tuning-db ${OUT:-.}/tuning-db
fi
if on final; then
  for pr in ${PRECISIONS:-f64 f32}; do for p in ${ORDERS:-1 2 3 4}; do
    [ -n "${DG_OLD:-}" ] && BIN=$DG_OLD vortex $p $pr old-db
    vortex $p $pr db
  done; done
fi
tar czf ${OUT:-.}/pair.tgz -C $R .
