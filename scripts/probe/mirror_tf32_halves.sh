#!/usr/bin/env bash
# The tf32 mirror kernel in groups of 32 elements (`mmamirror/wg32/…/f32`: two halves of 16, its A fragments in
# local memory in the lanes' order, split as read by two integer instructions; rhs_mirror_tf32.tera). In order,
# packing after each step: registers and spills (nvcc -Xptxas -v of the emitted N = 5..8 sources, wg32 and wg16) and
# the N = 8 kernel's SASS counts, stopping at a compile error; verification of maxwell2d mixed N = 1..8 (wg32 and
# wg16); `dg bench --variant` at N = 5..8 beside `balanced4` (N = 8) and `whole5b5` (N = 7), and at N = 8 under launch
# bounds for each G of BOUNDS; the other laws verified (maxwell2d flux-first, euler2d, acoustics2d with materials,
# mhd2d with a source term) and a planted bug.
# (Nsight Compute: scripts/probe/mirror_tf32_pipes.sh and mirror_tf32_stalls.sh.)
# Usage: DG=path/to/dg OUT=dir [MAIN=mmamirror/wg32/…] [BOUNDS="5 6"] bash scripts/probe/mirror_tf32_halves.sh
set -u
. "$(dirname "$0")/mirror_probe_lib.sh"
DG=${DG:?DG=path to the dg binary}; OUT=${OUT:-/tmp/mirror_tf32_halves}
probe_start
# MAIN: the group the verification, the other laws, the planted bug and the launch bounds take
MAIN=${MAIN:-$M16}
for n in 5 6 7 8; do
  for m in "$M32" "$M16"; do
    g=${m#mmamirror/}; g=${g%%/*}
    "$DG" emit maxwell2d --order $n --variant "$m/f32/mixed" > "$R/mm${n}_${g}.cu"
    if ! nvcc -arch=sm_90 -Xptxas -v -cubin -o "$R/mm${n}_${g}.cubin" "$R/mm${n}_${g}.cu" > "$R/ptxas_${n}_${g}.txt" 2>&1; then
      [ "$m" = "$MAIN" ] || { echo "N=$n $g: does not compile (not MAIN)"; continue; }
      echo "compile error N=$n $g"; grep -E "error" "$R/ptxas_${n}_${g}.txt" | head -20; pack; exit 1
    fi
    grep -A2 "Compiling entry function 'mmamirror'" "$R/ptxas_${n}_${g}.txt" | grep -E "registers|spill" | tr '\n' ' ' | sed "s/^/N=$n $g: /" | tee -a "$R/ptxas.txt"; echo | tee -a "$R/ptxas.txt"
    [ "$n" = 8 ] && [ "$m" = "$MAIN" ] && cuobjdump -sass "$R/mm${n}_${g}.cubin" > "$R/mm8_main.sass" 2>&1
    rm -f "$R/mm${n}_${g}.cubin" "$R/mm${n}_${g}.cu"
  done
done
sass_counts "N=8 MAIN" "$R/mm8_main.sass"
pack
verify_maxwell "$MAIN/f32/mixed"
pack
bench 5..8 "$MAIN/f32/mixed"
bench 8 balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed
bench 7 whole5b5/wg32/seq1/matrix-local/merged/tiled/f32/mixed
[ "$MAIN" = "$M16" ] && bench 8 "$M32/f32/mixed" || bench 8 "$M16/f32/mixed"
for b in ${BOUNDS:-}; do bench 8 "${MAIN/mmamirror/mmamirrorb$b}/f32/mixed"; done
pack
verify_laws "$MAIN" "maxwell2d 1..8 " "euler2d 1..5 " "acoustics2d 1..6 /mixed" "mhd2d 1..2 "
pack
date -u | tee -a "$R/date"
