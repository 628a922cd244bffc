#!/usr/bin/env bash
# The mirror tiles' products on the FP64 tensor cores (`mmamirror`).
# PART=check: registers (nvcc -Xptxas -v of the emitted N = 8 sources, and the PTX's local memory), verification on
#   the device (maxwell2d mixed, euler2d flux-first, acoustics2d with materials, mhd2d with a source term; a planted
#   bug), then `dg bench --variant` at N = 5..8 in both precisions (and at N = 8 under launch bounds for each G of
#   BOUNDS groups per multiprocessor, `mmamirrorb<G>`) against the N = 8 winners.
# PART=ncu: Nsight Compute on the N = 8 kernels of both precisions (a short 16M-DOF cavity run, the variant forced).
# PART=tune: maxwell2d's f64 right-hand side and stage tuned at N = 1..8 into an empty database (mmamirror in the
#   list), benched; tuning N = 7 and 8 in two processes each and N = 8 untruncated.
# Usage: PART=check|ncu|tune DG=path/to/dg OUT=dir bash scripts/probe/mirror_mma.sh   (ORDERS, default 5..8)
set -u
DG=${DG:?DG=path to the dg binary}; OUT=${OUT:-/tmp/mirror_mma}; ORDERS=${ORDERS:-5..8}; PART=${PART:-check}
R="$OUT/r"; mkdir -p "$R"; D="--device cuda:0"
pack() { (cd "$OUT" && tar -czf results.tgz r); }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee -a "$R/date"
MM=mmamirror/wg16/seq1/field-local/merged/tiled
if [ "$PART" = check ]; then
  for p in f32 f64; do
    "$DG" emit maxwell2d --order 8 --variant "$MM/$p/mixed" > "$R/mm8_$p.cu"
    nvcc -arch=sm_90 -Xptxas -v -cubin -o /dev/null "$R/mm8_$p.cu" 2>&1 | grep -B1 -A3 "Compiling entry function 'mmamirror'" | tee -a "$R/check.txt"
    nvcc -arch=sm_90 -ptx -o "$R/mm8_$p.ptx" "$R/mm8_$p.cu"
    echo "$p local: $(grep -c 'ld.local' "$R/mm8_$p.ptx") ld.local, $(grep -c 'st.local' "$R/mm8_$p.ptx") st.local; $(grep -m2 local_depot "$R/mm8_$p.ptx" | tr '\n' ' ')" | tee -a "$R/check.txt"
  done
  for p in f64 f32; do
    for job in "maxwell2d 1..8 /mixed" "euler2d 1..5 " "acoustics2d 1..6 /mixed" "mhd2d 1..2 "; do
      set -- $job
      "$DG" verify "$1" --order "$2" --variant "$MM/$p${3:-}" $D 2>&1 | tail -2 | tee -a "$R/check.txt"
    done
  done
  "$DG" verify maxwell2d --order 8 --variant "$MM/f64/mixed" $D --plant-bug skip-last-group > "$R/planted.txt" 2>&1
  echo "planted bug: exit $? (must be non-zero)" | tee -a "$R/check.txt"
  for p in f32 f64; do
    "$DG" bench maxwell2d --orders "$ORDERS" --variant "$MM/$p/mixed" $D 2>&1 | grep -E "^ *[0-9] " | tee -a "$R/check.txt"
    for b in ${BOUNDS:-}; do
      "$DG" bench maxwell2d --orders 8 --variant "${MM/mmamirror/mmamirrorb$b}/$p/mixed" $D 2>&1 | grep -E "^ *[0-9] " | tee -a "$R/check.txt"
    done
  done
  "$DG" bench maxwell2d --orders 8 --variant balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed $D 2>&1 | grep -E "^ *[0-9] " | tee -a "$R/check.txt"
  "$DG" bench maxwell2d --orders 8 --variant balanced7/wg16/seq1/matrix-local/merged/tiled/f64/mixed $D 2>&1 | grep -E "^ *[0-9] " | tee -a "$R/check.txt"
  pack
fi
if [ "$PART" = ncu ]; then
  for p in f32 f64; do
    timeout 150 ncu --launch-skip 3 --launch-count 1 -k regex:mmamirror --section SpeedOfLight --section Occupancy \
      --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      --section InstructionStats \
      "$DG" run maxwell-cavity --order 8 --nx 244 --t-end 1e-4 --precision $p --variant "$MM/$p/mixed" $D > "$R/ncu-$p.txt" 2>&1
    echo "== ncu $p rc $?"
    grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|DRAM Throughput|L1/TEX Hit|Memory Throughput|Compute \(SM\)|No Eligible|Warp Cycles Per Issued|Issue Slots Busy|Executed Ipc|Static Shared|Stall" "$R/ncu-$p.txt" | head -30
    pack
  done
fi
if [ "$PART" = tune ]; then
  DB=$OUT/db; mkdir -p "$DB"
  # shellcheck source=scripts/probe/nodal_retune_lib.sh
  source "$(dirname "$0")/nodal_retune_lib.sh"
  nodal_retune_maxwell f64 | tee -a "$R/tune.txt"; pack
  nodal_bench f64 | tee -a "$R/tune.txt"; (cd "$OUT" && tar -czf results.tgz r db)
  for n in 7 8; do
    for run in a b; do
      t0=$(date +%s.%N)
      DG_CACHE_DIR=$(mktemp -d) timeout 60 "$DG" --db "$(mktemp -d)" autotune maxwell2d --orders $n --precision f64 $D > "$R/time-$n-$run.txt" 2>&1
      echo "tune N=$n $run rc $? process $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s: $(grep -E "winner" "$R/time-$n-$run.txt" | tail -1 | cut -c1-200)" | tee -a "$R/tune.txt"
    done
  done
  DG_CACHE_DIR=$(mktemp -d) timeout 90 "$DG" --db "$(mktemp -d)" autotune maxwell2d --orders 8 --precision f64 --every-variant --no-early-stop $D > "$R/untruncated-8.txt" 2>&1
  echo "untruncated N=8 rc $?: $(grep winner "$R/untruncated-8.txt" | tail -1 | cut -c1-200)" | tee -a "$R/tune.txt"
  (cd "$OUT" && tar -czf results.tgz r db)
fi
date -u | tee -a "$R/date"
