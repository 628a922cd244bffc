#!/usr/bin/env bash
# The tf32 mirror kernel at N = 8 f32 with one tile a warp (TP1: TF32_TILES_PER_WARP = 1, 7 warps a group of 16,
# under launch bounds for 7, 8 or 9 groups) and with the representatives' last round given to the last work items
# (FB: scripts/probe/mirror_tf32_fold_balance.patch), each verified (maxwell2d mixed N = 1..8) and timed beside the
# submitted kernel (DG, under launch bounds for 9 groups) and `balanced4`, in two rounds; the submitted kernel's and
# TP1's time against the mesh's size (32M, 64M, 128M DOFs: the fixed part of a launch); Nsight Compute's stall reasons
# and per-instruction samples of one launch. Packing after each step.
# Usage: DG=path/to/dg TP1=path/to/dg FB=path/to/dg OUT=dir bash scripts/probe/mirror_tf32_one_tile.sh
set -u
. "$(dirname "$0")/mirror_probe_lib.sh"
DG=${DG:?DG=path to the dg binary}; MAIN=$DG; OUT=${OUT:-/tmp/mirror_tf32_one_tile}
TP1=${TP1:?}; FB=${FB:?}
probe_start
verify_probes "$TP1" "$FB"
round() {
  echo "--- round $1" >> "$R/bench.txt"
  DG=$MAIN; bench 8 "$B9"; bench 8 "$B4"
  echo "--- FB" >> "$R/bench.txt"; DG=$FB; bench 8 "$B9"
  echo "--- TP1" >> "$R/bench.txt"; DG=$TP1
  bench 8 "$M16/f32/mixed"
  for g in 7 8 9; do bench 8 "${M16/mmamirror/mmamirrorb$g}/f32/mixed"; done
}
round 1; pack
for dofs in 32000000 64000000 128000000; do
  for pair in "main:$MAIN:$B9" "tp1:$TP1:${M16/mmamirror/mmamirrorb8}/f32/mixed" "main:$MAIN:$B4"; do
    IFS=: read -r tag bin spec <<< "$pair"
    timeout 90 "$bin" bench maxwell2d --orders 8 --variant "$spec" --min-dofs $dofs $D 2>&1 | grep -E "^ *[0-9] " \
      | sed "s|^|$tag $dofs |" | tee -a "$R/sizes.txt"
  done
done
pack
round 2; pack
timeout 150 ncu --launch-skip 10 --launch-count 1 -k regex:mmamirror --section WarpStateStats --section SourceCounters \
  --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio -o "$R/rep_b9" \
  "$MAIN" bench maxwell2d --orders 8 --variant "$B9" $D > "$R/ncu_run.txt" 2>&1
echo "ncu: exit $?" | tee -a "$R/date"
ncu -i "$R/rep_b9.ncu-rep" --page details --print-details all > "$R/ncu_b9.txt" 2>&1
ncu -i "$R/rep_b9.ncu-rep" --page raw --csv --metrics regex:smsp__average_warps_issue_stalled_ > "$R/ncu_b9_stalls.csv" 2>&1
ncu -i "$R/rep_b9.ncu-rep" --page source --csv --print-source sass > "$R/ncu_b9_source.csv" 2>&1 \
  || ncu -i "$R/rep_b9.ncu-rep" --page source --csv > "$R/ncu_b9_source.csv" 2>&1
grep -iE "stalled|Warp Cycles" "$R/ncu_b9.txt" | head -40
pack
DG=$TP1; verify_laws "$M16" "euler2d 1..5" "acoustics2d 1..6 /mixed"
pack
date -u | tee -a "$R/date"
