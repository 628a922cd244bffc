#!/usr/bin/env bash
# What holds the whole-element mirror tiles at the orders that miss 60 % of roofline, on the H100: Nsight Compute on
# one launch of the folded stage's mirror kernel in `dg run maxwell-cavity --nx 400` (320,000 triangles): registers,
# occupancy, the issue slots, the FMA and load/store pipes' utilisation, the shared-memory wavefronts and the warps'
# stall reasons.
# usage: EXP=path/to/dg OUT=dir bash scripts/probe/mirror_pipes.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
M=seq1/matrix-local/merged/tiled
METRICS=sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum,smsp__inst_executed_op_shared_ld.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_dfma_pred_on.sum
for job in "7 f32 whole5b5/wg32" "8 f32 balanced4/wg32" "8 f32 whole7/wg32" "8 f64 balanced7/wg16"; do
  set -- $job; o=$1; p=$2; v=$3/$M/$p/mixed; n=$(echo "$3-n$o" | tr '/' '-')
  timeout 120 ncu --launch-skip 3 --launch-count 1 -k regex:mirror --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis --metrics "$METRICS" \
    -o "$R/$n" "$EXP" run maxwell-cavity --order $o --nx 400 --t-end 1e-4 --precision $p --variant $v $D > "$R/$n.log" 2>&1
  echo "== $v N=$o rc $?"; ncu -i "$R/$n.ncu-rep" --print-details all > "$R/$n.txt" 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Compute \(SM\) Throughput|Memory Throughput|pipe_fma|pipe_lsu|pipe_shared|wavefronts_mem_shared|inst_executed|ffma|dfma|Stall|No Eligible" "$R/$n.txt" | head -30
done
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
