#!/usr/bin/env bash
# How the N = 8 f32 mirror tiles' time follows the share of their products kept (EXP built with
# scripts/probe/mirror_knobs.patch; DG_PROBE_V = DG_PROBE_L = P percent of the volume's and the lift's columns;
# timing only, the results are wrong), to read off where a kernel doing a given share of the operations would land.
# usage: EXP=path/to/dg-with-the-patch OUT=dir [SHARES="100 50 …"] bash scripts/probe/fewer_products_line.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
V=balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
for p in ${SHARES:-100 80 75 70 67 63 57 50 100}; do
  DG_PROBE_V=$p DG_PROBE_L=$p timeout 40 "$EXP" bench maxwell2d --orders 8 --variant $V $D > "$R/line.txt" 2>&1
  echo "N=8 f32 $p %: $(grep -E "^ *[0-9] " "$R/line.txt" | awk '{print $4, "ms", $8}')"
  DG_PROBE_V=$p DG_PROBE_L=$p "$EXP" emit maxwell2d --order 8 --variant $V --target cuda > "$R/k.cu"
  echo "  columns kept: volume $(grep -o 'c < (cn \* [0-9]*) / 100' "$R/k.cu"), lift $(grep -c 'const int c = [0-9]*, m0' "$R/k.cu") of 14"
done | tee "$R/line-all.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
