#!/usr/bin/env bash
# The tensor-core GEMM kernel's variants (scripts/probe/gemm_mma_persist.cu) at seed 002's N = 7 shapes, then
# Nsight Compute on the acoustic lift's shipped kernel and on the first resident-operator one, then (where DG is
# given) `dg bench acoustics3d --per-kernel` with every kernel's time in JSON.
# usage: OUT=dir [DG=path/to/dg] bash scripts/probe/gemm_mma_persist.sh
set -u
R=${OUT:?}/persist; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt; date -u | tee $R/date
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Xptxas -v scripts/probe/gemm_mma_persist.cu -lcublas -o /tmp/gp > $R/build.txt 2>&1
echo "build rc $? in $(( $(date +%s) - s )) s"; grep -E "error|spill" $R/build.txt | sort | uniq -c | head -20
timeout 150 /tmp/gp > $R/probe.txt 2>&1; echo "probe rc $?"; cat $R/probe.txt
S="--section SpeedOfLight --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis --section SchedulerStats --section LaunchStats"
if [ "${OLD:-0}" = 1 ]; then
  nvcc -O3 -arch=sm_90 scripts/probe/gemm_mma_probe.cu -lcublas -o /tmp/gp_old > /dev/null 2>&1
  for sh in ac-grad ac-div; do timeout 60 /tmp/gp_old $sh | grep -E "cublas|mtw4 nt4 w4 st3" | sed 's/^/shipped probe: /'; done | tee $R/probe-old.txt
fi
[ "${NCU:-1}" = 1 ] && for k in gemm_stream gemm_resident; do
  timeout 100 ncu -k regex:$k --launch-count 1 $S /tmp/gp ac-lift > $R/ncu-$k.txt 2>&1; echo "ncu $k rc $?"
  grep -E "Duration|Throughput|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|No Eligible|Stall|L2 Hit|Eligible Warps|Active Warps" $R/ncu-$k.txt | head -30 | cut -c1-150
done
if [ -n "${DG:-}" ]; then
  timeout 200 "$DG" bench acoustics3d --per-kernel --orders 7 --precision f32 --device cuda:0 --out $R/bench-acoustics3d.json > $R/bench-acoustics3d.txt 2> $R/bench-acoustics3d.err
  echo "bench rc $?"; head -1 $R/bench-acoustics3d.txt | cut -c1-300
  python3 - $R/bench-acoustics3d.json <<'PY'
import json, sys
def walk(d):
    if isinstance(d, dict):
        if isinstance(d.get("kernels"), list):
            yield d
        for v in d.values():
            yield from walk(v)
    elif isinstance(d, list):
        for v in d:
            yield from walk(v)
for b in walk(json.load(open(sys.argv[1]))):
    for k in b["kernels"]:
        print(f"{k['strategy']:<14} {k['role']:<10} {k['kernel']:<40} {k['seconds']*1e6:8.1f} us {k['gbs']:8.1f} GB/s {k['roofline_percent']:6.1f} %")
PY
fi
tar -C ${OUT} -czf ${OUT}/persist.tgz persist && rm -rf $R
