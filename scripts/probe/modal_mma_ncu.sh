#!/bin/bash
# Nsight Compute on one launch of a modal kernel in the vortex run (f64): speed of light, occupancy, and the
# warp stall reasons per issued instruction. DG=gpu/dg OUT=dir CASES="4:spec:kernel …" bash scripts/probe/modal_mma_ncu.sh
set -u
DG=${DG:-gpu/dg}
for case in ${CASES:-4:modal/wg128/mma/const/mode-major/f64:modal_mma 4:modal/wg256/element-regs/shared/mode-major/f64:modal_element_regs}; do
  IFS=: read p spec kernel <<< "$case"
  echo "=== p=$p $spec"
  timeout 120 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section InstructionStats \
    --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    --kernel-name $kernel --launch-skip 4 --launch-count 1 \
    $DG run euler-isentropic-vortex --order $p --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.0005 --precision f64 --device cuda:0 --variant $spec \
    > ${OUT:-.}/ncu-$p-$kernel.txt 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|Executed Ipc A|Issue Slots Busy|Executed Instructions  " ${OUT:-.}/ncu-$p-$kernel.txt | head -8
  grep -E "issue_stalled" ${OUT:-.}/ncu-$p-$kernel.txt | awk '{print $1, $NF}' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | sort -k2 -n -r | head -8 | tr '\n' ';'; echo
done
