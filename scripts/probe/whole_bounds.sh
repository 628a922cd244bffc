#!/usr/bin/env bash
# `whole<t>` under `__launch_bounds__(threads, G)` (DG_MIRROR_MIN_GROUPS=G, an experimental binary,
# scripts/probe/whole_bounds_exp.patch) at the orders that miss 60 % of roofline, on the H100: `dg bench --variant`
# at 16M DOF (each process verifies first), G = 0 (no bounds) first.
# usage: EXP=path/to/experimental/dg OUT=dir bash scripts/probe/whole_bounds.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
row() { grep -E "^ *[0-9] " "$1" | awk '{print "N"$1, $4, $8}' | tr '\n' ' '; }
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
M=matrix-local/merged/tiled
for job in "7 whole5/wg32 f32/mixed 0 4 5 6" "8 whole7/wg32 f32/mixed 0 3 4" "8 whole7/wg16 f64/mixed 0 3 4" \
  "8 whole4/wg16 f64/mixed 0 4 5" "7 whole4/wg32 f32/mixed 0 5 6"; do
  set -- $job; o=$1; v=$2/seq1/$M/$3; shift 3
  for g in "$@"; do
    DG_MIRROR_MIN_GROUPS=$g timeout 40 "$EXP" bench maxwell2d --orders $o --variant $v $D > "$R/b.txt" 2>&1
    echo "$v G=$g rc $?: $(row "$R/b.txt")$(grep -c 'NOT VERIFIED' "$R/b.txt") unverified"; cat "$R/b.txt" >> "$R/all.txt"
  done
done | tee "$R/bounds.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
