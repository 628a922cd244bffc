#!/usr/bin/env bash
# The nodal `tiled` layout on a CUDA device (valid on request, not in the tuner's list): the shipped maxwell2d
# winners benched (`dg bench`, compiled-in database), then merged element and tile variants — the shipped winners at
# N = 1..8 in f32 and 1..4 in f64, and the best element kernels above — against their tiled twins through `dg bench --variant`,
# alternating, two passes; one tiled kernel under compute-sanitizer.
# usage: DG=path/to/dg OUT=dir [PARTS="sanitizer shipped pairs"] bash scripts/probe/tiled_layout.sh
set -u
DG=${DG:?dg binary}; OUT=${OUT:?output directory}; mkdir -p "$OUT"
PARTS=" ${PARTS:-sanitizer shipped pairs} "
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
date -u | tee -a "$OUT/device.txt"
case "$PARTS" in *" sanitizer "*)
  compute-sanitizer --tool memcheck "$DG" verify maxwell2d --order 3 --precision f32 \
    --variant elem/wg128/seq1/matrix-const/merged/tiled/f32/mixed --device cuda:0 2>&1 | tail -4 | tee "$OUT/sanitizer.txt"
esac
case "$PARTS" in *" shipped "*)
  "$DG" bench maxwell2d --orders 1..8 --precision both --device cuda:0 --db "$OUT/db-shipped" 2>&1 \
    | tee "$OUT/shipped.txt" | tail -20
esac
case "$PARTS" in *" pairs "*)
  # ms per right-hand side at 16M DOF, each node-major variant then its tiled twin
  PAIRS=${PAIRS:-"1 f32 elem/wg128/seq1/matrix-const/merged/node-major/f32
2 f32 elem/wg128/seq1/matrix-const/merged/node-major/f32/diff-first
3 f32 elem/wg128/seq1/matrix-const/merged/node-major/f32/mixed
4 f32 elem/wg128/seq2/matrix-local/merged/node-major/f32/mixed
5 f32 elem/wg128/seq1/matrix-local/merged/node-major/f32/mixed
6 f32 elem/wg128/seq1/matrix-local/merged/node-major/f32/mixed
8 f32 elem/wg128/seq1/matrix-local/merged/node-major/f32/mixed
1 f64 elem/wg128/seq1/matrix-const/merged/node-major/f64
2 f64 elem/wg32/seq1/matrix-const/merged/node-major/f64/diff-first
3 f64 elem/wg128/seq1/matrix-local/merged/node-major/f64
4 f64 elem/wg128/seq1/matrix-local/merged/node-major/f64/diff-first
5 f64 elem/wg128/seq1/matrix-local/merged/node-major/f64/diff-first
5 f32 tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed
6 f32 tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed
7 f32 tile6/wg32/seq1/matrix-local/merged/node-major/f32/mixed
8 f32 tile6/wg32/seq1/matrix-local/merged/node-major/f32/mixed
8 f64 tile8/wg32/seq1/matrix-local/merged/node-major/f64"}
  for pass in 1 2; do
    while read -r n p spec || [ -n "$n" ]; do
      [ -z "$n" ] && continue
      for s in "$spec" "${spec/node-major/tiled}"; do
        "$DG" bench maxwell2d --orders "$n" --variant "$s" --device cuda:0 --db "$OUT/db-pairs" 2>&1 \
          | grep -E "^ *$n $p " | sed "s|^|pass $pass |" | tee -a "$OUT/pairs.txt"
      done
    done <<< "$PAIRS"
  done
esac
date -u | tee -a "$OUT/device.txt"
