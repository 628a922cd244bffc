#!/usr/bin/env bash
# Nsight Compute (speed of light, occupancy, warp states, scheduler, instructions, memory) on the mixed element
# kernels at N = 3, 4 f32 (docs/data/elem-mixed-h200-2026-12-03/ncu-n3-n4/). $DG: the dg binary.
# usage: DG=gpu/dg OUT=dir bash scripts/probe/elem_mixed_ncu.sh
set -u
DG=${DG:-gpu/dg}
R=$OUT/ncu4; mkdir -p $R; date -u +%FT%TZ | tee $R/date
for spec in elem/wg128/seq1/matrix-local/merged/node-major/f32/mixed elem/wg128/seq1/matrix-const/merged/node-major/f32/mixed elem/wg32/seq1/matrix-const/merged/node-major/f32/mixed; do
  for N in 3 4; do
    tag=n$N-$(echo "$spec" | tr '/' '_')
    timeout 120 ncu --launch-skip 3 --launch-count 1 -k regex:rhs --section SpeedOfLight --section Occupancy --section LaunchStats \
      --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis \
      "$DG" run maxwell-cavity --order $N --nx 400 --t-end 1e-4 --precision f32 --variant "$spec" --device cuda:0 > $R/ncu-$tag.txt 2>&1
    echo "== $tag rc $?"
    grep -E "Duration|Registers Per|Achieved Occupancy|DRAM Throughput|Issue Slots Busy|No Eligible|Executed Instructions  |Warp Cycles Per Issued|Stall" $R/ncu-$tag.txt | head -14
  done
done
