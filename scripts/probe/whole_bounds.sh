#!/usr/bin/env bash
# `whole<t>` under `__launch_bounds__(threads, G)` (DG_MIRROR_MIN_GROUPS=G, an experimental binary,
# scripts/probe/whole_bounds_exp.patch) at the orders that miss 60 % of roofline, on the H100: `dg bench --variant`
# at 16M DOF (each process verifies first), G = 0 (no bounds) first.
# (As run on 2026-12-06 each line named the bound as `G=…`; the shared helper now prints `[DG_MIRROR_MIN_GROUPS=…]`.)
# usage: EXP=path/to/experimental/dg OUT=dir bash scripts/probe/whole_bounds.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
. "$(dirname "$0")/bench_variant_lib.sh"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
M=matrix-local/merged/tiled
for job in "7 whole5/wg32 f32/mixed 0 4 5 6" "8 whole7/wg32 f32/mixed 0 3 4" "8 whole7/wg16 f64/mixed 0 3 4" \
  "8 whole4/wg16 f64/mixed 0 4 5" "7 whole4/wg32 f32/mixed 0 5 6"; do
  set -- $job; o=$1; v=$2/seq1/$M/$3; shift 3
  for g in "$@"; do
    b $o $v DG_MIRROR_MIN_GROUPS=$g
  done
done | tee "$R/bounds.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
