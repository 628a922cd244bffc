#!/usr/bin/env bash
# The tf32 mirror kernel at N = 8 (groups of 16): launch bounds for 9 groups a multiprocessor and groups of 32 timed
# beside it and `balanced4`; then Nsight Compute on one `dg bench` launch of it (warp states: what the warps wait on,
# scheduler statistics, source counters: the instructions that stall most). In order, packing after each step.
# Usage: DG=path/to/dg OUT=dir bash scripts/probe/mirror_tf32_stall_reasons.sh
set -u
. "$(dirname "$0")/mirror_probe_lib.sh"
DG=${DG:?DG=path to the dg binary}; OUT=${OUT:-/tmp/mirror_tf32_stall_reasons}
probe_start
B4=balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed
for round in 1 2; do
  bench 8 "$M16/f32/mixed"; bench 8 "${M16/mmamirror/mmamirrorb9}/f32/mixed"; bench 8 "$M32/f32/mixed"; bench 8 "$B4"
done
pack
timeout 150 ncu --launch-skip 10 --launch-count 1 -k regex:mmamirror --section WarpStateStats --section SchedulerStats \
  --section SourceCounters --section Occupancy "$DG" bench maxwell2d --orders 8 --variant "$M16/f32/mixed" $D \
  > "$R/ncu_stalls.txt" 2>&1
echo "ncu: exit $?" | tee -a "$R/date"
pack
date -u | tee -a "$R/date"
