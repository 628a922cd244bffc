#!/bin/bash
set -u
mkdir -p gpu/c && tar -C gpu/c -xJf gpu/check.tar.xz
DG=gpu/c/dg; R=$OUT/r; mkdir -p $R; nvidia-smi -L; date -u +%FT%TZ | tee $R/date
for N in 8 7; do
  tag=N$N
  DG_CACHE_DIR=$(mktemp -d) timeout 200 ncu --launch-skip 3 --launch-count 8 -k regex:mma --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    $DG bench maxwell2d --orders $N --precision f64 --device cuda:0 > $R/ncu-$tag.txt 2>&1
  echo "N=$N rc $?"
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occ|DRAM Throughput|L1/TEX Hit|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Stall|Block Limit" $R/ncu-$tag.txt | head -120
done
cd $OUT && tar -czf r.tgz r && rm -rf r
