#!/usr/bin/env bash
# Tiles with work-item counts the tuner's list leaves out (3, 5, 7, 9: no padded rows at some orders) against the
# listed ones, maxwell2d f32 mixed, matrix-local, tiled layout: `dg bench --variant` (16M DOF, verified first), two
# passes, each variant at the orders in its entry. Results packed after every process.
# usage: DG=path/to/dg OUT=dir bash scripts/probe/tile_counts.sh
set -u
DG=${DG:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
SPECS=${SPECS:-"4:5..6 6:7..8 7:5..8 3:5..8 5:5..8 9:7..8"}
nvidia-smi -L; date -u +%FT%TZ | tee "$R/date"
for pass in 1 2; do
  for s in $SPECS; do
    t=${s%%:*}; orders=${s#*:}; v="tile$t/wg32/seq1/matrix-local/merged/tiled/f32/mixed"
    timeout 100 "$DG" --db "$(mktemp -d)" bench maxwell2d --orders "$orders" --variant "$v" $D \
      > "$R/bench-tile$t-$pass.txt" 2> "$R/bench-tile$t-$pass.err"
    echo "pass $pass tile$t rc $?"
    grep -E '^ *[0-9] ' "$R/bench-tile$t-$pass.txt" | awk '{print "   ", $1, $3, $4, $8}'
    (cd "$OUT" && tar -czf results.tgz r)
  done
done
date -u +%FT%TZ | tee -a "$R/date"
