#!/usr/bin/env bash
# Nsight Compute on the tensor-core lift of scripts/probe/gemm_mma_probe.cu (acoustics, N = 7), its first and
# second variant: speed of light, warp states, occupancy, memory and scheduler sections (run on that probe's
# earlier kernel: docs/data/tet-mma-h100-2026-12-05/call3-ncu). usage: OUT=dir bash scripts/probe/gemm_mma_ncu.sh
set -u
R=${OUT:?}/ncu; mkdir -p $R
nvcc -O3 -arch=sm_90 -lineinfo scripts/probe/gemm_mma_probe.cu -lcublas -o /tmp/gp > $R/build.txt 2>&1 || { cat $R/build.txt; exit 1; }
S="--section SpeedOfLight --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section SchedulerStats --section LaunchStats"
for skip in 0 26; do
  timeout 200 ncu -k regex:gemm_mma --launch-skip $skip --launch-count 1 $S /tmp/gp ac-lift > $R/ncu-skip$skip.txt 2>&1
  echo "ncu skip $skip rc $?"
  grep -E "gemm_mma|Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issued Warp|No Eligible|Stall|Block Limit|L1/TEX Hit|L2 Hit|Eligible Warps|Active Warps|Executed Ipc" $R/ncu-skip$skip.txt | head -60 | cut -c1-160
done
tar -C ${OUT} -czf ${OUT}/ncu.tgz ncu && rm -rf $R
