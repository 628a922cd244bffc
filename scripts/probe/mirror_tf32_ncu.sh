#!/usr/bin/env bash
# Why the tf32 mirror kernel (`mmamirror/…/f32`) is slower than the FMA kernels at N = 8: registers (nvcc -Xptxas -v of
# the emitted source) and Nsight Compute (speed of light, occupancy, launch, warp states and their stall reasons,
# instruction mix) of it, of the shipped f32 winner `balanced4` and of the f64 `mmamirror` (the same kernel with
# m16n8k4.f64 products), one launch each of a short `dg run` on the 16M-DOF mesh (244 cells a side).
# Usage: DG=path/to/dg OUT=dir bash scripts/probe/mirror_tf32_ncu.sh
set -u
DG=${DG:?DG=path to the dg binary}; OUT=${OUT:-/tmp/mirror_tf32_ncu}; R="$OUT/r"; mkdir -p "$R"; D="--device cuda:0"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee -a "$R/date"
MM=mmamirror/wg16/seq1/field-local/merged/tiled/f32/mixed
BAL=balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed
STALLS=$(for r in long_scoreboard short_scoreboard barrier mio_throttle lg_throttle wait math_pipe_throttle \
  not_selected selected no_instruction dispatch_stall tex_throttle membar drain imc_miss branch_resolving; do
  printf 'smsp__average_warps_issue_stalled_%s_per_issue_active.ratio,' $r; done | sed 's/,$//')
for pair in "mmamirror $MM f32" "mirror $BAL f32" "mmamirror ${MM%/f32/mixed}/f64/mixed f64"; do
  set -- $pair; kernel=$1; v=$2; prec=$3; name=${v%%/*}-$prec
  "$DG" emit maxwell2d --order 8 --variant "$v" > "$R/$name.cu"
  nvcc -arch=sm_90 -Xptxas -v -cubin -o /dev/null "$R/$name.cu" 2>&1 | grep -E "registers|spill" | sed "s/^/$name: /" | tee -a "$R/ptxas.txt"
  timeout 150 ncu --launch-skip 3 --launch-count 1 -k "regex:^$kernel\$" --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats \
    --section MemoryWorkloadAnalysis --metrics "$STALLS" \
    "$DG" run maxwell-cavity --order 8 --nx 244 --t-end 1e-4 --precision $prec --variant "$v" $D > "$R/ncu-$name.txt" 2>&1
  echo "== $name: ncu rc $?"
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|DRAM Throughput|Memory Throughput|Compute \(SM\)|Warp Cycles Per Issued|Issue Slots Busy|Executed Ipc A|Shared Memory Configuration Size|Dynamic Shared|Static Shared|Stall|stalled" "$R/ncu-$name.txt" | head -40
done
(cd "$OUT" && tar -czf results.tgz r)
date -u | tee -a "$R/date"
