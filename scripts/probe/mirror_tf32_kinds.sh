#!/usr/bin/env bash
# The tf32 mirror kernel with each warp's row tiles of one kind (`mmamirror/…/f32`: warps of symmetric rows, then
# of antisymmetric rows, two tiles each, every A fragment split once for both; the results combined through local
# memory and stored 16 consecutive elements a row; rhs_mirror_tf32.tera). In order, packing after each step:
# verification of maxwell2d mixed N = 1..8 (wg16); `dg bench --variant` at N = 8 of the new kernel and `balanced4`,
# and, when OLD names the binary before, its tf32 kernel and `balanced4` on the same machine; the new kernel at
# N = 5..7 and in groups of 32 at N = 8 (verified at 1..8 first) and under launch bounds for each G of BOUNDS; the
# other laws verified (maxwell2d flux-first, euler2d, acoustics2d with materials, mhd2d with a source term) and a
# planted bug; ALT, a second build (another number of tiles a warp, say), verified at N = 1..8 and timed at N = 8;
# NCU=1: Nsight Compute on one `dg bench` launch of the new kernel and of `balanced4` at N = 8 (instructions,
# occupancy, duration, pipes). Registers and SASS counts come from scripts/sass_local.py on the build machine.
# Usage: DG=path/to/dg [OLD=path/to/old/dg] [ALT=path/to/dg] OUT=dir [BOUNDS="5 6"] [NCU=1] \
#        bash scripts/probe/mirror_tf32_kinds.sh
set -u
. "$(dirname "$0")/mirror_probe_lib.sh"
DG=${DG:?DG=path to the dg binary}; OUT=${OUT:-/tmp/mirror_tf32_kinds}
probe_start
B4=balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed
verify_maxwell "$M16/f32/mixed"
pack
bench 8 "$M16/f32/mixed"
bench 8 "$B4"
if [ -n "${OLD:-}" ]; then
  echo "--- the binary before (OLD):" | tee -a "$R/bench.txt"
  DG_NEW=$DG; DG=$OLD
  bench 8 "$M16/f32/mixed"
  bench 8 "$B4"
  DG=$DG_NEW
  echo "--- this binary again:" | tee -a "$R/bench.txt"
fi
bench 8 "$M16/f32/mixed"
pack
bench 5..7 "$M16/f32/mixed"
verify_maxwell "$M32/f32/mixed"
bench 8 "$M32/f32/mixed"
for b in ${BOUNDS:-}; do bench 8 "${M16/mmamirror/mmamirrorb$b}/f32/mixed"; done
pack
verify_laws "$M16" "maxwell2d 1..8 " "euler2d 1..5 " "acoustics2d 1..6 /mixed" "mhd2d 1..2 "
pack
if [ -n "${ALT:-}" ]; then
  echo "--- ALT:" | tee -a "$R/bench.txt" "$R/check.txt"
  DG_NEW=$DG; DG=$ALT
  verify_maxwell "$M16/f32/mixed"
  bench 8 "$M16/f32/mixed"
  DG=$DG_NEW
  pack
fi
if [ "${NCU:-0}" = 1 ]; then
  for v in "$M16/f32/mixed:mmamirror" "$B4:mirror"; do
    timeout 150 ncu --launch-skip 10 --launch-count 1 -k "regex:${v##*:}" --section SpeedOfLight --section Occupancy \
      --section LaunchStats --metrics smsp__inst_executed.sum,smsp__cycles_active.avg,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active \
      "$DG" bench maxwell2d --orders 8 --variant "${v%:*}" $D > "$R/ncu_${v##*:}.txt" 2>&1
    echo "${v%:*}: $(grep -E 'smsp__inst_executed.sum|Duration|Achieved Occupancy|Registers Per|pipe_tensor|pipe_fma' "$R/ncu_${v##*:}.txt" | awk '{$1=$1; print}' | tr '\n' ';')" | tee -a "$R/ncu.txt"
  done
  pack
fi
date -u | tee -a "$R/date"
