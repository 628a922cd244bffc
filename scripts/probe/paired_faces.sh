#!/usr/bin/env bash
# The faces-ahead mirror tiles forming both jumps of a face pair in one work item, which stores their sum and
# difference for the lift (DG_MIRROR_PAIRED=1, an experimental binary), against the same kernels without, on the
# H100: `dg bench --variant` at 16M DOF (each process verifies first), alternating, twice.
# usage: EXP=path/to/experimental/dg OUT=dir bash scripts/probe/paired_faces.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
. "$(dirname "$0")/bench_variant_lib.sh"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
M=matrix-local/merged/tiled
for pass in 1 2; do
  for job in "5 whole3/wg32 f32/mixed" "6 whole4/wg32 f32/mixed" "7 whole5/wg32 f32/mixed" "8 whole7/wg32 f32/mixed" \
    "5..6 whole4/wg16 f64/mixed" "7 ahead4/wg32 f64/mixed" "8 whole7/wg16 f64/mixed"; do
    set -- $job
    b $1 $2/seq1/$M/$3 X=0
    b $1 $2/seq1/$M/$3 DG_MIRROR_PAIRED=1
  done
done | tee "$R/paired.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
