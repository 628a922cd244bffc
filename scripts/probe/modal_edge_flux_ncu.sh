set -u
DG=gpu/dg
for case in 4:f64:modal/wg128/edge-flux/const/mode-major/f64 4:f32:modal/wg64/edge-flux/const/mode-major/f32 2:f32:modal/wg64/edge-flux/const/mode-major/f32; do
  IFS=: read p pr spec <<< "$case"
  for kernel in modal_edge_flux modal_element_lift; do
  echo "=== p=$p $spec $kernel"
  timeout 120 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis \
    --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    --kernel-name $kernel --launch-skip 4 --launch-count 1 \
    $DG run euler-isentropic-vortex --order $p --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.0005 --precision $pr --device cuda:0 --variant $spec \
    > $OUT/ncu-$p-$pr-$kernel.txt 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Executed Ipc A|Issue Slots Busy|Executed Instructions  |Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Local Memory Spill|Compute \(SM\)" $OUT/ncu-$p-$pr-$kernel.txt | head -16
  grep -E "issue_stalled" $OUT/ncu-$p-$pr-$kernel.txt | awk '{print $1, $NF}' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | sort -k2 -n -r | head -6 | tr '\n' ';'; echo
  done
done
