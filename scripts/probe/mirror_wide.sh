#!/usr/bin/env bash
# Mirror tiles with more work items per element (fewer rows, so fewer registers, each): mirror7, 9, 10 at N = 7, 8
# in both precisions (`dg bench --variant`, each process verifying first; orders the rules refuse are skipped).
# usage: DG=path/to/dg OUT=dir bash scripts/probe/mirror_wide.sh
set -u
DG=${DG:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"
date -u +%FT%TZ | tee -a "$R/date"
for p in f64 f32; do for t in 7 9 10; do
  v=mirror$t/wg32/seq1/matrix-local/merged/tiled/$p/mixed
  timeout 60 "$DG" bench maxwell2d --orders 7..8 --variant $v --device cuda:0 > "$R/w.txt" 2> "$R/w.err"
  echo "$v rc $?: $(grep -E '^ ?[0-9] ' "$R/w.txt" | awk '{print "N"$1, $4, $8}' | tr '\n' ' ') $(grep -c 'NOT VERIFIED' "$R/w.txt") unverified"
done; done | tee "$R/wide.txt"
(cd "$OUT" && tar -czf results.tgz r)
