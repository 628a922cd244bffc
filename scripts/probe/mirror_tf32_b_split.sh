#!/usr/bin/env bash
# The tf32 mirror kernel reading the operator's B fragments in f32 (one 8-byte load a lane and tile) and splitting
# them as it splits A, against the binary before (OLD: B pre-split on the host, one 16-byte load) and up to three
# more builds (ALT, ALT2, ALT3; ALT3 also under launch bounds for five groups). In order, packing after each step:
# maxwell2d mixed N = 1..8 verified (groups of 16); `dg bench --variant` at N = 8 of the new kernel, OLD's, the
# ALTs' and `balanced4`, twice; the ALTs verified; Nsight Compute on one `dg bench` launch at N = 8 of the new kernel
# and of ALT2's (the L1 unit's throughput broken down by sub-unit, the memory tables: shared and global wavefronts,
# sectors, bank conflicts); groups of 32 verified, the other laws verified and a planted bug; N = 5..7 timed (new
# and OLD).
# Usage: DG=path/to/dg OLD=path/to/old/dg [ALT=path/to/dg] [ALT2=…] [ALT3=…] OUT=dir \
#        bash scripts/probe/mirror_tf32_b_split.sh
set -u
. "$(dirname "$0")/mirror_probe_lib.sh"
DG=${DG:?DG=path to the dg binary}; OLD=${OLD:?OLD=path to the binary before}; OUT=${OUT:-/tmp/mirror_tf32_b_split}
probe_start
B4=balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed
NEW=$DG
verify_maxwell "$M16/f32/mixed"
pack
for round in 1 2; do
  for dg in "$NEW" "$OLD" ${ALT:-} ${ALT2:-} ${ALT3:-}; do
    echo "--- $dg:" >> "$R/bench.txt"; DG=$dg; bench 8 "$M16/f32/mixed"
  done
  [ -n "${ALT3:-}" ] && { DG=$ALT3; bench 8 "${M16/mmamirror/mmamirrorb5}/f32/mixed"; }
  DG=$NEW; bench 8 "$B4"
done
pack
for alt in ${ALT:-} ${ALT2:-} ${ALT3:-}; do
  echo "--- $alt:" | tee -a "$R/check.txt"; DG=$alt; verify_maxwell "$M16/f32/mixed"
done
DG=$NEW
pack
# Nsight Compute: LABEL BINARY SPEC KERNEL-REGEX
profile() {
  timeout 120 ncu --launch-skip 10 --launch-count 1 -k "regex:$4" --section SpeedOfLight \
    --section MemoryWorkloadAnalysis_Tables --metrics breakdown:l1tex__throughput.avg.pct_of_peak_sustained_elapsed \
    "$2" bench maxwell2d --orders 8 --variant "$3" $D > "$R/ncu_$1.txt" 2>&1
  local rc=$?
  echo "$1: exit $rc, $(grep -E 'Duration|L1/TEX Cache Throughput' "$R/ncu_$1.txt" | awk '{$1=$1; print}' \
    | tr '\n' ';')" | tee -a "$R/ncu.txt"
}
profile new "$NEW" "$M16/f32/mixed" mmamirror
pack
[ -n "${ALT2:-}" ] && profile alt2 "$ALT2" "$M16/f32/mixed" mmamirror
pack
verify_maxwell "$M32/f32/mixed"
verify_laws "$M16" "maxwell2d 1..8 " "euler2d 1..5 " "acoustics2d 1..6 /mixed" "mhd2d 1..2 "
pack
bench 5..7 "$M16/f32/mixed"
echo "--- OLD:" | tee -a "$R/bench.txt"; DG=$OLD; bench 5..7 "$M16/f32/mixed"; DG=$NEW
pack
date -u | tee -a "$R/date"
