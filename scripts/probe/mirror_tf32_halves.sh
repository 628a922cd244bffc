#!/usr/bin/env bash
# The tf32 mirror kernel in groups of 32 elements (`mmamirror/wg32/…/f32`: two halves of 16, its A fragments in
# local memory in the lanes' order, split as read by two integer instructions; rhs_mirror_tf32.tera). In order,
# packing after each step: registers and spills (nvcc -Xptxas -v of the emitted N = 5..8 sources, wg32 and wg16) and
# the N = 8 kernel's SASS counts, stopping at a compile error; verification of maxwell2d mixed N = 1..8 (wg32 and
# wg16); `dg bench --variant` at N = 5..8 beside `balanced4` (N = 8) and `whole5b5` (N = 7), and at N = 8 under launch
# bounds for each G of BOUNDS; the other laws verified (maxwell2d flux-first, euler2d, acoustics2d with materials,
# mhd2d with a source term) and a planted bug; with TUNE=1 maxwell2d's f32 right-hand side and stage tuned at N = 7, 8
# into an empty database and benched from it.
# NCU=1: Nsight Compute of one stage launch of MAIN at N = 8.
# Usage: DG=path/to/dg OUT=dir [MAIN=mmamirror/wg32/…] [BOUNDS="5 6"] [TUNE=1] [NCU=1] bash scripts/probe/mirror_tf32_halves.sh
set -u
DG=${DG:?DG=path to the dg binary}; OUT=${OUT:-/tmp/mirror_tf32_halves}
R="$OUT/r"; mkdir -p "$R"; D="--device cuda:0"
pack() { (cd "$OUT" && tar -czf results.tgz r db 2>/dev/null || tar -czf results.tgz r); }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } | tee -a "$R/date"
M32=mmamirror/wg32/seq1/field-local/merged/tiled
M16=mmamirror/wg16/seq1/field-local/merged/tiled
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
echo "N=8 MAIN SASS: $(grep -c HMMA "$R/mm8_main.sass") HMMA, $(grep -c 'LDS' "$R/mm8_main.sass") LDS, $(grep -cE '^ +/\*[0-9a-f]+\*/' "$R/mm8_main.sass") instructions" | tee -a "$R/ptxas.txt"
pack
"$DG" verify maxwell2d --order 1..8 --variant "$MAIN/f32/mixed" $D 2>&1 | tail -3 | tee -a "$R/check.txt"
pack
bench() { "$DG" bench maxwell2d --orders "$1" --variant "$2" $D 2>&1 | grep -E "^ *[0-9] " | sed "s|^|$2 |" | tee -a "$R/bench.txt"; }
bench 5..8 "$MAIN/f32/mixed"
bench 8 balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed
bench 7 whole5b5/wg32/seq1/matrix-local/merged/tiled/f32/mixed
[ "$MAIN" = "$M16" ] && bench 8 "$M32/f32/mixed" || bench 8 "$M16/f32/mixed"
for b in ${BOUNDS:-}; do bench 8 "${MAIN/mmamirror/mmamirrorb$b}/f32/mixed"; done
pack
for job in "maxwell2d 1..8 " "euler2d 1..5 " "acoustics2d 1..6 /mixed" "mhd2d 1..2 "; do
  set -- $job
  "$DG" verify "$1" --order "$2" --variant "$MAIN/f32${3:-}" $D 2>&1 | tail -2 | tee -a "$R/check.txt"
done
"$DG" verify maxwell2d --order 8 --variant "$MAIN/f32/mixed" $D --plant-bug skip-last-group > "$R/planted.txt" 2>&1
echo "planted bug: exit $? (must be non-zero)" | tee -a "$R/check.txt"
pack
if [ "${TUNE:-0}" = 1 ]; then
  DB=$OUT/db; mkdir -p "$DB"
  for op in unit stage; do
    t0=$(date +%s.%N)
    DG_CACHE_DIR=$(mktemp -d) "$DG" --db "$DB" autotune maxwell2d --orders 7..8 --precision f32 --operation $op $D > "$R/tune-$op.txt" 2>&1
    echo "tune $op rc $? $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s" | tee -a "$R/tune.txt"
    grep -iE "winner" "$R/tune-$op.txt" | cut -c1-220 | tee -a "$R/tune.txt"
  done
  "$DG" --db "$DB" bench maxwell2d --orders 7..8 --precision f32 $D 2>&1 | grep -E "^ *[0-9] " | tee -a "$R/tune.txt"
  pack
fi
if [ "${NCU:-0}" = 1 ]; then
  timeout 150 ncu --launch-skip 3 --launch-count 1 -k regex:mmamirror --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats \
    "$DG" run maxwell-cavity --order 8 --nx 244 --t-end 1e-4 --precision f32 --variant "$MAIN/f32/mixed" $D > "$R/ncu.txt" 2>&1
  echo "== ncu rc $?"
  grep -E "Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issue Slots Busy|Executed Instructions  |Static Shared|L1TEX" "$R/ncu.txt" | head -12
  pack
fi
date -u | tee -a "$R/date"
