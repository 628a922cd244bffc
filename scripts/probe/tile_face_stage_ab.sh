#!/usr/bin/env bash
# The tile kernels' face data (neighbours' node indices, boundary tags, nx, ny, Fscale) read coalesced into local
# memory once per group — A/B of $NEW against $OLD (the binary before), alternating twice per variant, then Nsight
# Compute's source counters of the N = 4 f32 winner under each (`scripts/probe/sass_phases.py` reads them by phase).
# usage: OLD=gpu/dg NEW=gpu/dg-new OUT=dir bash scripts/probe/tile_face_stage_ab.sh
set -u
OUT=${OUT:?}; mkdir -p "$OUT/ab" "$OUT/ncu"
SPECS="3:f32:tile4/wg32/seq1/matrix-const/merged/node-major/f32/mixed:600:0.05
4:f32:tile8/wg32/seq1/matrix-const/merged/node-major/f32/mixed:600:0.05
4:f32:tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed:600:0.05
5:f32:tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed:300:0.1
6:f32:tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed:300:0.1
7:f32:tile6/wg32/seq1/matrix-local/merged/node-major/f32/mixed:300:0.1
8:f32:tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed:300:0.1
3:f64:tile4/wg32/seq1/matrix-const/merged/node-major/f64:600:0.05
4:f64:tile8/wg32/seq1/matrix-const/merged/node-major/f64:600:0.05
6:f64:tile4/wg32/seq1/matrix-local/merged/node-major/f64:300:0.1" OUT="$OUT/ab" bash scripts/probe/tile_prefetch_ab.sh
if command -v ncu >/dev/null; then
  for which in old new; do
    dg=$OLD; [ $which = new ] && dg=$NEW
    timeout 200 ncu --clock-control none --launch-skip 5 --launch-count 1 -k regex:tile \
      --section SourceCounters --section WarpStateStats --section SpeedOfLight --section Occupancy \
      --section MemoryWorkloadAnalysis -o "$OUT/ncu/N4-f32-$which" \
      "$dg" run maxwell-cavity --order 4 --nx 600 --t-end 0.0003 --precision f32 \
      --variant tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed --device cuda:0 > "$OUT/ncu/run-$which.txt" 2>&1
    ncu -i "$OUT/ncu/N4-f32-$which.ncu-rep" --page source --csv --print-source sass 2> "$OUT/ncu/sass-$which.err" \
      | gzip > "$OUT/ncu/N4-f32-$which-sass.csv.gz"
    ncu -i "$OUT/ncu/N4-f32-$which.ncu-rep" --page details > "$OUT/ncu/N4-f32-$which-details.txt" 2>&1
    rm -f "$OUT/ncu/N4-f32-$which.ncu-rep"
  done
fi
