#!/usr/bin/env bash
# Round 2 of the tf32 mirror kernel (rhs_mirror_tf32.tera): the shipped split (high part truncated, two instructions a
# value) against a probe binary whose local memory holds both parts split once as stored (PROBE, built with the
# pre-split edit, scripts/probe/mirror_tf32_presplit.patch): registers, maxwell2d N = 8
# verification, benches of wg16 and wg32 beside balanced4, and Nsight Compute (pipes, stalls) of one stage launch of
# the wg16 kernel and of balanced4.
# Usage: DG=path/to/dg PROBE=path/to/probe-dg OUT=dir bash scripts/probe/mirror_tf32_round2.sh
set -u
DG=${DG:?}; PROBE=${PROBE:?}; OUT=${OUT:-/tmp/r2}; R="$OUT/r"; mkdir -p "$R"; D="--device cuda:0"
pack() { (cd "$OUT" && tar -czf results.tgz r); }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee -a "$R/date"
M=mmamirror/wg16/seq1/field-local/merged/tiled; W=mmamirror/wg32/seq1/field-local/merged/tiled
for b in DG PROBE; do
  for m in "$M" "$W"; do
    g=${m#mmamirror/}; g=${g%%/*}
    "${!b}" emit maxwell2d --order 8 --variant "$m/f32/mixed" > "$R/${b}_${g}.cu"
    nvcc -arch=sm_90 -Xptxas -v -cubin -o /dev/null "$R/${b}_${g}.cu" 2>&1 | grep -A2 "entry function 'mmamirror'" | grep -E "registers" | sed "s/^/$b $g: /" | tee -a "$R/ptxas.txt"
  done
  "${!b}" verify maxwell2d --order 7..8 --variant "$M/f32/mixed" $D 2>&1 | tail -1 | sed "s/^/$b: /" | tee -a "$R/check.txt"
  "${!b}" verify maxwell2d --order 8 --variant "$W/f32/mixed" $D 2>&1 | grep -E "^  mma" | sed "s/^/$b: /" | tee -a "$R/check.txt"
  for m in "$M" "$W"; do
    "${!b}" bench maxwell2d --orders 7..8 --variant "$m/f32/mixed" $D 2>&1 | grep -E "^ *[0-9] " | sed "s|^|$b |" | tee -a "$R/bench.txt"
  done
  pack
done
"$DG" bench maxwell2d --orders 8 --variant balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed $D 2>&1 | grep -E "^ *[0-9] " | tee -a "$R/bench.txt"
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats --section MemoryWorkloadAnalysis_Tables"
for job in "mmamirror $M/f32/mixed wg16" "^mirror balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed balanced4"; do
  set -- $job
  timeout 150 ncu --launch-skip 3 --launch-count 1 -k "regex:$1" $S "$DG" run maxwell-cavity --order 8 --nx 244 --t-end 1e-4 --precision f32 --variant "$2" $D > "$R/ncu-$3.txt" 2>&1
  echo "== ncu $3 rc $?"
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issue Slots Busy|Executed Ipc A|Executed Instructions  |Stall Long|Stall Math|Stall MIO|Stall Short|Bank Conflicts|Dynamic Shared|Static Shared" "$R/ncu-$3.txt" | head -24
  pack
done
date -u | tee -a "$R/date"
