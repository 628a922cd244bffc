#!/usr/bin/env bash
# The pipes of the tf32 mirror kernel and of balanced4 at N = 8 f32 (issue 14): Nsight Compute of one stage launch each
# on the 16M-DOF mesh, the tensor, FMA, ALU and load/store pipes' active cycles against their peak, and the
# instructions each pipe executed; with the kernel's duration from `dg bench` beside them.
# Usage: DG=path/to/dg OUT=dir bash scripts/probe/mirror_tf32_pipes.sh
set -u
DG=${DG:?}; OUT=${OUT:-/tmp/pipes}; R="$OUT/r"; mkdir -p "$R"; D="--device cuda:0"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } | tee -a "$R/date"
M="sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"
M="$M,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"
M="$M,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_alu.sum"
M="$M,sm__inst_executed_pipe_lsu.sum,sm__inst_executed.sum,sm__cycles_elapsed.avg,gpu__time_duration.sum"
M="$M,smsp__warps_active.avg.pct_of_peak_sustained_active"
for job in "mmamirror mmamirror/wg16/seq1/field-local/merged/tiled/f32/mixed tf32-wg16" \
           "^mirror balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed balanced4"; do
  set -- $job
  timeout 150 ncu --launch-skip 3 --launch-count 1 -k "regex:$1" --metrics "$M" \
    "$DG" run maxwell-cavity --order 8 --nx 244 --t-end 1e-4 --precision f32 --variant "$2" $D > "$R/pipes-$3.txt" 2>&1
  echo "== $3 rc $?"; grep -E "sm__|gpu__|smsp__" "$R/pipes-$3.txt"
  "$DG" bench maxwell2d --orders 8 --variant "$2" $D 2>&1 | grep -E "^ *[0-9] " | tee -a "$R/bench.txt"
done
(cd "$OUT" && tar -czf results.tgz r)
date -u | tee -a "$R/date"
