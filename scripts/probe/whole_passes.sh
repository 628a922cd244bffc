#!/usr/bin/env bash
# The whole-element mirror tiles in several passes per group (the folded operator copied to local memory once for
# them, a later pass's first loads issued during the lift of the pass before), on the H100: `dg bench maxwell2d
# --variant` at 16M DOF (each process verifies first). Nsight Compute (scripts/probe/mirror_pipes.sh) found these
# kernels waiting on global loads (long scoreboard) at 25–39 % theoretical occupancy.
# usage: EXP=path/to/dg OUT=dir bash scripts/probe/whole_passes.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
. "$(dirname "$0")/bench_variant_lib.sh"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
M=matrix-local/merged/tiled
for job in "7 whole5b5/wg32 f32" "7 whole5/wg32 f32" "8 balanced4/wg32 f32" "8 balanced7/wg16 f64" "6 whole4/wg32 f32"; do
  set -- $job; o=$1; v=$2; p=$3
  for s in 1 2 3 4 8; do
    b $o $v/seq$s/$M/$p/mixed
  done
done | tee "$R/passes.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
