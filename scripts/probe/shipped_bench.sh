#!/usr/bin/env bash
# The submitted binary on the H100 with its compiled-in tuning database: `dg bench maxwell2d --orders 1..8` in both
# precisions (each winner verified first), then the N = 7 f32 winner by `--variant` in three more processes.
# usage: EXP=path/to/dg OUT=dir [VARIANT7=spec] bash scripts/probe/shipped_bench.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
. "$(dirname "$0")/bench_variant_lib.sh"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
for p in f32 f64; do
  timeout 60 "$EXP" bench maxwell2d --orders 1..8 --precision $p $D > "$R/shipped-$p.txt" 2>&1
  echo "shipped $p rc $?"; grep -E "^ *[0-9] " "$R/shipped-$p.txt" | awk '{print "N"$1, $3, $4, $5, $8}'
done
for run in 1 2 3; do b 7 "${VARIANT7:-whole5b5/wg32/seq1/matrix-local/merged/tiled/f32/mixed}"; done | tee "$R/n7-repeats.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
