#!/usr/bin/env bash
# The mirror tiles under `__launch_bounds__(threads, G)` (a binary built with scripts/probe/mirror_bounds.patch, reading G from DG_MIRROR_MIN_GROUPS;
# 0: none): the N = 6..8 winners of both precisions benched at each G (each process verifying first).
# usage: DG=path/to/experimental/dg OUT=dir bash scripts/probe/mirror_bounds.sh
set -u
DG=${DG:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"
date -u +%FT%TZ | tee -a "$R/date"
for job in "f64 4 6..7 0 4 5" "f64 3 7 0 4 5" "f32 4 6 0 6 8" "f32 5 7..8 0 6 8" "f32 7 8 0 6 8"; do
  set -- $job; p=$1; t=$2; orders=$3; shift 3
  for g in "$@"; do
    v=mirror$t/wg32/seq1/matrix-local/merged/tiled/$p/mixed
    DG_MIRROR_MIN_GROUPS=$g timeout 60 "$DG" bench maxwell2d --orders $orders --variant $v --device cuda:0 > "$R/b.txt" 2> "$R/b.err"
    echo "$v G=$g rc $?: $(grep -E '^ ?[0-9] ' "$R/b.txt" | awk '{print "N"$1, $4, $8}' | tr '\n' ' ') $(grep -c 'NOT VERIFIED' "$R/b.txt") unverified"
  done
done | tee "$R/bounds.txt"
(cd "$OUT" && tar -czf results.tgz r)
