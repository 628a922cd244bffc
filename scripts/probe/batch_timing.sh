#!/usr/bin/env bash
# What a launch's own pair of timing events adds to its time: the minimum-bytes floor (scripts/probe/jobs_floor.cu,
# N = 8, two work items an element, dg's tiled layout) and dg's N = 8 f32 kernels (`dg bench`, built with
# scripts/probe/batch_timing.patch: DG_PROBE_BATCH_TIMING=1 times all the repeats between one pair of events), each
# timed both ways at 16M, 32M, 64M and 128M DOFs (the intercept of time against size: a launch's fixed part).
# Usage: DG=path/to/dg-with-the-patch OUT=dir bash scripts/probe/batch_timing.sh
set -u
DG=${DG:?}; OUT=${OUT:-/tmp/batch_timing}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } | tee -a "$R/date"
nvcc -O3 -arch=sm_90 -DN=8 -DTPE=2 -DBLOCK=128 -DLAYOUT=2 -o "$R/floor" scripts/probe/jobs_floor.cu > "$R/nvcc.txt" 2>&1 \
  || echo "floor build failed" | tee -a "$R/date"
for round in 1 2; do
  for dofs in 16074720 32000000 64000000 128000000; do
    for mode in each batch; do "$R/floor" $dofs 3094.7 $mode | tee -a "$R/floor.txt"; done
  done
done
(cd "$OUT" && tar -czf results.tgz r)
B9=mmamirrorb9/wg16/seq1/field-local/merged/tiled/f32/mixed
B4=balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed
for round in 1 2; do
  for dofs in 16000000 32000000 64000000 128000000; do
    for v in $B9 $B4; do
      for mode in each batch; do
        if [ $mode = batch ]; then export DG_PROBE_BATCH_TIMING=1; else unset DG_PROBE_BATCH_TIMING; fi
        timeout 90 "$DG" bench maxwell2d --orders 8 --variant $v --min-dofs $dofs $D 2>&1 | grep -E "^ *[0-9] " \
          | sed "s|^|$mode $dofs |" | tee -a "$R/dg.txt"
      done
    done
  done
  (cd "$OUT" && tar -czf results.tgz r)
done
unset DG_PROBE_BATCH_TIMING
date -u | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
