#!/usr/bin/env bash
# The whole-element mirror tiles with the group D groups ahead prefetched into the L2 cache (`…p<D>`, a SPEC suffix
# that scripts/probe/prefetch_l2.patch adds; it applies to ca8ec85; measured slower, not kept) against the same tiles
# without, at the orders that missed 60 % of roofline, on the H100: `dg bench maxwell2d --variant` at 16M DOF (each
# process verifies first). Each job line: ORDER GROUP PRECISION PARTITION…
# usage: [JOBS=…] EXP=path/to/dg-with-the-patch OUT=dir bash scripts/probe/prefetch_l2.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
. "$(dirname "$0")/bench_variant_lib.sh"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
FIRST="7 wg32 f32 whole5b5 whole5b5p330 whole5b5p660 whole5b5p1320
8 wg32 f32 balanced4 balanced4p264 balanced4p528 balanced4p1056
8 wg16 f64 balanced7 balanced7p528 balanced7p1056 balanced7p2112
6 wg32 f32 whole4 whole4p660
7 wg16 f64 balanced4 balanced4p1056
7 wg32 f32 whole5b5 whole5b5p660"
echo "${JOBS:-$FIRST}" | bench_jobs | tee "$R/prefetch.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
