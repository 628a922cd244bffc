#!/usr/bin/env bash
# `segregated<t>` (`whole<t>` with the pairs' rows on t − 1 work items and the fixed nodes' symmetric rows on the last,
# which forms and reads no antisymmetric input) against the winners of the tuning with `balanced<t>`, on the H100:
# `dg bench maxwell2d --variant` at 16M DOF (each process verifies first), with and without launch bounds. The first
# run (2026-12-06 08:52 UTC) branched on the work item's class inside each column of the unrolled loops; the second
# (JOBS as in docs/performance.md) with the branch outside the column loops, each class's loops written out whole.
# usage: [JOBS="ORDER GROUP PRECISION PARTITION…" lines] EXP=path/to/dg OUT=dir bash scripts/probe/segregated_rows.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
. "$(dirname "$0")/bench_variant_lib.sh"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
echo "${JOBS:-4 wg32 f32 balanced3 segregated3 segregated4
5 wg32 f32 balanced3 segregated4 segregated3
6 wg32 f32 whole4 segregated4 segregated4b5 segregated4b6 segregated5
7 wg32 f32 whole5b5 segregated5 segregated5b5 segregated5b4 segregated4
8 wg32 f32 balanced4 segregated6 segregated6b4 segregated5 segregated5b5
6 wg16 f64 balanced4 segregated4 segregated5
7 wg16 f64 ahead4 segregated5 segregated4 segregated5b6
8 wg16 f64 balanced7 segregated6 segregated5 segregated6b5}" | bench_jobs | tee "$R/segregated.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
