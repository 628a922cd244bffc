#!/usr/bin/env bash
# Why the AB3 update made in the tensor-core lift (`tet_mma_lift_ab3`) is slower than the lift and the update
# kernel apart: ptxas's report (registers, spills) for the generated tensor-core kernels of acoustics at N = 7 in
# f32 (`dg emit`, compiled by nvcc for sm_90), then Nsight Compute on the lift with and without the update, and on
# the update kernel, in short runs of the acoustic cube; then `dg bench --per-kernel` of both laws (where BENCH=1).
# usage: DG=path/to/dg OUT=dir [BENCH=1] bash scripts/probe/tet_mma_ab3.sh
set -u
R=${OUT:?}/ab3; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt; date -u | tee $R/date
"$DG" emit acoustics3d --order 7 --variant tet/gemm/mma-ab3/u1/f32 --target cuda > $R/acoustics3d-n7-f32.cu 2> $R/emit.err
nvcc -arch=sm_90 -cubin -Xptxas -v $R/acoustics3d-n7-f32.cu -o /tmp/k.cubin > $R/ptxas.txt 2>&1; echo "nvcc rc $?"
grep -A2 "Compiling entry function 'tet_mma" $R/ptxas.txt | grep -E "Compiling|Used|spill" | cut -c1-160
S="--section SpeedOfLight --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis --section SchedulerStats --section LaunchStats"
for pair in "tet/gemm/mma-ab3/u1/f32 tet_mma_lift_ab3" "tet/gemm/mma/u1/f32 tet_mma_lift" "tet/gemm/mma/u1/f32 tet_update_ab3_ku1"; do
  set -- $pair
  timeout 120 ncu -k regex:"^$2\$" --launch-skip 5 --launch-count 1 $S "$DG" run acoustic-cube --order 7 --nx 14 --scheme ab3 --precision f32 --device cuda:0 --t-end 0.01 --variant $1 > $R/ncu-$2.txt 2>&1
  echo "ncu $2 rc $?"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Active Warps|Warp Cycles Per Issued|No Eligible|L2 Hit Rate|Local Memory Spilling Requests  " $R/ncu-$2.txt | head -12 | cut -c1-120
done
if [ "${BENCH:-0}" = 1 ]; then
  for law in acoustics3d elastic3d; do
    timeout 150 "$DG" bench $law --per-kernel --orders 7 --precision f32 --device cuda:0 --out $R/bench-$law.json > $R/bench-$law.txt 2> $R/bench-$law.err
    echo "bench $law rc $?"; head -1 $R/bench-$law.txt | cut -c1-300
  done
fi
tar -C ${OUT} -czf ${OUT}/ab3.tgz ab3 && rm -rf $R
