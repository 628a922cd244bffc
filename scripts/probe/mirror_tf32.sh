#!/usr/bin/env bash
# The mirror tiles' products on the tf32 tensor cores in f32 (`mmamirror/…/f32`: three m16n8k8.tf32 products of split
# operands). In order, packing after each step: registers and spills (nvcc -Xptxas -v of the emitted N = 5..8
# sources) and the N = 8 kernel's SASS counts; verification of maxwell2d mixed N = 1..8 on the device; `dg bench
# --variant` at N = 5..8 (and at N = 8 under launch bounds for each G of BOUNDS) beside the f32 winners of N = 7, 8 and
# the f64 mmamirror at N = 8; with PROBE=path to a second dg binary, the same verification and bench with
# DG_PROBE_PRESPLIT=1 (scripts/probe/mirror_tf32_presplit.py); the other laws verified (maxwell2d
# flux-first, euler2d, acoustics2d with materials, mhd2d with a source term) and a planted bug; maxwell2d's f32 right-hand
# side and stage tuned at N = 7, 8 into an empty database and benched from it; Nsight Compute on the N = 8 kernel
# (SKIP_NCU=1: not).
# LEAN=1: only N = 8's registers, maxwell2d's verification and benches, the probe's bench at N = 8, euler2d's
# verification and the planted bug (no tuning, no Nsight Compute).
# Usage: DG=path/to/dg OUT=dir [PROBE=path/to/probe-dg] [BOUNDS="5 6"] [LEAN=1] bash scripts/probe/mirror_tf32.sh
set -u
. "$(dirname "$0")/mirror_probe_lib.sh"
DG=${DG:?DG=path to the dg binary}; OUT=${OUT:-/tmp/mirror_tf32}
R="$OUT/r"; mkdir -p "$R"; D="--device cuda:0"
pack() { (cd "$OUT" && tar -czf results.tgz r db 2>/dev/null || tar -czf results.tgz r); }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } | tee -a "$R/date"
MM=mmamirror/wg16/seq1/field-local/merged/tiled
ORDERS_PTXAS="5 6 7 8"; [ "${LEAN:-0}" = 1 ] && ORDERS_PTXAS=8
for n in $ORDERS_PTXAS; do
  "$DG" emit maxwell2d --order $n --variant "$MM/f32/mixed" > "$R/mm${n}_f32.cu"
  nvcc -arch=sm_90 -Xptxas -v -cubin -o /dev/null "$R/mm${n}_f32.cu" 2>&1 | grep -E "registers|spill" | tail -2 | tr '\n' ' ' | sed "s/^/N=$n: /" | tee -a "$R/ptxas.txt"; echo | tee -a "$R/ptxas.txt"
done
nvcc -arch=sm_90 -cubin -o "$R/mm8_f32.cubin" "$R/mm8_f32.cu" && cuobjdump -sass "$R/mm8_f32.cubin" > "$R/mm8_f32.sass" 2>&1
sass_counts "N=8" "$R/mm8_f32.sass"
pack
verify_maxwell "$MM/f32/mixed"
pack
bench 5..8 "$MM/f32/mixed"
bench 8 balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed
[ "${LEAN:-0}" = 1 ] || bench 7 whole5b5/wg32/seq1/matrix-local/merged/tiled/f32/mixed
for b in ${BOUNDS:-}; do bench 8 "${MM/mmamirror/mmamirrorb$b}/f32/mixed"; done
[ "${LEAN:-0}" = 1 ] || bench 8 "$MM/f64/mixed"
pack
if [ -n "${PROBE:-}" ]; then
  DG_PROBE_PRESPLIT=1 "$PROBE" emit maxwell2d --order 8 --variant "$MM/f32/mixed" > "$R/presplit8.cu"
  nvcc -arch=sm_90 -Xptxas -v -cubin -o /dev/null "$R/presplit8.cu" 2>&1 | grep -A2 "Compiling entry function 'mmamirror'" | tr '\n' ' ' | sed "s/^/presplit N=8: /" | tee -a "$R/ptxas.txt"; echo | tee -a "$R/ptxas.txt"
  [ "${LEAN:-0}" = 1 ] || DG_PROBE_PRESPLIT=1 "$PROBE" verify maxwell2d --order 1..8 --variant "$MM/f32/mixed" $D 2>&1 | tail -3 | sed "s/^/presplit: /" | tee -a "$R/check.txt"
  PO=5..8; [ "${LEAN:-0}" = 1 ] && PO=8
  DG_PROBE_PRESPLIT=1 "$PROBE" bench maxwell2d --orders $PO --variant "$MM/f32/mixed" $D 2>&1 | grep -E "^ *[0-9] " | sed "s|^|presplit $MM/f32/mixed |" | tee -a "$R/bench.txt"
  pack
fi
JOBS=("maxwell2d 1..8 " "euler2d 1..5 " "acoustics2d 1..6 /mixed" "mhd2d 1..2 "); [ "${LEAN:-0}" = 1 ] && JOBS=("euler2d 1..5 ")
verify_laws "$MM" "${JOBS[@]}"
pack
[ "${LEAN:-0}" = 1 ] && { date -u | tee -a "$R/date"; exit 0; }
DB=$OUT/db; mkdir -p "$DB"
for op in unit stage; do
  t0=$(date +%s.%N)
  DG_CACHE_DIR=$(mktemp -d) "$DG" --db "$DB" autotune maxwell2d --orders 7..8 --precision f32 --operation $op $D > "$R/tune-$op.txt" 2>&1
  echo "tune $op rc $? $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s" | tee -a "$R/tune.txt"
  grep -iE "winner" "$R/tune-$op.txt" | cut -c1-220 | tee -a "$R/tune.txt"
done
"$DG" --db "$DB" bench maxwell2d --orders 7..8 --precision f32 $D 2>&1 | grep -E "^ *[0-9] " | tee -a "$R/tune.txt"
pack
if [ "${SKIP_NCU:-0}" != 1 ]; then
  timeout 120 ncu --launch-skip 3 --launch-count 1 -k regex:mmamirror --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats \
    "$DG" run maxwell-cavity --order 8 --nx 244 --t-end 1e-4 --precision f32 --variant "$MM/f32/mixed" $D > "$R/ncu-f32.txt" 2>&1
  echo "== ncu rc $?"
  grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|DRAM Throughput|Compute \(SM\)|Warp Cycles Per Issued|Issue Slots Busy|Executed Ipc|Static Shared" "$R/ncu-f32.txt" | head -20
fi
pack
date -u | tee -a "$R/date"
