#!/usr/bin/env bash
# `balanced<t>` (`whole<t>` with the folded rows shared out evenly: each work item an equal share of the pairs, both
# rows, and of the fixed nodes, their symmetric rows alone) against `whole<t>` at the orders that missed 60 % of
# roofline, on the H100: `dg bench maxwell2d --variant` at 16M DOF (each process verifies first), the shipped
# list's winners first, then balanced work item counts with and without launch bounds (SWEEP=first), or more
# launch bounds and group sizes (SWEEP=bounds). Each job line: ORDER GROUP PRECISION PARTITION…
# usage: [SWEEP=first|bounds] EXP=path/to/dg OUT=dir bash scripts/probe/balanced_rows.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
. "$(dirname "$0")/bench_variant_lib.sh"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
FIRST="6 wg32 f32 whole4 balanced4 balanced4b6 balanced4b8 balanced3
7 wg32 f32 whole5 whole5b5 balanced4 balanced4b6 balanced4b8 balanced3 balanced7
8 wg32 f32 whole7 balanced5 balanced5b5 balanced5b6 balanced4 balanced7 balanced3
6 wg16 f64 whole4 balanced4 balanced3 balanced4b8
7 wg16 f64 whole4 balanced4 balanced3 balanced4b8
8 wg16 f64 whole7 balanced5 balanced4 balanced7 balanced5b8"
BOUNDS="7 wg32 f32 whole5b5 balanced4b5 balanced4b7 whole4b5 whole4b6
7 wg16 f32 whole5b10 balanced4b10 balanced4b12
8 wg32 f32 balanced4 balanced4b5 balanced4b6 balanced7b3 balanced7b4
8 wg16 f64 balanced7 balanced7b4 balanced7b5
8 wg32 f64 balanced7 balanced5"
JOBS=$FIRST; [ "${SWEEP:-first}" = bounds ] && JOBS=$BOUNDS
echo "$JOBS" | bench_jobs | tee "$R/balanced-${SWEEP:-first}.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
