#!/usr/bin/env bash
# The tf32 mirror kernel's store shared by all its warps (issue 14): every warp puts its accumulators in local memory in
# the lanes' order, reads back both kinds' words of its tiles and stores half of their rows (`G`: `git apply
# scripts/probe/mirror_tf32_store_halves.patch`, `cargo build --release`), beside the store from the symmetric rows'
# warps alone (`F`: `mirror_tf32_direct_store.patch`, `tf32_direct_store.sh`) and the
# submitted kernel (`DG`). G verified (maxwell2d mixed N = 1..8 under bounds for 9 groups and in groups of 32; euler2d,
# acoustics2d, mhd2d, three planted bugs; compute-sanitizer at N = 8); `dg bench` at N = 8 in two rounds: each build's
# `mmamirrorb9` and `mmamirrorb8`, and `balanced4`; each build's executed instructions (Nsight Compute, one launch).
# Usage: DG=… F=… G=… OUT=dir bash scripts/probe/tf32_store_halves.sh
set -u
. "$(dirname "$0")/mirror_probe_lib.sh"
DG=${DG:?}; MAIN=$DG; F=${F:?}; G=${G:?}; OUT=${OUT:-/tmp/store_halves}
probe_start
DG=$G
for spec in "$B9" "$M32/f32/mixed"; do echo "--- G $spec:" | tee -a "$R/check.txt"; verify_maxwell "$spec"; done
pack
B8=${B9/mmamirrorb9/mmamirrorb8}
for round in 1 2; do
  echo "--- round $round" >> "$R/bench.txt"
  for b in "DG $MAIN" "F $F" "G $G"; do
    set -- $b; echo "--- $1" >> "$R/bench.txt"; DG=$2; bench 8 "$B9"; bench 8 "$B8"
  done
  echo "--- DG" >> "$R/bench.txt"; DG=$MAIN; bench 8 "$B4"
  pack
done
M5=smsp__inst_executed.sum,dram__bytes.sum,gpu__time_duration.sum,l1tex__data_pipe_lsu_wavefronts.sum,sm__warps_active.avg.pct_of_peak_sustained_active
for b in "DG $MAIN" "G $G"; do
  set -- $b
  for spec in "$B9" "$B8"; do ncu_launch "$1-${spec%%/*}" "$2" "$spec" "$M5"; done
done
pack
echo "--- G laws:" | tee -a "$R/check.txt"; DG=$G
verify_laws "$M16" "euler2d 1..5" "acoustics2d 1..6 /mixed" "mhd2d 1..2"
"$DG" verify maxwell2d --order 8 --variant "$B9" $D --plant-bug stage-register-dropped > "$R/planted-stage.txt" 2>&1
echo "planted stage-register-dropped: exit $? (must be non-zero)" | tee -a "$R/check.txt"
"$DG" verify mhd2d --order 2 --variant "$M16/f32" $D --plant-bug source-dropped > "$R/planted-source.txt" 2>&1
echo "planted source-dropped (mhd2d N = 2): exit $? (must be non-zero)" | tee -a "$R/check.txt"
timeout 180 compute-sanitizer --tool memcheck --error-exitcode 9 "$G" verify maxwell2d --order 8 --variant "$B9" $D \
  > "$R/memcheck.txt" 2>&1
echo "memcheck G b9 N = 8: exit $? ($(grep -c 'Invalid' "$R/memcheck.txt") invalid accesses)" | tee -a "$R/check.txt"
date -u | tee -a "$R/date"; pack
