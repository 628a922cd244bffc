#!/usr/bin/env bash
# The whole-element mirror tiles with every node of a work item written out as a constant (its loads of the
# element's states and its stores in a branch on the work item, at fixed offsets: a binary built with
# scripts/probe/part_literal.patch, which applies to the commit that wrote the lift's columns out; measured 1.2-1.4x
# slower, not kept; $NEW) against the same SPECs without it ($OLD), on the H100: `dg bench maxwell2d --variant` at
# 16M DOF (each process verifies first), old and new alternating. Each job line: ORDER SPEC-HEAD PRECISION (the
# SPEC's tail seq1/matrix-local/merged/tiled/<precision>/mixed).
# usage: OLD=path/to/dg-old NEW=path/to/dg OUT=dir [JOBS=…] bash scripts/probe/literal_nodes.sh
set -u
OLD=${OLD:?}; NEW=${NEW:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
. "$(dirname "$0")/bench_variant_lib.sh"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
FIRST="7 whole5b5/wg32 f32
8 balanced4/wg32 f32
8 balanced7/wg16 f64
6 whole4/wg32 f32
5 balanced3/wg32 f32
4 balanced3/wg32 f32
7 ahead4/wg16 f64
6 balanced4/wg16 f64
5 whole4/wg16 f64
3 balanced4/wg16 f64
7 whole5b5/wg32 f32
8 balanced4/wg32 f32"
echo "${JOBS:-$FIRST}" | while read -r o v p; do
  for EXP in "$OLD" "$NEW"; do echo "$(basename "$(dirname "$EXP")") $(b "$o" "$v/seq1/matrix-local/merged/tiled/$p/mixed")"; done
done | tee "$R/literal.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
