#!/usr/bin/env bash
# What the whole-element mirror tiles' time is made of, on the H100: a binary built with
# scripts/probe/phase_knobs.patch (applies to ca8ec85) renders its kernels under DG_PROBE_SKIP (comma-separated;
# anything else: the kernel unchanged): volume, lift, faces, copy: that phase not executed (its code kept behind a
# test no launch passes, so the registers stay); noA, noB: the volume's and the lift's operator entries (A) or folded
# inputs and jumps (B) read at the first column only; late: no face state loaded during the volume sum (all after it);
# mixfirst: the shared gradients folded into the accumulators before the face stage; lit: the lift's columns written
# out with their face nodes as constants (what the kernels of db5d7e3 and later do). DG_PROBE_BATCH=n: n face nodes'
# states in flight at once. Each job line: ORDER SPEC-HEAD PRECISION SKIP [BATCH] (the SPEC's tail
# seq1/matrix-local/merged/tiled/<precision>/mixed); `dg bench maxwell2d --variant` at 16M DOF, each process verifying
# first (the skipping kernels fail it: their times are not results, only what the phase costs).
# usage: EXP=path/to/dg-with-the-patch OUT=dir JOBS="…" bash scripts/probe/phase_knobs.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; JOBS=${JOBS:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
. "$(dirname "$0")/bench_variant_lib.sh"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
echo "$JOBS" | while read -r o v p skip batch; do
  if [ -n "${batch:-}" ]; then b "$o" "$v/seq1/matrix-local/merged/tiled/$p/mixed" DG_PROBE_SKIP="$skip" DG_PROBE_BATCH="$batch"
  else b "$o" "$v/seq1/matrix-local/merged/tiled/$p/mixed" DG_PROBE_SKIP="$skip"; fi
done | tee "$R/knobs.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
